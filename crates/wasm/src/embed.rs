//! What an embedded widget is told and what it tells its page: the options a host passes to
//! `mount` (as JSON, already normalised by `embed.js`) and the payloads of its events.

use serde::{Deserialize, Serialize};

pub use streamlab_lessons::Prediction;

use streamlab_protocol::Profile;

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
    /// A lesson: its intro, then its tasks in order, reach-state tasks with a console.
    Lesson,
    /// A lesson's predict and multiple-choice tasks only, no console.
    Quiz,
    /// A lesson with a list of its tasks to move between freely.
    Player,
}

/// Whether the reference solution may be shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SolutionPolicy {
    /// Behind a button.
    Allow,
    /// Behind a button and a confirmation.
    #[default]
    Confirm,
    /// Never.
    Never,
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
    /// The lesson file's text (lesson, quiz and player modes); embed.js fetches it.
    #[serde(default)]
    pub lesson: Option<String>,
    /// Where the lesson came from, to name it in its problems.
    #[serde(default)]
    pub file: Option<String>,
    /// The lesson comes from the site's own collection (validated in CI), so it is only
    /// parsed; a lesson from anywhere else is validated in full first.
    #[serde(default)]
    pub trusted: bool,
    /// Whether hints are offered.
    #[serde(default = "yes")]
    pub hints: bool,
    /// Whether the solution may be shown.
    #[serde(default)]
    pub solution: SolutionPolicy,
    /// Which attempt this is: picks the lesson's variant.
    #[serde(default)]
    pub attempt: u32,
}

fn yes() -> bool {
    true
}

impl EmbedOptions {
    /// Reads the options; the error says which one is wrong.
    pub fn parse(json: &str) -> Result<EmbedOptions, String> {
        let options: EmbedOptions = serde_json::from_str(json).map_err(|e| format!("bad options: {e}"))?;
        options.profile()?;
        match (options.mode.has_lesson(), &options.lesson) {
            (true, None) => Err(format!("mode {} needs a lesson", options.mode.name())),
            (false, Some(_)) => Err(format!("mode {} takes no lesson", options.mode.name())),
            (true, Some(_)) if !options.setup.is_empty() => {
                Err(format!("mode {} takes no setup: the lesson sets itself up", options.mode.name()))
            }
            _ => Ok(options),
        }
    }

    /// The profile asked for (the playground's default when none is), or why it is unknown.
    fn profile(&self) -> Result<Profile, String> {
        crate::profile_or_default(self.profile.as_deref())
    }

    /// The session the widget starts from before its setup: the profile's fresh session.
    /// `parse` has checked the profile, so an unknown one cannot reach here.
    pub fn base_spec(&self) -> SessionSpec {
        SessionSpec { profile: self.profile().unwrap_or(DEFAULT_PROFILE), ..SessionSpec::default() }
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
    /// The mode's name.
    pub mode: &'static str,
    /// The profile.
    pub profile: String,
    /// Steps recorded by the setup (or the restored state).
    pub steps: usize,
    /// The lesson's id (lesson modes).
    pub lesson: Option<String>,
    /// The tasks the widget plays (lesson modes; quiz mode plays only the questions).
    pub tasks: usize,
}

/// The `error` event, for problems found after the widget started (a lesson step refused).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEvent {
    /// What went wrong, in words.
    pub message: String,
}

/// The most a task scores.
pub const TASK_MAX: u32 = 3;

/// A solved reach-state task's score: [`TASK_MAX`], one less for using hints, one less for
/// more commands than par, and 1 whenever the solution was shown.
pub fn task_score(commands: usize, par: usize, hints_used: usize, solution_viewed: bool) -> u32 {
    if solution_viewed {
        return 1;
    }
    TASK_MAX - u32::from(hints_used > 0) - u32::from(commands > par)
}

/// The `check` event: Check on a reach-state task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckEvent {
    /// The task's index in the lesson.
    pub task: usize,
    /// Every check passed.
    pub passed: bool,
    /// The failing checks' messages.
    pub failed: Vec<String>,
    /// Commands run in the task so far.
    pub commands: usize,
    /// The task's par.
    pub par: usize,
}

/// The `task-complete` event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskCompleteEvent {
    /// The task's index in the lesson.
    pub task: usize,
    /// Its score.
    pub score: u32,
    /// The most it could score.
    pub max: u32,
    /// Commands run (0 for questions).
    pub commands: usize,
    /// Par (0 for questions).
    pub par: usize,
    /// Hints shown.
    pub hints_used: usize,
    /// The solution was shown.
    pub solution_viewed: bool,
}

/// The `quiz-answer` event: a predict or multiple-choice answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuizAnswerEvent {
    /// The task's index in the lesson.
    pub task: usize,
    /// The chosen option, or `None` for a typed reply.
    pub option: Option<usize>,
    /// The typed reply.
    pub typed: Option<String>,
    /// Whether it was right.
    pub correct: bool,
    /// Why.
    pub why: String,
}

/// The `progress` and `lesson-complete` events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProgressEvent {
    /// The lesson's id.
    pub lesson: String,
    /// Tasks completed.
    pub done: usize,
    /// Tasks played.
    pub total: usize,
    /// Points so far.
    pub score: u32,
    /// Points possible.
    pub max: u32,
}

impl Mode {
    /// Its name in options and events.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sandbox => "sandbox",
            Mode::Readonly => "readonly",
            Mode::Lesson => "lesson",
            Mode::Quiz => "quiz",
            Mode::Player => "player",
        }
    }

    /// Whether the mode plays a lesson.
    pub fn has_lesson(self) -> bool {
        matches!(self, Mode::Lesson | Mode::Quiz | Mode::Player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_strictly() {
        let o = EmbedOptions::parse(r#"{"mode":"readonly","setup":["XADD s 1-0 f v"],"layout":"pictures"}"#).unwrap();
        assert_eq!((o.mode, o.layout, o.setup.len()), (Mode::Readonly, Layout::Pictures, 1));
        let plain = EmbedOptions::parse("{}").unwrap();
        assert_eq!(
            (plain.mode, plain.layout, plain.hints, plain.solution),
            (Mode::Sandbox, Layout::Both, true, SolutionPolicy::Confirm)
        );
        let bad = EmbedOptions::parse(r#"{"mode":"arcade"}"#).unwrap_err();
        assert!(bad.contains("unknown variant `arcade`"), "{bad}");
        assert!(EmbedOptions::parse(r#"{"colour":"red"}"#).unwrap_err().contains("unknown field `colour`"));
        assert!(EmbedOptions::parse(r#"{"profile":"redis-6"}"#).unwrap_err().contains("unknown profile 'redis-6'"));
        assert_eq!(EmbedOptions::parse(r#"{"mode":"quiz"}"#).unwrap_err(), "mode quiz needs a lesson");
        let quiz = EmbedOptions::parse(r#"{"mode":"quiz","lesson":"id = 1","solution":"never"}"#).unwrap();
        assert_eq!((quiz.solution, quiz.hints), (SolutionPolicy::Never, true));
    }

    #[test]
    fn scores_fall_with_help_and_extra_commands() {
        assert_eq!(task_score(1, 1, 0, false), 3);
        assert_eq!(task_score(2, 1, 0, false), 2);
        assert_eq!(task_score(2, 1, 2, false), 1);
        assert_eq!(task_score(1, 1, 0, true), 1);
    }

    #[test]
    fn command_events_carry_the_text_and_whether_it_failed() {
        let out = [OutputView { to: None, text: "(error) ERR nope".into(), kind: "error" }];
        let e = CommandEvent::new("XADD", "alice", &out, false);
        assert_eq!((e.reply.as_str(), e.ok), ("(error) ERR nope", false));
    }
}
