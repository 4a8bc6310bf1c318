//! The console's meta-commands (`:as`, `:clock`, `:undo`, `:redo`, `:branch`, `:profile`,
//! `:fill`), and the limits on what `:fill` may make.

use super::*;

/// The most entries one `:fill` makes.
pub const MAX_FILL: u64 = 1_000_000;

/// The most entries `:fill` may make in one session's history: about what a browser tab holds
/// comfortably with its undo copies, so a link or a script cannot fill one until it runs out
/// of memory.
pub const FILL_BUDGET: u64 = 2_000_000;

/// The key and count of a meta-command (the text after `:`) that is `fill KEY COUNT`.
fn fill_args(meta: &str) -> Option<(&str, &str)> {
    let mut words = meta.split_whitespace();
    match (words.next(), words.next(), words.next(), words.next()) {
        (Some("fill"), Some(key), Some(count), None) => Some((key, count)),
        _ => None,
    }
}

/// The entries a console line asks `:fill` for, read exactly as [`Console::run`] reads it: a
/// budget that adds up a log's fills before running it sees every fill the console would make.
pub fn fill_count(line: &str) -> Option<u64> {
    fill_args(line.trim().strip_prefix(':')?)?.1.parse().ok()
}

impl Console {
    pub(super) fn run_meta(&mut self, meta: &str, out: &mut Vec<Output>) {
        let error = |text: String| Output::new(OutputKind::Error, text);
        if let Some((key, count)) = fill_args(meta) {
            match count.parse::<u64>() {
                // The limits are spelled out: `format!` here would grow the grader's wasm.
                Ok(count) if count > MAX_FILL => {
                    out.push(error("(error) :fill is limited to 1000000 entries at a time".to_owned()))
                }
                Ok(count) if self.filled().saturating_add(count) > FILL_BUDGET => out.push(error(
                    "(error) :fill would make more than 2000000 entries in this session: undo a fill or \
                     start a fresh session first"
                        .to_owned(),
                )),
                Ok(count) => {
                    let output = self.timeline.fill(key.as_bytes(), count);
                    for reply in &output.replies {
                        out.push(Output::new(OutputKind::of(reply), format_reply(reply)));
                    }
                    self.deliveries(output.deliveries, out);
                }
                Err(_) => out.push(error(format!("(error) bad :fill '{meta}': use :fill KEY COUNT"))),
            }
            return;
        }
        let mut words = meta.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("as"), Some(name), None) => self.switch(name),
            (Some("clock"), Some(amount), None) => match parse_clock(amount) {
                Some(ms) => out.extend(self.advance(ms)),
                None => {
                    out.push(error(format!("(error) bad clock step '{amount}': use +MS, for example :clock +1500")))
                }
            },
            (Some("undo"), None, None) => {
                if !self.undo() {
                    let text = match self.timeline.keep() {
                        Keep::Last(steps) if self.timeline.forgotten() > 0 => {
                            format!("(error) nothing to undo: this session keeps only its last {steps} steps")
                        }
                        _ => "(error) nothing to undo".to_owned(),
                    };
                    out.push(error(text));
                }
            }
            (Some("redo"), None, None) => {
                if !self.redo() {
                    out.push(error("(error) nothing to redo".to_owned()));
                }
            }
            // `:branch` brings back the steps set aside last, `:branch N` the Nth (oldest first).
            (Some("branch"), number, None) => {
                let index = number.map_or(Some(self.timeline.branches().len()), |n| n.parse::<usize>().ok());
                match index.and_then(|n| self.switch_branch(n.checked_sub(1)?)) {
                    Some(text) => out.push(Output::new(OutputKind::Info, text)),
                    None => out.push(error("(error) no such steps set aside (:branch N counts from 1, oldest first)".to_owned())),
                }
            }
            // A fresh session (keys, connections, clock and history all start over) answering
            // as another server.
            (Some("profile"), Some(name), None) => match name.parse::<Profile>() {
                Ok(profile) => {
                    let mut fresh = Console::with_profile(profile);
                    fresh.timeline.keep_like(&self.timeline);
                    fresh.interactive = self.interactive;
                    *self = fresh;
                }
                Err(e) => out.push(error(format!("(error) {e}"))),
            },
            (Some("profile"), None, None) => out.push(Output::new(OutputKind::Info, self.session().profile().to_string())),
            (Some("fill"), Some(_), Some(_)) => out.push(error(format!("(error) bad :fill '{meta}': use :fill KEY COUNT"))),
            _ => out.push(error(format!(
                "(error) unknown meta-command ':{meta}': try :as NAME, :clock +MS, :undo, :redo, :branch, :profile NAME or :fill KEY COUNT"
            ))),
        }
    }

    /// The entries `:fill` made in the steps applied so far. The budget counts these, not what
    /// the streams hold now: a fill's entries stay in the history's copies after a DEL.
    fn filled(&self) -> u64 {
        let mut filled = self.timeline.forgotten_fills();
        for record in self.timeline.records().get(..self.timeline.position()).unwrap_or_default() {
            if let Step::Fill { count, .. } = record.step {
                filled = filled.saturating_add(count);
            }
        }
        filled
    }
}
