use super::*;

#[test]
fn clock_numbers_parse_as_str_parse_does() {
    // Every shape a step takes, and digits that round: the nearest double, bit for bit.
    let mut cases: Vec<String> = [
        "0",
        "-0",
        "+0",
        "1",
        "1.",
        ".5",
        "+.5",
        "-.5",
        "0.05",
        "1.5",
        "2.25",
        "0.1",
        "0.3",
        "1.0005",
        "59.999",
        "123456789012345",
        "9007199254740993",
        "0.0000000000000000000001",
        "1.50000000000000000000000",
        "000012.3400",
        "",
        ".",
        "+",
        "-",
        "1.2.3",
        "1_000",
        "١",
        " 1",
        "0x10",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..20_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let int = seed % 10u64.pow((seed >> 40) as u32 % 9);
        let frac = (seed >> 20) % 1_000_000;
        let decimals = (seed >> 56) as usize % 8;
        cases.push(format!("{int}.{frac:0>decimals$}"));
        cases.push(format!("{}", seed % 100_000_000_000_000));
    }
    for case in &cases {
        let ours = parse_decimal(case).map(f64::to_bits);
        let std = case.parse::<f64>().ok().map(f64::to_bits);
        assert_eq!(ours, std, "{case:?}");
    }
    // Past 19 significant digits the tail is dropped: still a number, still in range.
    assert_eq!(parse_clock("+1.0000000000000000000000001s"), Some(1000));
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
