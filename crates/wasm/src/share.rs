//! Sessions as text: the share fragment (`#profile=...&clock=...&log=...`) that reproduces a
//! session, and the redis-cli script that replays it against a real server.

use streamlab_protocol::console::{command_line, fill_count, parse_clock, FILL_BUDGET, MAX_FILL};
use streamlab_protocol::{tokenize, Profile, VIRTUAL_CLOCK_MAX_MS, VIRTUAL_EPOCH_MS};

/// What a session is made from: an engine profile, a starting clock, an optional big stream
/// to start with, and the console lines that were run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSpec {
    /// The server the session answers as.
    pub profile: Profile,
    /// The virtual clock's start (Unix ms).
    pub clock: i64,
    /// A stream filled with this many entries (`1-0`..`N-0`, field `n`) before history starts.
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
            out.push_str(&format!("%{b:02X}"));
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

/// A script for `redis-cli` (`redis-cli < session.redis`) that replays the session's commands
/// against a real server. `spec.log` is a console script (`Console::script`): commands and
/// `:as`, `:clock` and `:fill` lines. Meta-commands become comments: a real server has one
/// clock, and each connection needs its own redis-cli, so those places are marked for the reader.
///
/// The file is read by redis-cli, which splits its input on `\n` only and each line as
/// `sdssplitargs` does; the link a session came from is untrusted. So every line is rebuilt
/// from the arguments the console would run, each quoted by [`command_line`], which redis-cli
/// reads back into the same bytes: no command, key or name reaches the file as it was typed
/// (comment lines aside, which have no `\n` and so stay one line that runs nothing), and one
/// line of the page is one line of the file.
pub fn redis_cli_script(spec: &SessionSpec) -> String {
    let mut out = String::from(
        "# StreamLab session, exported for redis-cli: redis-cli < this-file\n\
         # Lines after a '# --- connection' comment ran on that connection in StreamLab; run them in\n\
         # their own redis-cli if the difference matters (MULTI, blocked reads, subscriptions).\n",
    );
    out.push_str(&format!("# profile {}, virtual clock started at {} ms\n", spec.profile, spec.clock));
    if let Some((key, count)) = &spec.fill {
        fill_lines(&mut out, key.as_bytes(), *count);
    }
    for line in spec.log.lines() {
        script_line(&mut out, line);
    }
    out
}

/// One console line as the script's line: what the console would do with it (see
/// `Console::run`), for redis-cli.
fn script_line(out: &mut String, line: &str) {
    let trimmed = line.trim();
    if trimmed.is_empty() {
        return;
    }
    if trimmed.starts_with('#') {
        // The console ignores it and so does the server (`#` is no command). Without a `\n`
        // in it, nothing in a comment line can reach the server as another command.
        out.push_str(trimmed);
        out.push('\n');
        return;
    }
    if let Some(meta) = trimmed.strip_prefix(':') {
        let mut words = meta.split_whitespace();
        match (words.next(), words.next(), words.next(), words.next()) {
            (Some("as"), Some(name), None, None) => {
                out.push_str(&format!("# --- connection {}\n", quoted(name.as_bytes())));
            }
            (Some("clock"), Some(step), None, None) => {
                if let Some(ms) = parse_clock(step) {
                    out.push_str(&format!(
                        "# the clock moved forward {ms} ms here (wait that long on a real server)\n"
                    ));
                }
            }
            (Some("fill"), Some(key), Some(count), None) => {
                if let Ok(count) = count.parse::<u64>() {
                    out.push_str(&format!(
                        "# {count} generated order entries were added to {} here (:fill)\n",
                        quoted(key.as_bytes())
                    ));
                }
            }
            // Anything else ran nothing (the console refused it), or cannot be replayed line
            // by line (`:undo`; a console script has none).
            _ => {}
        }
        return;
    }
    // A line the console cannot split ran nothing either.
    let Ok(args) = tokenize(trimmed.as_bytes()) else { return };
    let Some(first) = args.first() else { return };
    if read_by_redis_cli(first, args.len()) {
        // redis-cli would act on it itself (exit, connect elsewhere, repeat the rest…), not
        // send it, and no quoting changes that: the server only ever refused these (unknown
        // command) or closed the connection (QUIT).
        out.push_str(&format!("# not sent, redis-cli would run it itself: {}\n", command_line(&args)));
        return;
    }
    out.push_str(&command_line(&args));
    out.push('\n');
}

/// The session's starting stream: `1-0`..`N-0` with field `n`, as `Playground::new` builds it.
/// A few lines are written out; a big fill is one server-side loop, so the file stays small
/// and no shell is involved (the key is an argument like any other).
fn fill_lines(out: &mut String, key: &[u8], count: u64) {
    out.push_str(&format!("# the session started with {count} entries in {}:\n", quoted(key)));
    if count <= 1_000 {
        for i in 1..=count {
            let args = [
                b"XADD".to_vec(),
                key.to_vec(),
                format!("{i}-0").into_bytes(),
                b"n".to_vec(),
                i.to_string().into_bytes(),
            ];
            out.push_str(&command_line(&args));
            out.push('\n');
        }
    } else {
        let args = [
            b"EVAL".to_vec(),
            FILL_SCRIPT.as_bytes().to_vec(),
            b"1".to_vec(),
            key.to_vec(),
            count.to_string().into_bytes(),
        ];
        out.push_str(&command_line(&args));
        out.push('\n');
    }
}

/// The Lua loop of a big fill: the same XADDs as the short form (`%d`, since a Lua number
/// concatenated as text could print in exponent form).
const FILL_SCRIPT: &str = "for i = 1, tonumber(ARGV[1]) do redis.call('XADD', KEYS[1], string.format('%d-0', i), 'n', string.format('%d', i)) end";

/// One word as redis-cli reads it back.
fn quoted(word: &[u8]) -> String {
    command_line(&[word.to_vec()])
}

/// Whether redis-cli's prompt handles a line with `argc` words starting with `first` itself
/// instead of sending it (quoting cannot stop that: it looks at the word after unquoting, as a
/// C string, so up to a NUL): `quit`/`exit`, `:preferences`, `restart`, `connect HOST PORT`,
/// `clear`, `help`/`?`, and a number (or nothing) before a command, read as a repeat count.
fn read_by_redis_cli(first: &[u8], argc: usize) -> bool {
    let word = first.split(|&b| b == 0).next().unwrap_or_default();
    let is = |name: &str| word.eq_ignore_ascii_case(name.as_bytes());
    // strtol: optional C whitespace, an optional sign, then digits up to the end.
    let number = {
        let spaces = word.iter().take_while(|b| matches!(b, b' ' | b'\t'..=b'\r')).count();
        let rest = word.get(spaces..).unwrap_or_default();
        let rest = rest.strip_prefix(b"+").or_else(|| rest.strip_prefix(b"-")).unwrap_or(rest);
        word.is_empty() || (!rest.is_empty() && rest.iter().all(u8::is_ascii_digit))
    };
    is("quit")
        || is("exit")
        || word.first() == Some(&b':')
        || is("restart")
        || (is("connect") && argc == 3)
        || (is("clear") && argc == 1)
        || is("help")
        || is("?")
        || (number && argc > 1)
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
    fn redis_cli_scripts_keep_commands_and_mark_meta_commands() {
        let spec =
            SessionSpec { log: "XADD s 1-0 f v\n:as bob\n:clock +1500\nXLEN s\n".into(), ..SessionSpec::default() };
        let script = redis_cli_script(&spec);
        assert!(script.ends_with("XADD s 1-0 f v\n# --- connection bob\n# the clock moved forward 1500 ms here (wait that long on a real server)\nXLEN s\n"), "{script}");
    }

    /// The arguments redis-cli reads from each line of a script that is not a comment (the
    /// console's tokenizer splits as redis-cli's `sdssplitargs` does).
    fn commands(script: &str) -> Vec<Vec<Vec<u8>>> {
        let lines = script.lines().filter(|l| !l.starts_with('#'));
        lines.map(|l| tokenize(l.as_bytes()).unwrap_or_else(|e| panic!("{l:?}: {e}"))).collect()
    }

    fn words(words: &[&[u8]]) -> Vec<Vec<u8>> {
        words.iter().map(|w| w.to_vec()).collect()
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

    #[test]
    fn exported_fills_quote_their_key_and_use_no_shell() {
        let key = "k$(touch /tmp/pwned) \"q\" 'a' \\ é";
        let small = redis_cli_script(&SessionSpec { fill: Some((key.into(), 2)), ..SessionSpec::default() });
        assert_eq!(
            commands(&small),
            [
                words(&[b"XADD", key.as_bytes(), b"1-0", b"n", b"1"]),
                words(&[b"XADD", key.as_bytes(), b"2-0", b"n", b"2"])
            ]
        );
        let big = redis_cli_script(&SessionSpec { fill: Some((key.into(), 1_001)), ..SessionSpec::default() });
        assert_eq!(commands(&big), [words(&[b"EVAL", FILL_SCRIPT.as_bytes(), b"1", key.as_bytes(), b"1001"])]);
        // The key is in the comments too, quoted: no `$(` outside quotes, no shell loop.
        assert!(!big.contains("seq") && !big.contains("| redis-cli"), "{big}");
        assert!(big.contains("entries in \"k$(touch /tmp/pwned) \\\"q\\\" 'a' \\\\ \\xc3\\xa9\":"), "{big}");
    }

    #[test]
    fn exported_lines_are_the_arguments_the_console_ran() {
        let log = "SET \"k\\nFLUSHALL\" v\nSET r v\rDEL canary\nSET z 1\0FLUSHALL\n  SET t v\r\nSET \"u\nXLEN s\n# a note\n:as a\"b\\c\n:clock +1.5s\n:clock soon\n:fill big 3\n:undo\n";
        let script = redis_cli_script(&SessionSpec { log: log.into(), ..SessionSpec::default() });
        assert_eq!(
            commands(&script),
            [
                words(&[b"SET", b"k\nFLUSHALL", b"v"]),
                words(&[b"SET", b"r", b"v", b"DEL", b"canary"]),
                words(&[b"SET", b"z", b"1"]),
                words(&[b"SET", b"t", b"v"]),
                words(&[b"XLEN", b"s"]),
            ]
        );
        let tail = script.split_once("XLEN s\n").unwrap().1;
        assert_eq!(
            tail,
            "# a note\n# --- connection \"a\\\"b\\\\c\"\n\
             # the clock moved forward 1500 ms here (wait that long on a real server)\n\
             # 3 generated order entries were added to big here (:fill)\n"
        );
    }

    #[test]
    fn lines_redis_cli_would_run_itself_are_not_sent() {
        let log = "\"quit\"\nEXIT\n\":set\" hints\n\"connect\" 127.0.0.1 6380\n3 SET rep v\n\"\" SET e v\n\"-1\" X\n\" +7\" X\nhelp XADD\n\"?\"\n\"clear\"\n\"quit\\x00x\"\n\"5\\x00\" SET n v\nclear x\nconnect h\n3\n5a SET x v\n";
        let script = redis_cli_script(&SessionSpec { log: log.into(), ..SessionSpec::default() });
        assert_eq!(
            commands(&script),
            [words(&[b"clear", b"x"]), words(&[b"connect", b"h"]), words(&[b"3"]), words(&[b"5a", b"SET", b"x", b"v"])]
        );
        assert_eq!(script.matches("# not sent, redis-cli would run it itself: ").count(), 13, "{script}");
    }
}
