use super::*;
use streamlab_testkit::rng::Rng;

#[test]
fn clock_steps_are_exact_decimals_rounded_half_up() {
    for (step, ms) in [
        ("+1500", Some(1500)),
        ("1500", Some(1500)),
        ("+1.5s", Some(1500)),
        ("2m", Some(120_000)),
        ("+1h", Some(3_600_000)),
        ("250ms", Some(250)),
        (".5s", Some(500)),
        ("5.", Some(5)),
        ("0.5", Some(1)),
        ("0.49999999999999999999999", Some(0)),
        ("0.0005s", Some(1)),
        ("0.00049s", Some(0)),
        ("1.0000000000000000000000001s", Some(1000)),
        // 0.5000000000000000000000004 ms and 0.4999999999999999999999968 ms.
        ("0.000000138888888888888888889h", Some(1)),
        ("0.000000138888888888888888888h", Some(0)),
        ("+1.99999999999999999999999999999999999999s", Some(2000)),
        ("000012.3400s", Some(12_340)),
        ("-0", Some(0)),
        ("-0.000s", Some(0)),
        ("-1", None),
        ("-0.4", None),
        ("999999999999999", Some(999_999_999_999_999)),
        ("1000000000000000", None),
        ("99999999999999999999999999h", None),
        ("1e3", None),
        ("", None),
        (".", None),
        ("+", None),
        ("1.2.3", None),
        ("1_000", None),
        ("١", None),
        (" 1", None),
        ("0x10", None),
        ("5d", None),
    ] {
        assert_eq!(parse_clock(step), ms, "{step:?}");
    }
    // Against exact integer arithmetic on the whole fraction, for random steps in every unit.
    let mut rng = Rng::new(0);
    for _ in 0..20_000 {
        let bits = rng.next();
        let int = bits % 10u64.pow((bits >> 40) as u32 % 7);
        let decimals = (bits >> 56) as u32 % 10;
        let frac = (bits >> 20) % 10u64.pow(decimals);
        let (unit, factor) = [("ms", 1u128), ("s", 1000), ("m", 60_000), ("h", 3_600_000)][(bits >> 8) as usize % 4];
        let text = format!("{int}.{frac:0>width$}{unit}", width = decimals as usize);
        let scale = 10u128.pow(decimals);
        let exact = ((u128::from(int) * scale + u128::from(frac)) * factor * 2 + scale) / (2 * scale);
        assert_eq!(parse_clock(&text), Some(exact as i64), "{text}");
    }
}

#[test]
fn hints_follow_the_typed_arguments() {
    assert_eq!(syntax_hint("XLEN").as_deref(), Some(" key"));
    assert_eq!(syntax_hint("XRANGE s ").as_deref(), Some("start end [COUNT count]"));
    assert_eq!(syntax_hint("XLEN s"), None);
    assert_eq!(syntax_hint("NOPE"), None);
    assert_eq!(
        syntax_hint("XGROUP CREATE ").as_deref(),
        Some("key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]")
    );
    assert_eq!(syntax_hint("XGROUP CREATE s g").as_deref(), Some(" <id | $> [MKSTREAM] [ENTRIESREAD entries-read]"));
}

#[test]
fn completion_offers_commands_subcommands_and_keywords() {
    assert_eq!(completions("xreadg"), vec!["XREADGROUP"]);
    assert!(completions("XGROUP CR").contains(&"CREATE".to_owned()));
    assert!(completions("XGROUP CREATE s g $ MK").contains(&"MKSTREAM".to_owned()));
    let read = completions("XREADGROUP GROUP g c ");
    assert!(read.contains(&"COUNT".to_owned()) && read.contains(&"STREAMS".to_owned()), "{read:?}");
    assert!(completions("NOPE x").is_empty());
}

#[test]
fn help_names_syntax_and_summary() {
    let text = help_text(command::lookup(b"xlen").unwrap());
    assert!(text.contains("XLEN key") && text.contains("summary: Return the number of messages in a stream."));
    let caps = Profile::default().caps();
    assert_eq!(help_reply("help nope", caps).as_deref(), Some("No help for 'nope'."));
    assert_eq!(help_reply("helpme", caps), None);
}

#[test]
fn interactive_consoles_answer_help_and_announce_subscriptions() {
    let mut console = Console::default().interactive();
    assert_eq!(console.run("help XLEN")[0].kind, OutputKind::Info);
    let out = console.run("SUBSCRIBE news");
    assert_eq!(out[0].text, SUBSCRIBE_BANNER);
    assert_eq!(console.run("XLEN")[0].kind, OutputKind::Error);
    assert_eq!(console.run("\"open")[0], Output::new(OutputKind::Error, "Invalid argument(s)"));
}

#[test]
fn named_connections_survive_undo_and_receive_deliveries() {
    let mut console = Console::with_connections(Session::new(Clock::Virtual(0)), &["alice", "bob"]);
    assert_eq!(console.current(), "alice");
    console.switch("bob");
    assert!(console.run("XREAD BLOCK 0 STREAMS s $").is_empty());
    console.switch("alice");
    let out = console.run("XADD s 1-0 f v");
    assert_eq!(out[1].to.as_deref(), Some("bob"));
    assert!(console.undo() && console.undo() && !console.undo());
    assert_eq!(console.connections(), vec![("alice", 1), ("bob", 2)]);
}

#[test]
fn scripts_rebuild_the_session() {
    let mut console = Console::with_connections(Session::new(Clock::Virtual(0)), &["alice", "bob"]);
    for line in
        ["XADD s 1-0 f \"two words\"", ":as bob", "XLEN s", ":clock +1500", ":as carol", "XADD s * a b", ":as alice"]
    {
        console.run(line);
    }
    let script = console.script();
    assert_eq!(
        script,
        "XADD s 1-0 f \"two words\"\n:as bob\nXLEN s\n:clock +1500\n:as carol\nXADD s * a b\n:as alice\n"
    );
    let mut again = Console::with_connections(Session::new(Clock::Virtual(0)), &["alice", "bob"]);
    for line in script.lines() {
        again.run(line);
    }
    assert_eq!(again.session().keyspace(), console.session().keyspace());
    assert_eq!(again.script(), script);
    assert_eq!(command_line(&[b"a\"b".to_vec(), Vec::new(), b"x".to_vec()]), "\"a\\\"b\" \"\" x");
}

#[test]
fn command_lines_split_back_into_their_arguments() {
    for arg in [&b"abc"[..], b"", b" 8", b"5- -1", b"a\"b", b"it's", b"back\\slash", b"\x01\xff", b"(1-0"] {
        let line = command_line(&[b"XADD".to_vec(), arg.to_vec()]);
        assert_eq!(tokenize(line.as_bytes()).unwrap(), vec![b"XADD".to_vec(), arg.to_vec()], "{line}");
    }
}
