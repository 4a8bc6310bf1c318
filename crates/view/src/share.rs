//! Sessions as text: the share fragment (`#profile=...&clock=...&log=...`) that reproduces a
//! session (the redis-cli script that replays it against a real server is `export.rs`).

use streamlab_protocol::console::{fill_count, FILL_BUDGET, MAX_FILL};
use streamlab_protocol::{Profile, VIRTUAL_CLOCK_MAX_MS, VIRTUAL_EPOCH_MS};

/// What a session is made from: an engine profile, a starting clock, an optional big stream
/// to start with, and the console lines that were run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    /// The server the session answers as.
    pub profile: Profile,
    /// The virtual clock's start (Unix ms).
    pub clock: i64,
    /// A stream filled with this many generated order events (as `:fill KEY COUNT` makes them)
    /// before history starts.
    pub fill: Option<(String, u64)>,
    /// Console lines, one per line (commands and `:as`/`:clock` meta-commands).
    pub log: String,
}

impl Default for SessionSpec {
    fn default() -> Self {
        SessionSpec { profile: Profile::default(), clock: VIRTUAL_EPOCH_MS, fill: None, log: String::new() }
    }
}

/// The most console lines a fragment may carry: more than a browser's longest address holds, so
/// only a saved session or a script could reach it, and replaying stays a matter of seconds.
pub const MAX_LOG_LINES: usize = 100_000;

impl SessionSpec {
    /// Reads a fragment (with or without the leading `#`). Missing parts take their defaults;
    /// unknown parts are ignored so later versions can add some. A fragment asking for more
    /// than the playground holds (see [`MAX_LOG_LINES`], [`FILL_BUDGET`]) is refused before
    /// anything runs.
    pub fn parse(fragment: &str) -> Result<SessionSpec, String> {
        let mut spec = SessionSpec::default();
        let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
        for (name, value) in query_parts(fragment) {
            let value = decode(value).ok_or_else(|| format!("'{name}' is not well encoded"))?;
            match name {
                "profile" => spec.profile = crate::profile_or_default(Some(value.as_str()))?,
                "clock" => {
                    spec.clock = value.parse().map_err(|_| format!("clock '{value}' is not a number"))?;
                    // The virtual clock's own range: a clock started past its end could never
                    // make an id again.
                    if !(0..=VIRTUAL_CLOCK_MAX_MS).contains(&spec.clock) {
                        return Err(format!("clock '{value}' is outside 0..={VIRTUAL_CLOCK_MAX_MS}"));
                    }
                }
                "fill" => {
                    let (key, count) = value.rsplit_once(':').ok_or("fill is KEY:COUNT")?;
                    // A key is shown as a stream's name and exported as an argument; a line
                    // break or another control character in it is never a name someone
                    // typed, only a way to smuggle text into those.
                    if key.chars().any(char::is_control) {
                        return Err("the fill key has a control character in it".to_owned());
                    }
                    let count: u64 = count.parse().map_err(|_| format!("fill count '{count}' is not a number"))?;
                    if count > MAX_FILL {
                        return Err(format!("fill is limited to {MAX_FILL} entries"));
                    }
                    spec.fill = Some((key.to_owned(), count));
                }
                "log" => spec.log = value,
                _ => {}
            }
        }
        spec.check_budget()?;
        Ok(spec)
    }

    /// Refuses a session too big to replay: too many lines, or fills (the fragment's and the
    /// log's `:fill` lines together) past what the console would accept.
    fn check_budget(&self) -> Result<(), String> {
        let mut lines = 0;
        let mut filled = self.fill.as_ref().map_or(0, |(_, count)| *count);
        for line in self.log.lines() {
            lines += 1;
            filled = filled.saturating_add(fill_count(line).unwrap_or(0));
        }
        if lines > MAX_LOG_LINES {
            return Err(format!("its log has {lines} lines, and the playground replays at most {MAX_LOG_LINES}"));
        }
        if filled > FILL_BUDGET {
            return Err(format!(
                "it fills streams with {filled} entries, and the playground holds at most {FILL_BUDGET}"
            ));
        }
        Ok(())
    }

    /// The fragment (without `#`) that [`SessionSpec::parse`] reads back to this spec.
    pub fn to_fragment(&self) -> String {
        let mut out = format!("profile={}&clock={}", encode(self.profile.name()), self.clock);
        if let Some((key, count)) = &self.fill {
            out.push_str(&format!("&fill={}", encode(&format!("{key}:{count}"))));
        }
        if !self.log.is_empty() {
            out.push_str(&format!("&log={}", encode(&self.log)));
        }
        out
    }
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            // By hand, not `format!`: a long session's link is mostly escapes, and it is
            // written after every command.
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            out.push('%');
            out.push(char::from(HEX[usize::from(b >> 4)]));
            out.push(char::from(HEX[usize::from(b & 15)]));
        }
    }
    out
}

/// The `name=value` parts of a query or fragment (without its `?` or `#`), as written: empty
/// parts skipped, a part without `=` read as an empty value. Decoding is the caller's, since
/// which halves may be encoded differs between formats.
pub fn query_parts(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query.split('&').filter(|p| !p.is_empty()).map(|part| part.split_once('=').unwrap_or((part, "")))
}

/// Reverses [`encode`] (also reading `+` as a space); `None` for bad escapes or bytes that are
/// not UTF-8.
pub fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                // Two hex digits exactly (`from_str_radix` alone would take `%+A` as 10).
                let hex = bytes.get(i + 1..i + 3).filter(|h| h.iter().all(u8::is_ascii_hexdigit))?;
                out.push(u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fragments_round_trip() {
        let spec = SessionSpec {
            profile: Profile::Valkey9,
            clock: 42,
            fill: Some(("big stream".into(), 10)),
            log: "XADD s * f \"a b\"\n:as bob\nXLEN s\n".into(),
        };
        let fragment = spec.to_fragment();
        assert!(!fragment.contains(' ') && !fragment.contains('\n'), "{fragment}");
        assert_eq!(SessionSpec::parse(&format!("#{fragment}")).unwrap(), spec);
        assert_eq!(SessionSpec::parse("").unwrap(), SessionSpec::default());
        assert!(SessionSpec::parse("clock=soon").is_err());
        assert_eq!(SessionSpec::parse("profile=redis-8.2").unwrap().profile, Profile::Redis82);
        assert!(SessionSpec::parse("profile=redis-6").unwrap_err().contains("unknown profile 'redis-6'"));
        assert!(SessionSpec::parse("log=%zz").is_err());
        assert_eq!(decode("a+b%C3%A9"), Some("a bé".into()));
        assert_eq!(decode("%+A"), None);
        assert_eq!(decode("%-1"), None);
        assert!(SessionSpec::parse("clock=9223372036854775807").unwrap_err().contains("outside 0..="));
        assert!(SessionSpec::parse("clock=-5000").is_err());
        assert_eq!(SessionSpec::parse("clock=253402300799999").unwrap().clock, VIRTUAL_CLOCK_MAX_MS);
    }

    #[test]
    fn fragments_asking_for_more_than_the_playground_holds_are_refused() {
        let refused = |fragment: &str| SessionSpec::parse(fragment).unwrap_err();
        assert_eq!(refused("fill=big:1000001"), "fill is limited to 1000000 entries");
        // `:fill` in the log counts as much as the fragment's own fill.
        assert!(
            refused("log=%3Afill+big+5000000").contains("5000000 entries"),
            "{}",
            refused("log=%3Afill+big+5000000")
        );
        let three = "log=%3Afill+a+1000000%0A%3Afill+b+1000000%0A%3Afill+c+1000000";
        assert!(refused(three).contains("3000000 entries, and the playground holds at most 2000000"));
        assert!(refused("fill=a:1000000&log=%3Afill+b+1000001").contains("2000001 entries"));
        assert!(SessionSpec::parse("fill=a:1000000&log=%3Afill+b+1000000").is_ok());
        // Every line the console reads as a fill counts, however spaced, and a DEL between
        // fills frees nothing (the history keeps their copies).
        let spaced = "log=+%3A+fill+a+1000000%0ADEL+a%0A%3A+fill++a+1000000+%0ADEL+a%0A%3Afill%09a%091";
        assert!(refused(spaced).contains("2000001 entries"), "{}", refused(spaced));
        let long = format!("log={}", "PING%0A".repeat(MAX_LOG_LINES + 1));
        assert!(refused(&long).contains("100001 lines"));
        assert!(SessionSpec::parse(&format!("log={}", "PING%0A".repeat(MAX_LOG_LINES))).is_ok());
    }

    #[test]
    fn fill_keys_with_control_characters_are_refused() {
        for fragment in ["fill=x%0AFLUSHALL%0A%23%3A3", "fill=x%0D%3A3", "fill=a%00b%3A1", "fill=%C2%85%3A1"] {
            let error = SessionSpec::parse(fragment).unwrap_err();
            assert_eq!(error, "the fill key has a control character in it", "{fragment}");
        }
        let spec = SessionSpec::parse("fill=big%20stream%20%E2%9C%93%3A2").unwrap();
        assert_eq!(spec.fill, Some(("big stream ✓".into(), 2)));
    }
}
