//! `streamlab repl`: an interactive console that looks and answers like redis-cli.

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};
use streamlab_protocol::command::{self, CommandSpec};
use streamlab_protocol::{Profile, SUBSCRIBE_BANNER};

use crate::transcript::Console;

/// Completion of command names and the syntax hint redis-cli shows while typing.
struct ReplHelper;

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(&self, line: &str, pos: usize, _: &Context<'_>) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        if before.contains(char::is_whitespace) {
            return Ok((pos, Vec::new()));
        }
        let upper = before.to_ascii_uppercase();
        let mut names: Vec<String> =
            command::all().map(|c| c.name.to_ascii_uppercase()).filter(|n| n.starts_with(&upper)).collect();
        names.sort();
        Ok((0, names))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;

    fn hint(&self, line: &str, pos: usize, _: &Context<'_>) -> Option<String> {
        if pos != line.len() {
            return None;
        }
        syntax_hint(line)
    }
}

impl Highlighter for ReplHelper {}
impl Validator for ReplHelper {}
impl Helper for ReplHelper {}

/// The rest of a command's syntax after what has been typed, as redis-cli hints it.
pub fn syntax_hint(line: &str) -> Option<String> {
    let mut words = line.split_whitespace();
    let spec = command::lookup(words.next()?.as_bytes())?;
    let typed = words.count();
    if typed == 0 && !line.ends_with(' ') {
        return Some(format!(" {}", spec.syntax));
    }
    let rest: Vec<&str> = spec.syntax.split_whitespace().skip(typed).collect();
    if rest.is_empty() {
        return None;
    }
    let lead = if line.ends_with(' ') { "" } else { " " };
    Some(format!("{lead}{}", rest.join(" ")))
}

/// The text `help CMD` prints, in redis-cli's layout.
pub fn help_text(spec: &CommandSpec) -> String {
    let mut text = format!(
        "\n  {} {}\n  summary: {}\n  since: {}\n  group: {}\n",
        spec.name.to_ascii_uppercase(),
        spec.syntax,
        spec.summary,
        spec.since,
        spec.group
    );
    for sub in spec.subcommands {
        text.push_str(&format!(
            "\n  {} {} {}\n  summary: {}\n",
            spec.name.to_ascii_uppercase(),
            sub.name.to_ascii_uppercase(),
            sub.syntax,
            sub.summary
        ));
    }
    text
}

const BANNER: &str = "StreamLab console: Redis Streams in a sandbox. Commands as in redis-cli; \
:as NAME switches connection, :clock +MS moves the clock, :undo and :redo step through history, \
:profile NAME switches server (redis-7.4 ... redis-8.10, valkey-9), :fill KEY COUNT appends generated orders, help CMD explains a command.";

/// Runs the interactive console until end of input, starting as `profile`.
pub fn run(profile: Profile) -> rustyline::Result<()> {
    let mut editor: Editor<ReplHelper, DefaultHistory> = Editor::new()?;
    editor.set_helper(Some(ReplHelper));
    let history = std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".streamlab_history"));
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    println!("{BANNER}");
    let mut console = Console::with_profile(profile);
    loop {
        let prompt = match console.session().profile() {
            p if p == Profile::default() => format!("{}> ", console.current()),
            p => format!("{}@{p}> ", console.current()),
        };
        let line = match editor.readline(&prompt) {
            Ok(line) => line,
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(error) => return Err(error),
        };
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(trimmed);
        if trimmed.eq_ignore_ascii_case("quit") || trimmed.eq_ignore_ascii_case("exit") {
            break;
        }
        if let Some(topic) =
            trimmed.strip_prefix("help").filter(|_| trimmed.len() == 4 || trimmed[4..].starts_with(' '))
        {
            let topic = topic.trim();
            match command::lookup(topic.as_bytes()) {
                Some(spec) => println!("{}", help_text(spec)),
                None if topic.is_empty() => {
                    println!(
                        "Type: \"help <command>\" for help on <command>, or :as / :clock / :undo / :profile / :fill."
                    )
                }
                None => println!("No help for '{topic}'."),
            }
            continue;
        }
        // redis-cli announces a subscription before printing its confirmations.
        let first = trimmed.split_whitespace().next().unwrap_or("");
        if first.eq_ignore_ascii_case("subscribe") || first.eq_ignore_ascii_case("psubscribe") {
            println!("{SUBSCRIBE_BANNER}");
        }
        for printed in console.run_line(trimmed) {
            println!("{printed}");
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_follow_the_typed_arguments() {
        assert_eq!(syntax_hint("XLEN").as_deref(), Some(" key"));
        assert_eq!(syntax_hint("XRANGE s ").as_deref(), Some("start end [COUNT count]"));
        assert_eq!(syntax_hint("XLEN s"), None);
        assert_eq!(syntax_hint("NOPE"), None);
    }

    #[test]
    fn help_names_syntax_and_summary() {
        let text = help_text(command::lookup(b"xlen").unwrap());
        assert!(text.contains("XLEN key") && text.contains("summary: Return the number of messages in a stream."));
    }
}
