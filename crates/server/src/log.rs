//! Log lines in redis-server's format (`pid:M 29 Nov 2026 23:27:41.869 * message`), on
//! standard output, so scripts that wait for "Ready to accept connections" work unchanged.
//! Times are UTC.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};
use streamlab_protocol::civil::Civil;

/// How a line is marked: `*` notice, `#` warning (Redis's markers).
#[derive(Debug, Clone, Copy)]
pub enum Level {
    /// `*`
    Notice,
    /// `#`
    Warning,
}

/// Prints one log line. Quiet when the server runs as a library (tests), loud in the binary.
pub fn line(enabled: bool, level: Level, message: &str) {
    if !enabled {
        return;
    }
    let marker = match level {
        Level::Notice => '*',
        Level::Warning => '#',
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}:M {} {marker} {message}", std::process::id(), timestamp(now));
    let _ = out.flush();
}

/// `29 Nov 2026 23:27:41.869` for a Unix time in milliseconds.
pub fn timestamp(ms: i64) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let c = Civil::from_unix_ms(ms);
    format!(
        "{:02} {} {} {:02}:{:02}:{:02}.{:03}",
        c.day,
        MONTHS[(c.month - 1) as usize],
        c.year,
        c.hour,
        c.minute,
        c.second,
        c.milli
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps() {
        assert_eq!(super::timestamp(0), "01 Jan 1970 00:00:00.000");
        assert_eq!(super::timestamp(1_700_000_000_123), "14 Nov 2023 22:13:20.123");
        assert_eq!(super::timestamp(951_782_400_000), "29 Feb 2000 00:00:00.000");
    }
}
