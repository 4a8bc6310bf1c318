//! DEBUG and the cross-protocol guard (the `server` feature): what only a network server
//! needs. DEBUG is an ordinary table command: inside MULTI it queues (or, refused, fails the
//! transaction) like any other.

use super::*;
use crate::command::is;

/// DEBUG HELP's lines.
const HELP: &[&str] = &[
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed. On a virtual clock, move it instead.",
    "STREAMLAB-CLOCK ADVANCE <milliseconds>",
    "    Move the virtual clock forward (--clock virtual) and serve the reads whose time ran out.",
    "STREAMLAB-CLOCK GET",
    "    Return the server's time in Unix milliseconds.",
    "HELP",
    "    Print this help.",
];

/// A `POST` or `Host:` line: an HTTP request sent to the server by a browser tricked into
/// it (cross-protocol scripting). Redis drops such a connection before looking the command up.
pub(super) fn cross_protocol(args: &[Vec<u8>]) -> bool {
    is(&args[0], "post") || is(&args[0], "host:")
}

/// Whether a call of `spec` is DEBUG STREAMLAB-CLOCK, the virtual clock's control.
pub(super) fn controls_the_clock(spec: &crate::command::CommandSpec, args: &[Vec<u8>]) -> bool {
    spec.session_cmd() == Some(SessionCmd::Debug) && args.get(1).is_some_and(|sub| is(sub, "streamlab-clock"))
}

impl Session {
    /// The connection leaves the session without a reply; the host logs and hangs up.
    pub(super) fn hang_up_on_attack(&mut self, conn: ConnId) {
        self.state.leaving.push(conn);
        self.requests.push(HostRequest::Attack(conn));
    }

    /// Whether `conn` may run DEBUG, as the host's `enable-debug-command` says.
    pub(super) fn debug_allowed(&self, conn: ConnId) -> bool {
        match self.host.debug {
            DebugAccess::Yes => true,
            DebugAccess::No => false,
            DebugAccess::Local => self.state.conns[&conn].peer.as_ref().is_some_and(|p| p.local),
        }
    }

    /// DEBUG SLEEP, STREAMLAB-CLOCK GET / ADVANCE and HELP. Time that passes on a virtual
    /// clock passes once the command is done (`sleep`); on the host's clock the host sleeps.
    pub(super) fn debug(&mut self, args: &[Vec<u8>], out: &mut Executed) -> Result<(), CmdError> {
        let sub = command::arg(args, 1);
        let virtual_clock = matches!(self.clock, Clock::Virtual(_));
        let reply = if is(sub, "sleep") && args.len() == 3 {
            // Redis sleeps only when the time is a positive number of microseconds that fits
            // a signed 64-bit integer; anything else (negative, NaN, 1e308) answers OK at once.
            let micros = strtod(command::arg(args, 2)) * 1e6;
            if micros >= 1.0 && micros < i64::MAX as f64 {
                if virtual_clock {
                    self.sleep = Some(self.clock_step((micros / 1000.0) as i64)?);
                } else {
                    self.requests.push(HostRequest::Sleep(micros as u64));
                }
            }
            Reply::ok()
        } else if is(sub, "streamlab-clock") && args.len() == 3 && is(command::arg(args, 2), "get") {
            Reply::Integer(self.state.now)
        } else if is(sub, "streamlab-clock") && args.len() == 4 && is(command::arg(args, 2), "advance") {
            let ms =
                command::parse_int(command::arg(args, 3)).ok().filter(|ms| *ms >= 0).ok_or(CmdError::NotInteger)?;
            if !virtual_clock {
                return Err(Msg::ClockNotVirtual.into());
            }
            self.sleep = Some(self.clock_step(ms)?);
            Reply::ok()
        } else if is(sub, "help") && args.len() == 2 {
            Reply::Array(HELP.iter().map(|l| Reply::Status((*l).to_owned())).collect())
        } else {
            return Err(CmdError::SubcommandSyntax { command: "DEBUG".into(), sub: sub.clone() });
        };
        out.replies.push(reply);
        Ok(())
    }

    /// A virtual clock step, refused when it would carry the clock past its last instant
    /// (counting what an earlier DEBUG of the same transaction already asked for).
    fn clock_step(&self, ms: i64) -> Result<i64, CmdError> {
        let pending = self.sleep.unwrap_or(0);
        let now = self.state.now;
        let total =
            pending.checked_add(ms).filter(|t| now.checked_add(*t).is_some_and(|to| to <= VIRTUAL_CLOCK_MAX_MS));
        total.ok_or(CmdError::ClockPastEnd { now })
    }
}

/// C's `strtod` on the longest numeric prefix (after leading blanks); 0 when there is none.
fn strtod(arg: &[u8]) -> f64 {
    let start = arg.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(arg.len());
    let numeric: Vec<u8> = arg[start..]
        .iter()
        .take(64)
        .take_while(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        .copied()
        .collect();
    (0..=numeric.len())
        .rev()
        .find_map(|i| std::str::from_utf8(&numeric[..i]).ok()?.parse::<f64>().ok().filter(|v| v.is_finite())) // not in wasm: DEBUG is the server feature's
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_takes_the_numeric_prefix() {
        assert_eq!(strtod(b"0"), 0.0);
        assert_eq!(strtod(b"1.5"), 1.5);
        assert_eq!(strtod(b" 2s"), 2.0);
        assert_eq!(strtod(b"abc"), 0.0);
    }
}
