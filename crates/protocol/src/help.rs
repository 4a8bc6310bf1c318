//! `help @group`: the commands of a command group, listed as redis-cli lists them (its layout
//! read from redis-cli 7.0.15's `help @stream` against Redis 8.2.3, colours aside): a blank
//! line, then for every command and subcommand of the group, by name, its name and syntax, its
//! summary and the version it appeared in, each entry followed by a blank line. A group with
//! no commands prints only the first blank line.

use crate::command;
use crate::profile::Capabilities;

/// The text `help @GROUP` prints (without the final newline) on a server with `caps`.
pub fn group_help(caps: &Capabilities, group: &str) -> String {
    let mut entries: Vec<(String, &str, &str, &str)> = Vec::new();
    for spec in command::available(caps) {
        if !spec.group.eq_ignore_ascii_case(group) {
            continue;
        }
        let name = spec.name.to_ascii_uppercase();
        for sub in spec.subcommands {
            let full = format!("{name} {}", sub.name.to_ascii_uppercase());
            entries.push((full, sub.syntax, sub.summary, sub.since));
        }
        entries.push((name, spec.syntax, spec.summary, spec.since));
    }
    streamlab_engine::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
    let mut text = String::from("\n");
    for (name, syntax, summary, since) in entries {
        text.push_str(&format!("  {name} {syntax}\n  summary: {summary}\n  since: {since}\n\n"));
    }
    text.pop();
    text
}

#[cfg(test)]
mod tests {
    use crate::console::help_reply;
    use crate::Profile;

    #[test]
    fn a_group_lists_its_commands_and_subcommands_by_name() {
        let caps = Profile::Redis82.caps();
        let text = help_reply("help @stream", caps).unwrap();
        assert!(text.starts_with("\n  XACK key group id [id ...]\n  summary: "), "{text}");
        assert!(text.contains("\n  since: 8.2.0\n\n  XADD "), "{text}");
        let names: Vec<&str> = text.lines().filter(|l| !l.starts_with("  s") && !l.is_empty()).collect();
        let position = |name: &str| names.iter().position(|l| l.starts_with(name)).unwrap();
        assert!(
            position("  XGROUP ") < position("  XGROUP CREATE ") && position("  XGROUP SETID ") < position("  XINFO ")
        );
        assert!(text.contains("  XGROUP CREATECONSUMER key group consumer\n  summary: Creates a consumer in a consumer group.\n  since: 6.2.0\n"));
        assert_eq!(help_reply("help @STREAM extra", caps), Some(text.clone()));
        // What the profile's server lacks is not listed.
        assert!(!help_reply("help @stream", Profile::Redis74.caps()).unwrap().contains("XACKDEL"));
        // An empty group is one blank line: the console ends every output with a newline.
        assert_eq!(help_reply("help @list", caps).as_deref(), Some(""));
        assert!(help_reply("help @connection", caps).unwrap().contains("\n  CLIENT SETNAME connection-name\n"));
    }
}
