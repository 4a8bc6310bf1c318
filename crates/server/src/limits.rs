//! The limits Redis puts on a client's input and output: `proto-max-bulk-len`,
//! `client-query-buffer-limit` and `client-output-buffer-limit`, with Redis 8.2.3's defaults,
//! value syntax and error texts (each checked against the real server). They are set on the
//! command line or in the configuration file, and are host parameters of the session, so
//! CONFIG GET and CONFIG SET (inside MULTI too) treat them as Redis does.

use std::time::{Duration, Instant};

use streamlab_protocol::command::admin::{parse_memory, HostParam};
use streamlab_protocol::request::MAX_BULK_LEN;
use streamlab_protocol::Session;

/// The smallest `proto-max-bulk-len` and `client-query-buffer-limit` Redis accepts (1 MB).
const MIN_LIMIT: u64 = 1024 * 1024;

/// One client class's output limit: a client whose unsent output reaches `hard` bytes, or
/// stays at `soft` bytes or more for longer than `soft_seconds`, is disconnected. 0 turns a
/// limit off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassLimit {
    /// Bytes that disconnect at once.
    pub hard: u64,
    /// Bytes that disconnect when they last.
    pub soft: u64,
    /// How long the soft limit may last.
    pub soft_seconds: u32,
}

/// The classes `client-output-buffer-limit` names, in the order CONFIG GET lists them.
/// StreamLab has no replicas, but the class is kept and shown as Redis shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Every client not in another class.
    Normal = 0,
    /// Replicas (`slave` or `replica`).
    Replica = 1,
    /// Clients subscribed to a channel or pattern.
    Pubsub = 2,
}

const CLASS_NAMES: [&str; 3] = ["normal", "slave", "pubsub"];

/// Every limit the server enforces on clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest bulk argument (`proto-max-bulk-len`).
    pub max_bulk: i64,
    /// Most bytes a client's pending input may hold (`client-query-buffer-limit`).
    pub query_buffer: u64,
    /// Output limits per [`Class`] (`client-output-buffer-limit`).
    pub output: [ClassLimit; 3],
}

impl Default for Limits {
    fn default() -> Self {
        let mb = 1024 * 1024;
        Limits {
            max_bulk: MAX_BULK_LEN,
            query_buffer: 1024 * mb,
            output: [
                ClassLimit { hard: 0, soft: 0, soft_seconds: 0 },
                ClassLimit { hard: 256 * mb, soft: 64 * mb, soft_seconds: 60 },
                ClassLimit { hard: 32 * mb, soft: 8 * mb, soft_seconds: 60 },
            ],
        }
    }
}

impl Limits {
    /// Applies a directive from the command line or the configuration file; `Ok(false)` if
    /// the name is not one of these. The error is the reason Redis gives.
    pub fn apply(&mut self, name: &str, values: &[String]) -> Result<bool, &'static str> {
        let value = values.join(" ");
        match name {
            "proto-max-bulk-len" => self.max_bulk = limit(value.as_bytes())? as i64,
            "client-query-buffer-limit" => self.query_buffer = limit(value.as_bytes())?,
            "client-output-buffer-limit" => self.output = output_limits(self.output, value.as_bytes())?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The session parameters that show and change these limits.
    pub fn host_params(&self) -> Vec<HostParam> {
        let param = |name, value, check| HostParam { name, value, check, changes: 0 };
        vec![
            param("proto-max-bulk-len", self.max_bulk.to_string(), |_, new| limit(new).map(|n| n.to_string())),
            param("client-query-buffer-limit", self.query_buffer.to_string(), |_, new| {
                limit(new).map(|n| n.to_string())
            }),
            param("client-output-buffer-limit", show_output(&self.output), |current, new| {
                let current = output_limits(Limits::default().output, current.as_bytes())?;
                output_limits(current, new).map(|limits| show_output(&limits))
            }),
        ]
    }

    /// The limits as the session's parameters now say (they hold only values their checks
    /// accepted).
    pub fn from_session(session: &Session) -> Limits {
        let mut limits = Limits::default();
        for name in ["proto-max-bulk-len", "client-query-buffer-limit", "client-output-buffer-limit"] {
            if let Some(value) = session.host_param(name) {
                let _ = limits.apply(name, &[value.to_owned()]);
            }
        }
        limits
    }
}

/// A `proto-max-bulk-len` or `client-query-buffer-limit` value: a memory amount from 1 MB to
/// the largest signed 64-bit number.
fn limit(value: &[u8]) -> Result<u64, &'static str> {
    let n = parse_memory(value).ok_or("argument must be a memory value")?;
    if !(MIN_LIMIT..=i64::MAX as u64).contains(&n) {
        return Err("argument must be between 1048576 and 9223372036854775807 inclusive");
    }
    Ok(n)
}

/// Applies a `client-output-buffer-limit` value to `current`: groups of `class hard soft
/// seconds` separated by single spaces (an empty value changes nothing); every group is
/// checked before any applies.
fn output_limits(mut current: [ClassLimit; 3], value: &[u8]) -> Result<[ClassLimit; 3], &'static str> {
    if value.is_empty() {
        return Ok(current);
    }
    let words: Vec<&[u8]> = value.split(|&b| b == b' ').collect();
    if !words.len().is_multiple_of(4) {
        return Err("Wrong number of arguments in buffer limit configuration.");
    }
    let mut changes = Vec::new();
    for group in words.chunks_exact(4) {
        let class = match group[0].to_ascii_lowercase().as_slice() {
            b"normal" => Class::Normal,
            b"slave" | b"replica" => Class::Replica,
            b"pubsub" => Class::Pubsub,
            _ => return Err("Invalid client class specified in buffer limit configuration."),
        };
        let bad = "Error in hard, soft or soft_seconds setting in buffer limit configuration.";
        let hard = parse_memory(group[1]).ok_or(bad)?;
        let soft = parse_memory(group[2]).ok_or(bad)?;
        let soft_seconds = seconds(group[3]).ok_or(bad)?;
        changes.push((class, ClassLimit { hard, soft, soft_seconds }));
    }
    for (class, limit) in changes {
        current[class as usize] = limit;
    }
    Ok(current)
}

/// A soft limit's seconds as Redis reads them: C's `strtoll` over the whole text (leading
/// blanks and a sign allowed; the empty text is 0), kept in a 32-bit `int`. A negative
/// number, or one whose low 32 bits are, is refused.
fn seconds(text: &[u8]) -> Option<u32> {
    if text.is_empty() {
        return Some(0);
    }
    let start = text.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))?;
    let (negative, digits) = match &text[start..] {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        rest => (false, rest),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // strtoll saturates at the 64-bit bounds.
    let mut n: i64 = 0;
    for &d in digits {
        n = n.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }
    if negative {
        n = -n;
    }
    u32::try_from(n as i32).ok()
}

fn show_output(limits: &[ClassLimit; 3]) -> String {
    let groups: Vec<String> = (0..3)
        .map(|i| format!("{} {} {} {}", CLASS_NAMES[i], limits[i].hard, limits[i].soft, limits[i].soft_seconds))
        .collect();
    groups.join(" ")
}

/// Whether a client with `unsent` bytes of output is over its class's limit now; `soft_since`
/// is when it last went over the soft limit (kept by this check).
pub fn over_output_limit(limit: ClassLimit, unsent: usize, soft_since: &mut Option<Instant>, now: Instant) -> bool {
    let unsent = unsent as u64;
    if limit.hard > 0 && unsent >= limit.hard {
        return true;
    }
    if limit.soft > 0 && unsent >= limit.soft {
        let since = *soft_since.get_or_insert(now);
        return now.duration_since(since) > Duration::from_secs(u64::from(limit.soft_seconds));
    }
    *soft_since = None;
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_errors_as_redis() {
        // Each was sent to Redis 8.2.3 with CONFIG SET.
        assert_eq!(limit(b"1mb"), Ok(1048576));
        assert_eq!(limit(b"512MB"), Ok(536870912));
        assert_eq!(limit(b"9223372036854775807"), Ok(i64::MAX as u64));
        let range = Err("argument must be between 1048576 and 9223372036854775807 inclusive");
        for value in [&b"100"[..], b"1048575", b"1024k", b"", b"9223372036854775808", b"99999999999999999999999"] {
            assert_eq!(limit(value), range, "{value:?}");
        }
        for value in [&b"abc"[..], b"-1", b"1.5mb"] {
            assert_eq!(limit(value), Err("argument must be a memory value"), "{value:?}");
        }
        let defaults = Limits::default().output;
        assert_eq!(show_output(&defaults), "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
        let set = |value: &[u8]| output_limits(defaults, value).map(|l| show_output(&l));
        assert_eq!(set(b"PubSub 1k 2K 3").unwrap(), "normal 0 0 0 slave 268435456 67108864 60 pubsub 1000 2000 3");
        assert_eq!(
            set(b"replica 1mb 1 3 normal 5 6 7").unwrap(),
            "normal 5 6 7 slave 1048576 1 3 pubsub 33554432 8388608 60"
        );
        assert_eq!(set(b"pubsub 0 0 0 pubsub 1 2 3").unwrap(), "normal 0 0 0 slave 268435456 67108864 60 pubsub 1 2 3");
        assert_eq!(set(b"").unwrap(), show_output(&defaults));
        for (value, seconds) in [(&b"01"[..], 1), (b"+5", 5), (b"-0", 0), (b"\t5", 5), (b"99999999999999", 276447231)] {
            let value = [&b"pubsub 1 2 "[..], value].concat();
            assert_eq!(output_limits(defaults, &value).unwrap()[2].soft_seconds, seconds, "{value:?}");
        }
        assert_eq!(set(b"pubsub 99999999999999999999999 2 5").unwrap().split(' ').nth(9), Some("18446744073709551615"));
        let count = Err("Wrong number of arguments in buffer limit configuration.");
        for value in [&b"normal 1 2"[..], b"pubsub 1 2  5", b" pubsub 1 2 5", b"normal 0 0 0 slave"] {
            assert_eq!(set(value), count, "{value:?}");
        }
        assert_eq!(set(b"master 1 2 3"), Err("Invalid client class specified in buffer limit configuration."));
        let bad = Err("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
        for value in [
            &b"pubsub 1mb 2k x"[..],
            b"pubsub -1 1 3",
            b"pubsub 1 1 -3",
            b"pubsub 1 2 2147483648",
            b"pubsub 1 2 3x",
            b"pubsub 1 2 0x10",
            b"pubsub 1 2 9223372036854775807",
        ] {
            assert_eq!(set(value), bad, "{value:?}");
        }
        // The empty number is 0 for strtoll.
        assert_eq!(output_limits(defaults, b"pubsub 1 2 ").unwrap()[2].soft_seconds, 0);
    }

    #[test]
    fn hard_and_soft_limits() {
        let limit = ClassLimit { hard: 100, soft: 10, soft_seconds: 2 };
        let t0 = Instant::now();
        let mut since = None;
        assert!(!over_output_limit(limit, 9, &mut since, t0));
        assert!(!over_output_limit(limit, 10, &mut since, t0));
        assert_eq!(since, Some(t0));
        assert!(!over_output_limit(limit, 50, &mut since, t0 + Duration::from_secs(2)));
        assert!(over_output_limit(limit, 50, &mut since, t0 + Duration::from_millis(2001)));
        // Going under resets the soft limit's clock.
        assert!(!over_output_limit(limit, 5, &mut since, t0 + Duration::from_secs(3)));
        assert_eq!(since, None);
        assert!(over_output_limit(limit, 100, &mut since, t0));
        let off = ClassLimit { hard: 0, soft: 0, soft_seconds: 0 };
        assert!(!over_output_limit(off, usize::MAX, &mut since, t0));
    }
}
