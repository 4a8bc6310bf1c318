//! What the learner did in a task, read back from the console's timeline: the commands each
//! connection ran with the replies it got, and what reached other connections. Process checks
//! (`used`, `transaction`, `saw`) and par are measured on it, in the checker and in the
//! player alike, since both keep their work on a console.

use streamlab_protocol::timeline::Step;
use streamlab_protocol::{format_reply, Console, Reply};

/// One command the learner ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Act {
    /// The console name of the connection that ran it.
    pub conn: String,
    /// The command and its arguments (invalid UTF-8 replaced).
    pub args: Vec<String>,
    /// Its replies as redis-cli prints them, joined by newlines; for a read that blocked, the
    /// reply that reached it later (served, or `(nil)` at its timeout).
    pub reply: String,
    /// Whether it did not run: its reply was an error, or it was queued in a transaction that
    /// has not run it (yet, or ever).
    pub failed: bool,
    /// Whether it was queued in a transaction (its reply was `QUEUED`).
    pub queued: bool,
}

impl Act {
    /// The command's name, upper case.
    pub fn name(&self) -> String {
        self.args.first().map(|a| a.to_ascii_uppercase()).unwrap_or_default()
    }

    /// Whether this is `command` (`NAME` or `NAME SUBCOMMAND`, upper case).
    pub fn is(&self, command: &str) -> bool {
        // The first two words, as `split(' ')` gives them (`split_once` is already in the wasm).
        let (name, sub) = match command.split_once(' ') {
            Some((name, rest)) => (name, Some(rest.split_once(' ').map_or(rest, |(sub, _)| sub))),
            None => (command, None),
        };
        self.args.first().is_some_and(|a| a.eq_ignore_ascii_case(name))
            && sub.is_none_or(|sub| self.args.get(1).is_some_and(|a| a.eq_ignore_ascii_case(sub)))
    }
}

/// Everything the learner ran since the task started, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trail {
    /// The commands.
    pub acts: Vec<Act>,
    /// Every reply that reached a connection other than the one whose command or clock step
    /// caused it (a served or timed-out blocked read, a Pub/Sub message): (connection, text).
    pub received: Vec<(String, String)>,
    /// The transactions that ran (EXEC answered with an array): the connection, and the acts
    /// queued in it.
    pub transactions: Vec<(String, Vec<usize>)>,
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Replies as redis-cli prints them, one after another on their own lines.
pub(crate) fn replies_text(replies: &[Reply]) -> String {
    let mut out = String::new();
    for (n, reply) in replies.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&format_reply(reply));
    }
    out
}

impl Trail {
    /// The commands of `console`'s timeline from step `start` up to its current position.
    pub fn of(console: &Console, start: usize) -> Trail {
        let timeline = console.timeline();
        let applied = timeline.records().get(start..timeline.position()).unwrap_or_default();
        let mut trail = Trail::default();
        // A read that blocked has no reply yet: the first delivery to its connection is it.
        let mut waiting: Vec<(String, usize)> = Vec::new();
        // Transactions being queued, per connection: the acts queued so far.
        let mut open: Vec<(String, Vec<usize>)> = Vec::new();
        for record in applied {
            if let Step::Execute { conn, args, .. } = &record.step {
                let replies = &record.output.replies;
                let conn = console.label(*conn);
                trail.transact(&mut open, &conn, args.iter().next().unwrap_or_default(), replies);
                // At most one wait per connection (`remove`, not `retain`: one generic fewer).
                if let Some(at) = waiting.iter().position(|(c, _)| *c == conn) {
                    waiting.remove(at);
                }
                if replies.is_empty() {
                    waiting.push((conn.clone(), trail.acts.len()));
                }
                let queued = matches!(replies.as_slice(), [Reply::Status(s)] if s == "QUEUED");
                let mut texts = Vec::new();
                for arg in args.iter() {
                    texts.push(lossy(arg));
                }
                trail.acts.push(Act {
                    conn,
                    args: texts,
                    reply: replies_text(replies),
                    // A queued command has not run: EXEC decides (see `transact`).
                    failed: queued || replies.iter().any(|r| matches!(r, Reply::Error(_))),
                    queued,
                });
            }
            for delivery in &record.output.deliveries {
                let to = console.label(delivery.conn);
                let text = format_reply(&delivery.reply);
                if let Some(at) = waiting.iter().position(|(c, _)| *c == to) {
                    let (_, act) = waiting.remove(at);
                    if let Some(act) = trail.acts.get_mut(act) {
                        act.reply = text.clone();
                        act.failed = matches!(delivery.reply, Reply::Error(_));
                    }
                }
                trail.received.push((to, text));
            }
        }
        trail
    }

    /// How many times `command` ran without failing, with an argument equal to `option` (if
    /// given; ignoring case) and on `connection` (if given). A command queued in a
    /// transaction counts once EXEC ran it.
    pub fn used(&self, command: &str, option: Option<&str>, connection: Option<&str>) -> usize {
        let mut count = 0;
        for act in &self.acts {
            let with_option = || option.is_none_or(|o| act.args.iter().skip(1).any(|a| a.eq_ignore_ascii_case(o)));
            count += usize::from(
                !act.failed && act.is(command) && connection.is_none_or(|c| act.conn == c) && with_option(),
            );
        }
        count
    }

    /// The transactions that ran (EXEC answered with an array), each as the names of the
    /// commands that ran in it without an error, on `connection` (any if none).
    pub fn transactions(&self, connection: Option<&str>) -> Vec<Vec<String>> {
        let mut done = Vec::new();
        for (conn, queued) in &self.transactions {
            if connection.is_none_or(|c| conn == c) {
                let ran = queued.iter().filter_map(|&i| self.acts.get(i)).filter(|act| !act.failed);
                done.push(ran.map(Act::name).collect());
            }
        }
        done
    }

    /// Follows MULTI … EXEC before the act for `replies` is pushed: a queued command ran only
    /// if EXEC ran the transaction and its own reply in EXEC's array is not an error, so a
    /// discarded, aborted or WATCH-failed transaction's commands count as not run.
    fn transact(&mut self, open: &mut Vec<(String, Vec<usize>)>, conn: &str, name: &[u8], replies: &[Reply]) {
        let at = open.iter().position(|(c, _)| c == conn);
        let queued_reply = matches!(replies, [Reply::Status(s)] if s == "QUEUED");
        match at {
            None if name.eq_ignore_ascii_case(b"multi") && matches!(replies, [Reply::Status(_)]) => {
                open.push((conn.to_owned(), Vec::new()));
            }
            Some(at) if queued_reply => {
                if let Some((_, queued)) = open.get_mut(at) {
                    queued.push(self.acts.len());
                }
            }
            Some(at) if name.eq_ignore_ascii_case(b"exec") || name.eq_ignore_ascii_case(b"discard") => {
                let (conn, queued) = open.swap_remove(at);
                let results = match replies {
                    [Reply::Array(results)] if name.eq_ignore_ascii_case(b"exec") => Some(results),
                    _ => None,
                };
                for (k, &i) in queued.iter().enumerate() {
                    let failed = results.is_none_or(|r| r.get(k).is_none_or(|r| matches!(r, Reply::Error(_))));
                    if let Some(act) = self.acts.get_mut(i) {
                        act.failed = failed;
                    }
                }
                if results.is_some() {
                    self.transactions.push((conn, queued));
                }
            }
            _ => {}
        }
    }

    /// Every reply the learner received that fits: replies to `command` (any command if
    /// none) on `connection` (any if none), and, when no command is named, what reached that
    /// connection from others' commands (a served blocked read, a Pub/Sub message).
    pub fn seen(&self, command: Option<&str>, connection: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        for act in &self.acts {
            if command.is_none_or(|c| act.is(c)) && connection.is_none_or(|c| act.conn == c) && !act.reply.is_empty() {
                out.push(act.reply.clone());
            }
        }
        if command.is_none() {
            for (to, text) in &self.received {
                if connection.is_none_or(|c| to == c) {
                    out.push(text.clone());
                }
            }
        }
        out
    }

    /// How many commands changed state (what par counts): writes that did not fail (a queued
    /// one counts once its transaction ran it).
    pub fn changes(&self) -> usize {
        let mut count = 0;
        for act in &self.acts {
            count += usize::from(!act.failed && crate::script::changes_state(&act.args.join(" ")));
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use streamlab_protocol::{Clock, Session};

    fn console(lines: &[&str]) -> Console {
        let mut console = Console::new(Session::with_profile(Clock::Virtual(0), Default::default()));
        for line in lines {
            console.run_line(line);
        }
        console
    }

    #[test]
    fn the_trail_reads_what_was_run() {
        let mut c = console(&["XADD s 1-0 f v", "XGROUP CREATE s g 0"]);
        let start = c.timeline().position();
        for line in [
            ":as bob",
            "XREADGROUP GROUP g bob NOACK STREAMS s >",
            "XINFO GROUPS s",
            "XACK s g nope",
            ":as default",
            "MULTI",
            "XADD dead * source 1-0",
            "XACK s g 1-0",
            "EXEC",
            "MULTI",
            "XADD dead * x y",
            "DISCARD",
        ] {
            c.run_line(line);
        }
        let trail = Trail::of(&c, start);
        assert_eq!(trail.used("XREADGROUP", Some("noack"), None), 1);
        assert_eq!(trail.used("XREADGROUP", None, Some("default")), 0);
        assert_eq!(trail.used("XINFO GROUPS", None, Some("bob")), 1);
        assert_eq!(trail.used("XACK", None, Some("bob")), 0, "a failed command was not used");
        assert_eq!(trail.used("XADD", None, None), 1, "a queued command counts once EXEC ran it, not when discarded");
        assert_eq!(trail.transactions(None), vec![vec!["XADD".to_owned(), "XACK".to_owned()]]);
        assert!(trail.transactions(Some("bob")).is_empty());
        assert!(trail.seen(Some("XREADGROUP"), None)[0].starts_with("1) 1) \"s\""));
        // XREADGROUP and the XADD and XACK EXEC ran count; XINFO, MULTI/EXEC, the XACK that
        // failed and the discarded XADD do not.
        assert_eq!(trail.changes(), 3);
        assert!(Trail::of(&c, c.timeline().position()).acts.is_empty());
    }

    #[test]
    fn a_command_that_failed_inside_exec_did_not_run() {
        let mut c =
            console(&["SET dead oops", "XADD s 1-0 f v", "XGROUP CREATE s g 0", "XREADGROUP GROUP g c STREAMS s >"]);
        let start = c.timeline().position();
        for line in ["MULTI", "XADD dead * source 1-0", "XACK s g 1-0", "EXEC"] {
            c.run_line(line);
        }
        let trail = Trail::of(&c, start);
        // EXEC answered WRONGTYPE for the XADD and 1 for the XACK: no rollback, and only the
        // XACK ran.
        assert_eq!((trail.used("XADD", None, None), trail.used("XACK", None, None)), (0, 1));
        assert_eq!(trail.transactions(None), vec![vec!["XACK".to_owned()]]);
        // A transaction WATCH voided runs nothing.
        let mut c = console(&[":as w", "WATCH s", ":as other", "XADD s 2-0 f v", ":as w"]);
        let start = c.timeline().position();
        for line in ["MULTI", "XADD s 3-0 f v", "EXEC"] {
            c.run_line(line);
        }
        let trail = Trail::of(&c, start);
        assert_eq!((trail.used("XADD", None, None), trail.changes()), (0, 0));
        assert!(trail.transactions(None).is_empty());
    }

    #[test]
    fn a_blocked_read_gets_its_reply_when_it_comes() {
        let mut c = console(&["XGROUP CREATE s g $ MKSTREAM"]);
        let start = c.timeline().position();
        for line in [
            ":as w1",
            "XREADGROUP GROUP g w1 BLOCK 1000 STREAMS s >",
            ":as w2",
            "XREADGROUP GROUP g w2 BLOCK 0 STREAMS s >",
        ] {
            c.run_line(line);
        }
        c.run_line(":clock +1500");
        c.run_line(":as default");
        c.run_line("XADD s 1-0 f v");
        let trail = Trail::of(&c, start);
        assert_eq!(trail.seen(Some("XREADGROUP"), Some("w1")), vec!["(nil)".to_owned()], "w1 timed out");
        assert!(trail.seen(Some("XREADGROUP"), Some("w2"))[0].contains("\"1-0\""), "w2 was served: {trail:?}");
        assert_eq!(trail.received.len(), 2);
    }

    #[test]
    fn deliveries_are_seen_on_their_connection() {
        let mut c = console(&[":as viewer", "SUBSCRIBE news", ":as default"]);
        let start = c.timeline().position();
        c.run_line("PUBLISH news hello");
        let trail = Trail::of(&c, start);
        assert_eq!(trail.seen(None, Some("viewer")), vec!["1) \"message\"\n2) \"news\"\n3) \"hello\"".to_owned()]);
        assert!(trail.seen(Some("PUBLISH"), Some("viewer")).is_empty());
    }
}
