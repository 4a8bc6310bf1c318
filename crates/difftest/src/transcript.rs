//! Printing a run as a transcript in the format of `tests/transcripts/` (see
//! `crates/cli/src/transcript.rs`): `> command` lines, each followed by the reference's (Redis's)
//! replies as `redis-cli --no-raw` prints them, replies to other connections prefixed with
//! `[NAME] `, and `> :as NAME` whenever the connection changes.
//!
//! Wall-clock values cannot be printed as Redis sent them: `streamlab replay` runs a transcript
//! on the virtual clock. Where the comparison normalised a value (an idle time, a `*` id), the
//! transcript shows the value the virtual-clock StreamLab printed at the same place instead;
//! `tests/oracle/compare.py` normalises the same values, so both checks accept the file.

use streamlab_protocol::console::command_line;
use streamlab_protocol::{format_reply, Reply};

use crate::normalize::is_placeholder;
use crate::run::{Observed, Run};

/// Names of the connections in generated transcripts; the first is the console's default
/// connection.
pub const CONNECTION_NAMES: [&str; 3] = ["default", "c2", "c3"];

/// `raw` with every normalised leaf (found by walking `norm` alongside) replaced by the leaf at
/// the same place in `substitute`, when there is one.
fn merge(raw: &Reply, norm: &Reply, substitute: Option<&Reply>) -> Reply {
    if is_placeholder(norm) {
        return match substitute {
            Some(s @ (Reply::Integer(_) | Reply::Bulk(_))) => s.clone(),
            _ => raw.clone(),
        };
    }
    match (raw, norm) {
        (Reply::Array(r), Reply::Array(n)) if r.len() == n.len() => {
            let subs = match substitute {
                Some(Reply::Array(s)) if s.len() == r.len() => Some(s),
                _ => None,
            };
            Reply::Array(r.iter().zip(n).enumerate().map(|(i, (r, n))| merge(r, n, subs.map(|s| &s[i]))).collect())
        }
        _ => raw.clone(),
    }
}

/// An item of a transcript: a comment or blank line, or a step of the run.
pub enum Item {
    /// Printed as is.
    Line(String),
    /// The step at this position of the sequence (if it ran).
    Call(usize),
}

/// Renders a run as a transcript. `virtual_run` is the same sequence on the virtual-clock
/// StreamLab, whose values replace the normalised ones.
pub fn render(items: &[Item], run: &Run, virtual_run: Option<&Run>, names: &[String]) -> String {
    let name = |conn: usize| names.get(conn).cloned().unwrap_or_else(|| format!("c{}", conn + 1));
    let mut out = String::new();
    let mut current = 0usize;
    for item in items {
        match item {
            Item::Line(line) => {
                out.push_str(line);
                out.push('\n');
            }
            Item::Call(index) => {
                let Some(observed) = run.executed.iter().find(|o| o.index == *index) else { continue };
                let twin = virtual_run.and_then(|v| v.executed.iter().find(|o| o.index == *index));
                if observed.step.conn != current {
                    current = observed.step.conn;
                    out.push_str(&format!("> :as {}\n", name(current)));
                }
                out.push_str("> ");
                out.push_str(&command_line(&observed.step.args));
                out.push('\n');
                print_replies(&mut out, observed, twin, &name);
            }
        }
    }
    out
}

fn print_replies(out: &mut String, observed: &Observed, twin: Option<&Observed>, name: &dyn Fn(usize) -> String) {
    let mut used = vec![false; twin.map_or(0, |t| t.target.len())];
    for ((conn, raw), (_, norm)) in observed.reference.iter().zip(&observed.reference_norm) {
        // The virtual run's reply for the same connection, taken in order.
        let substitute = twin.and_then(|t| {
            let k = t.target.iter().enumerate().position(|(k, (c, _))| c == conn && !used[k])?;
            used[k] = true;
            Some(&t.target[k].1)
        });
        let reply = merge(raw, norm, substitute);
        let prefix = if *conn == observed.step.conn { String::new() } else { format!("[{}] ", name(*conn)) };
        for line in format_reply(&reply).lines() {
            out.push_str(&prefix);
            out.push_str(line);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_takes_substitutes_only_for_normalised_leaves() {
        let raw = Reply::Array(vec![Reply::Integer(5), Reply::Integer(7)]);
        let norm = Reply::Array(vec![Reply::Integer(5), Reply::Status(crate::normalize::TIME.into())]);
        let virt = Reply::Array(vec![Reply::Integer(6), Reply::Integer(0)]);
        assert_eq!(merge(&raw, &norm, Some(&virt)), Reply::Array(vec![Reply::Integer(5), Reply::Integer(0)]));
        assert_eq!(merge(&raw, &norm, None), raw);
    }
}
