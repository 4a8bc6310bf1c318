//! A script's waits (`streamlab run`, `streamlab replay`). `redis-cli < file` sends a line
//! and waits for its reply: after `XREAD BLOCK 10` the next line goes out once the read has
//! timed out, 10 ms later. On the virtual clock no time passes by itself, so before a line
//! that would wait behind its connection's blocked read, the clock moves to the next deadline
//! (saying so), as often as it takes. (A command CLIENT PAUSE holds waits like a pipelined
//! one: the script's other connections may end the pause.) A read with no deadline (`BLOCK 0`) only a later line of
//! another connection can serve: the line waits behind it, as a pipelined command waits, and
//! what still waits when the script ends is reported with the lines that never ran.

use super::{command_line, split_prefix, Console, Output};
use crate::session::ConnId;

impl Console {
    /// Before a script line runs: when its connection waits on a read that a deadline ends,
    /// lets the virtual clock move to the deadlines until it is served, appending what that
    /// prints to `out` (the connection's own late reply as redis-cli prints it, unprefixed).
    pub fn wait_for_line(&mut self, line: &str, out: &mut String) {
        if let Some(conn) = self.line_connection(line) {
            self.wait_on(conn, out);
        }
    }

    /// At the end of a script: waits for the read of the connection the script ended on, as
    /// redis-cli waits for its last reply, then reports every connection left waiting with
    /// lines behind it (and the last one, if its read can never end). Returns false when
    /// something was left stuck.
    pub fn finish(&mut self, out: &mut String) -> bool {
        let last = self.names.id(&self.current);
        if let Some(conn) = last {
            self.wait_on(conn, out);
        }
        let mut settled = true;
        for (name, id) in self.connections() {
            let Some(c) = self.session().conn(id) else { continue };
            if !c.waiting() || (c.backlog().is_empty() && Some(id) != last) {
                continue;
            }
            settled = false;
            out.push_str(&format!("!! the script ended with {name} still waiting for {}", self.waited_for(id)));
            out.push_str(", and nothing in it can end that wait");
            if !c.backlog().is_empty() {
                let lines: Vec<String> = c.backlog().iter().map(|args| command_line(args)).collect();
                out.push_str(&format!("; these lines of {name} did not run: {}", lines.join(" | ")));
            }
            out.push('\n');
        }
        settled
    }

    /// The connection a script line would run on, if it is a command.
    fn line_connection(&self, line: &str) -> Option<ConnId> {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(':') {
            return None;
        }
        let name = match split_prefix(trimmed) {
            Some((name, rest)) if !rest.is_empty() && !rest.starts_with(':') => name,
            _ => &self.current,
        };
        self.names.id(name)
    }

    /// What a waiting connection waits for, as the transcript names it.
    fn waited_for(&self, conn: ConnId) -> String {
        match self.session().conn(conn).and_then(|c| c.blocked()) {
            Some(block) => command_line(&block.args),
            None => "CLIENT PAUSE to end".to_owned(),
        }
    }

    /// A blocked read as its command and timeout: `XREAD BLOCK 10`.
    fn blocking(&self, conn: ConnId) -> String {
        let Some(args) = self.session().conn(conn).and_then(|c| c.blocked()).map(|b| &b.args) else {
            return String::new();
        };
        let name = String::from_utf8_lossy(&args[0]).to_ascii_uppercase();
        let timeout = args.iter().position(|a| a.eq_ignore_ascii_case(b"block")).and_then(|i| args.get(i + 1));
        match timeout {
            Some(ms) => format!("{name} BLOCK {}", String::from_utf8_lossy(ms)),
            None => name,
        }
    }

    /// Moves the virtual clock to the next deadline while `conn` waits and one is left.
    fn wait_on(&mut self, conn: ConnId, out: &mut String) {
        if !self.session().virtual_clock() {
            return;
        }
        let mut last = None;
        // Only a blocked read: a command held by CLIENT PAUSE waits behind it like a pipelined
        // one, as the script's other connections may end the pause.
        while self.session().conn(conn).is_some_and(|c| c.blocked().is_some()) {
            let Some(deadline) = self.session().next_deadline() else { return };
            if last == Some(deadline) {
                // The clock is at the deadline and the wait goes on: nothing more will end it.
                return;
            }
            last = Some(deadline);
            let ms = (deadline - self.session().now()).max(0);
            let name = self.label(conn);
            out.push_str(&format!(
                "({name}'s {} waits: the virtual clock moves {ms} ms, to the next deadline)\n",
                self.blocking(conn)
            ));
            for Output { to, text, .. } in self.advance(ms) {
                // The waiting connection's own late reply prints as redis-cli prints it.
                let to = to.filter(|to| *to != name);
                for line in Output::lines(to.as_deref(), &text) {
                    out.push_str(&line);
                    out.push('\n');
                }
            }
        }
    }
}
