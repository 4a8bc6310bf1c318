//! What an embedded widget is told and what it tells its page: the options a host passes to
//! `mount` (as JSON, already normalised by `embed.js`) and the payloads of its events.

use serde::{Deserialize, Serialize};

use crate::{OutputView, SessionSpec, DEFAULT_PROFILE};

/// What the widget is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A console and pictures to play in.
    #[default]
    Sandbox,
    /// The state after `setup`, shown but not typed into (the page may still call `run`).
    Readonly,
}

/// Which parts are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// The console only.
    Console,
    /// The pictures only.
    Pictures,
    /// Both, side by side when there is room.
    #[default]
    Both,
}

/// A widget's options.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedOptions {
    /// Sandbox or readonly.
    #[serde(default)]
    pub mode: Mode,
    /// Console lines run before the widget is shown (and again after a reset).
    #[serde(default)]
    pub setup: Vec<String>,
    /// The engine profile.
    #[serde(default)]
    pub profile: Option<String>,
    /// Console, pictures or both.
    #[serde(default)]
    pub layout: Layout,
    /// A saved state (`getState()`'s token) to start from instead of running `setup`.
    #[serde(default)]
    pub state: Option<String>,
}

impl EmbedOptions {
    /// Reads the options; the error says which one is wrong.
    pub fn parse(json: &str) -> Result<EmbedOptions, String> {
        let options: EmbedOptions = serde_json::from_str(json).map_err(|e| format!("bad options: {e}"))?;
        options.base_spec()?;
        Ok(options)
    }

    /// The session the widget starts from before its setup: the profile's fresh session.
    pub fn base_spec(&self) -> Result<SessionSpec, String> {
        let profile = self.profile.clone().unwrap_or_else(|| DEFAULT_PROFILE.to_owned());
        if profile != DEFAULT_PROFILE {
            return Err(format!("unknown profile '{profile}': the widget knows {DEFAULT_PROFILE}"));
        }
        Ok(SessionSpec { profile, ..SessionSpec::default() })
    }
}

/// The `command` event: a line run in the widget and what it printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandEvent {
    /// The line as typed.
    pub input: String,
    /// The connection it ran on.
    pub conn: String,
    /// What it printed, as redis-cli prints it.
    pub reply: String,
    /// False when anything printed was an error.
    pub ok: bool,
    /// The line left its connection waiting (a blocked read).
    pub blocked: bool,
}

impl CommandEvent {
    /// The event for a line and its output.
    pub fn new(input: &str, conn: &str, output: &[OutputView], blocked: bool) -> CommandEvent {
        CommandEvent {
            input: input.to_owned(),
            conn: conn.to_owned(),
            reply: output.iter().map(OutputView::display).collect::<Vec<_>>().join("\n"),
            ok: output.iter().all(|o| o.kind != "error"),
            blocked,
        }
    }
}

/// The `ready` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadyEvent {
    /// `sandbox` or `readonly`.
    pub mode: &'static str,
    /// The profile.
    pub profile: String,
    /// Steps recorded by the setup (or the restored state).
    pub steps: usize,
}

impl Mode {
    /// Its name in options and events.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sandbox => "sandbox",
            Mode::Readonly => "readonly",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_strictly() {
        let o = EmbedOptions::parse(r#"{"mode":"readonly","setup":["XADD s 1-0 f v"],"layout":"pictures"}"#).unwrap();
        assert_eq!((o.mode, o.layout, o.setup.len()), (Mode::Readonly, Layout::Pictures, 1));
        assert_eq!(EmbedOptions::parse("{}").unwrap(), EmbedOptions::default());
        let bad = EmbedOptions::parse(r#"{"mode":"arcade"}"#).unwrap_err();
        assert!(bad.contains("unknown variant `arcade`"), "{bad}");
        assert!(EmbedOptions::parse(r#"{"colour":"red"}"#).unwrap_err().contains("unknown field `colour`"));
        assert!(EmbedOptions::parse(r#"{"profile":"redis-6"}"#).unwrap_err().contains("unknown profile 'redis-6'"));
    }

    #[test]
    fn command_events_carry_the_text_and_whether_it_failed() {
        let out = [OutputView { to: None, text: "(error) ERR nope".into(), kind: "error" }];
        let e = CommandEvent::new("XADD", "alice", &out, false);
        assert_eq!((e.reply.as_str(), e.ok), ("(error) ERR nope", false));
    }
}
