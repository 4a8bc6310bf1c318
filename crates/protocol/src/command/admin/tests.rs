//! Expected replies were recorded from a real Redis 8.2.3 running the same commands
//! (RESP2 arrays become the maps and verbatim strings they are in RESP3).

use super::*;
use crate::command::lookup;
use crate::command::testkit::*;

const NOW: i64 = 1_795_993_823_728;

#[test]
fn microseconds_and_mean_ttls_are_exact_at_the_extremes() {
    assert_eq!(micros(0), "0");
    assert_eq!(micros(NOW), "1795993823728000");
    assert_eq!(micros(-5), "-5000");
    assert_eq!(micros(i64::MAX), (i128::from(i64::MAX) * 1000).to_string());
    assert_eq!(mean(&[]), 0);
    assert_eq!(mean(&[100_000, 50_000]), 75_000);
    assert_eq!(mean(&[1, 2]), 1);
    assert_eq!(mean(&[i64::MAX, i64::MAX, i64::MAX - 1]), i64::MAX - 1);
    assert_eq!(mean(&[i64::MAX, i64::MAX]), i64::MAX);
}

fn map(pairs: &[(&str, &str)]) -> Reply {
    Reply::Map(pairs.iter().map(|(k, v)| (bulk(k), bulk(v))).collect())
}

fn txt(text: &str) -> Reply {
    Reply::Verbatim { format: *b"txt", text: text.as_bytes().to_vec() }
}

fn config_failed(name: &str, reason: &str) -> Reply {
    err(&format!("ERR CONFIG SET failed (possibly related to argument '{name}') - {reason}"))
}

#[test]
fn echo_time_dbsize() {
    let mut b = Bench::new(NOW);
    b.check("ECHO", arity("echo"));
    b.check("ECHO a b", arity("echo"));
    b.check("ECHO hello", bulk("hello"));
    assert_eq!(b.call(&[b"ECHO", b""]), bulk(""));
    b.check("TIME x", arity("time"));
    b.check("TIME", bulks(&["1795993823", "728000"]));
    b.now = 1_700_000_000_000;
    b.check("TIME", bulks(&["1700000000", "0"]));
    b.check("DBSIZE x", arity("dbsize"));
    b.check("DBSIZE", int(0));
    b.run("SET a 1");
    b.run("XADD s 1-0 f v");
    b.run("SET e 1 PX 10");
    b.check("DBSIZE", int(3));
    b.now += 10;
    b.check("DBSIZE", int(2));
}

fn server_text(now: i64, uptime: i64) -> String {
    format!(
        "# Server\r\nredis_version:8.2.3\r\nredis_git_sha1:00000000\r\nredis_git_dirty:0\r\n\
         redis_build_id:0000000000000000\r\nredis_mode:standalone\r\nos:StreamLab {} {}\r\n\
         arch_bits:64\r\nmonotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:epoll\r\n\
         atomicvar_api:c11-builtin\r\ngcc_version:0.0.0\r\nprocess_id:1\r\nprocess_supervised:no\r\n\
         run_id:53747265616d4c61620000000000000000000000\r\ntcp_port:6379\r\n\
         server_time_usec:{}\r\nuptime_in_seconds:{uptime}\r\nuptime_in_days:{}\r\nhz:10\r\n\
         configured_hz:10\r\nlru_clock:{}\r\nexecutable:\r\nconfig_file:\r\nio_threads_active:0\r\n\
         listener0:name=tcp,bind=*,bind=-::*,port=6379\r\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH,
        now * 1000,
        uptime / 86_400,
        (now / 1000) % (1 << 24),
    )
}

#[test]
fn info_sections() {
    let mut b = Bench::new(NOW);
    b.started_at = Some(NOW - 196_500);
    b.check("INFO keyspace", txt("# Keyspace\r\n"));
    b.check("INFO nosuch", txt(""));
    b.check("INFO nosuch other", txt(""));
    b.run("SET a 1");
    b.run("SET b 2 EX 100");
    b.run("XADD s 1-0 f v");
    let keyspace = "# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=100000,subexpiry=0\r\n";
    b.check("INFO keyspace", txt(keyspace));
    b.check("INFO KEYSPACE", txt(keyspace));
    b.check("INFO keyspace keyspace", txt(keyspace));
    b.check("INFO SERVER nosuch", txt(&server_text(NOW, 196)));
    let both = format!("{}\r\n{keyspace}", server_text(NOW, 196));
    b.check("INFO server keyspace", txt(&both));
    b.check("INFO keyspace server", txt(&both));
    // The bench has no session: no connection is counted.
    let clients = "# Clients\r\nconnected_clients:0\r\ncluster_connections:0\r\nmaxclients:10000\r\n\
                   client_recent_max_input_buffer:0\r\nclient_recent_max_output_buffer:0\r\n\
                   blocked_clients:0\r\ntracking_clients:0\r\npubsub_clients:0\r\nwatching_clients:0\r\n\
                   clients_in_timeout_table:0\r\ntotal_watched_keys:0\r\ntotal_blocking_keys:0\r\n\
                   total_blocking_keys_on_nokey:0\r\n";
    // A build without the `host` feature (the grader) leaves the section out.
    let (clients, all) = if cfg!(feature = "host") {
        (clients.to_owned(), format!("{}\r\n{clients}\r\n{keyspace}", server_text(NOW, 196)))
    } else {
        (String::new(), both.clone())
    };
    b.check("INFO clients", txt(&clients));
    b.check("INFO keyspace clients server", txt(&all));
    for line in ["INFO", "INFO default", "INFO all", "INFO everything", "INFO Everything keyspace"] {
        b.check(line, txt(&all));
    }
    // Uptime and the clocks follow the engine clock.
    b.now += 2 * 86_400_000;
    b.check("INFO server", txt(&server_text(b.now, 2 * 86_400 + 196)));
    // avg_ttl is the mean remaining time to live of the keys that have one (b has
    // expired by now).
    b.now = NOW;
    b.run("SET c 3 PX 50000");
    b.run("SET d 4 PX 100001");
    b.check("INFO keyspace", txt("# Keyspace\r\ndb0:keys=4,expires=2,avg_ttl=75000,subexpiry=0\r\n"));
    b.started_at = None;
    b.check("INFO server", txt(&server_text(NOW, 0)));
}

#[test]
fn config_dispatch_and_help() {
    let mut b = Bench::new(NOW);
    b.check("CONFIG", arity("config"));
    b.check("CONFIG FOO", err("ERR unknown subcommand 'FOO'. Try CONFIG HELP."));
    b.check("CONFIG GET", arity("config|get"));
    b.check("CONFIG SET", arity("config|set"));
    b.check("CONFIG SET a", arity("config|set"));
    b.check("CONFIG SET stream-node-max-entries", arity("config|set"));
    b.check("CONFIG HELP x", arity("config|help"));
    b.check("CONFIG REWRITE x", arity("config|rewrite"));
    b.check("CONFIG RESETSTAT x", arity("config|resetstat"));
    b.check("CONFIG REWRITE", err("ERR The server is running without a config file"));
    b.check("CONFIG RESETSTAT", ok());
    let lines = [
        "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        "HELP",
        "    Print this help.",
    ];
    b.check("CONFIG HELP", arr(lines.iter().map(|l| status(l)).collect()));
    b.check("config help", arr(lines.iter().map(|l| status(l)).collect()));
}

#[test]
fn config_get() {
    let mut b = Bench::new(NOW);
    let both = map(&[("stream-node-max-entries", "100"), ("stream-node-max-bytes", "4096")]);
    b.check("CONFIG GET stream-node*", both.clone());
    b.check("CONFIG GET Stream-Node*", both.clone());
    b.check("CONFIG GET stream* stream-node-max-bytes", both);
    b.check("CONFIG GET stream-node-max-entries", map(&[("stream-node-max-entries", "100")]));
    // A parameter named exactly is listed as typed.
    b.check("CONFIG GET STREAM-NODE-MAX-ENTRIES", map(&[("STREAM-NODE-MAX-ENTRIES", "100")]));
    b.check("CONFIG GET Stream-Node-Max-Bytes", map(&[("Stream-Node-Max-Bytes", "4096")]));
    b.check("CONFIG GET stream-node-max-?ntries", map(&[("stream-node-max-entries", "100")]));
    b.check("CONFIG GET STREAM-NODE-MAX-?NTRIES", map(&[("stream-node-max-entries", "100")]));
    b.check("CONFIG GET *max-bytes", map(&[("stream-node-max-bytes", "4096")]));
    b.check("CONFIG GET nosuch", map(&[]));
    b.check("CONFIG GET [", map(&[]));
    b.check(
        "CONFIG GET save appendonly maxmemory-policy databases",
        map(&[("save", ""), ("appendonly", "no"), ("databases", "16"), ("maxmemory-policy", "noeviction")]),
    );
    b.check("CONFIG GET save save", map(&[("save", "")]));
    // Each parameter once; the first pattern that finds it decides how it is shown.
    b.check("CONFIG GET APPENDONLY appendonly", map(&[("APPENDONLY", "no")]));
    b.check("CONFIG GET APPENDONLY appendonl*", map(&[("APPENDONLY", "no")]));
    b.check("CONFIG GET appendonl* APPENDONLY", map(&[("appendonly", "no")]));
    let Reply::Map(all) = b.run("CONFIG GET *") else { panic!() };
    assert_eq!(all.len(), PARAMS.len());
}

#[test]
fn config_set_stream_settings() {
    let mut b = Bench::new(NOW);
    b.check("CONFIG SET stream-node-max-entries 0", ok());
    b.check("CONFIG GET stream-node-max-entries", map(&[("stream-node-max-entries", "0")]));
    b.check("CONFIG SET stream-node-max-entries 9223372036854775807", ok());
    assert_eq!(b.db.config.node_max_entries, i64::MAX as u64);
    b.check("CONFIG SET STREAM-NODE-MAX-ENTRIES 7", ok());
    assert_eq!(b.db.config.node_max_entries, 7);
    let entries = "stream-node-max-entries";
    let not_int = "argument couldn't be parsed into an integer";
    for bad in ["abc", "1.5", "1k", "010", "+10", "-0", "", "9223372036854775808"] {
        assert_eq!(
            b.call(&[b"CONFIG", b"SET", entries.as_bytes(), bad.as_bytes()]),
            config_failed(entries, not_int),
            "{bad:?}"
        );
    }
    b.check(
        "CONFIG SET stream-node-max-entries -1",
        config_failed(entries, "argument must be between 0 and 9223372036854775807 inclusive"),
    );
    // Value errors name the parameter canonically.
    b.check("CONFIG SET STREAM-NODE-MAX-ENTRIES abc", config_failed(entries, not_int));
    assert_eq!(b.db.config.node_max_entries, 7);

    let bytes = "stream-node-max-bytes";
    for (value, stored) in [
        ("4kb", 4096),
        ("1k", 1000),
        ("1gb", 1 << 30),
        ("10KB", 10240),
        ("010", 10),
        ("1b", 1),
        ("1B", 1),
        ("1m", 1_000_000),
        ("1mb", 1 << 20),
        ("1g", 1_000_000_000),
        ("1Gb", 1 << 30),
        ("0", 0),
        ("", 0),
        ("kb", 0),
        ("9223372036854775807", i64::MAX as u64),
        ("20000000000gb", 3_028_092_406_290_448_384),
    ] {
        assert_eq!(b.call(&[b"CONFIG", b"SET", bytes.as_bytes(), value.as_bytes()]), ok(), "{value:?}");
        assert_eq!(b.db.config.node_max_bytes, stored, "{value:?}");
    }
    b.check("CONFIG GET stream-node-max-bytes", map(&[(bytes, "3028092406290448384")]));
    for bad in ["-1", "abc", "1.5", "100tb", "+10", " 10", "1kbb", "0x10", "-0"] {
        assert_eq!(
            b.call(&[b"CONFIG", b"SET", bytes.as_bytes(), bad.as_bytes()]),
            config_failed(bytes, "argument must be a memory value"),
            "{bad:?}"
        );
    }
    for big in [
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "9223372036854775807kb",
        "10000000000gb",
    ] {
        assert_eq!(
            b.call(&[b"CONFIG", b"SET", bytes.as_bytes(), big.as_bytes()]),
            config_failed(bytes, "argument must be greater or equal to 0"),
            "{big:?}"
        );
    }
    b.check("CONFIG SET Stream-Node-Max-Bytes -1", config_failed(bytes, "argument must be a memory value"));
    b.check("CONFIG SET stream-node-max-bytes 1 kb", syntax());
    b.check("CONFIG SET stream-node-max-entries 100 stream-node-max-bytes 4096", ok());
    assert_eq!(b.db.config, StreamConfig::default());
}

#[test]
fn config_set_checks_names_then_values_and_is_atomic() {
    let mut b = Bench::new(NOW);
    let unknown = |name: &str| err(&format!("ERR Unknown option or number of arguments for CONFIG SET - '{name}'"));
    b.check("CONFIG SET nosuch 1", unknown("nosuch"));
    b.check("CONFIG SET stream-node-max-entries 1 stream-node-max-bytes", syntax());
    b.check("CONFIG SET nosuch 1 x", syntax());
    b.check("CONFIG SET stream-node-max-entries 1 stream-node-max-bytes 2 x", syntax());
    b.check("CONFIG SET stream-node-max-entries 7 nosuch 1", unknown("nosuch"));
    b.check("CONFIG SET nosuch 1 stream-node-max-entries abc", unknown("nosuch"));
    b.check("CONFIG SET stream-node-max-entries abc nosuch 1", unknown("nosuch"));
    let dup = "duplicate parameter";
    b.check(
        "CONFIG SET stream-node-max-entries 5 stream-node-max-entries 6",
        config_failed("stream-node-max-entries", dup),
    );
    b.check(
        "CONFIG SET stream-node-max-entries 5 STREAM-NODE-MAX-ENTRIES 6",
        config_failed("STREAM-NODE-MAX-ENTRIES", dup),
    );
    b.check(
        "CONFIG SET stream-node-max-entries 5 stream-node-max-entries 6 nosuch 1",
        config_failed("stream-node-max-entries", dup),
    );
    b.check(
        "CONFIG SET stream-node-max-entries abc stream-node-max-entries 6",
        config_failed("stream-node-max-entries", dup),
    );
    b.check("CONFIG SET appendonly yes appendonly no", config_failed("appendonly", dup));
    let immutable = "can't set immutable config";
    b.check("CONFIG SET databases abc", config_failed("databases", immutable));
    b.check("CONFIG SET databases 16", config_failed("databases", immutable));
    b.check("CONFIG SET DATABASES 1", config_failed("DATABASES", immutable));
    b.check("CONFIG SET stream-node-max-entries abc databases 1", config_failed("databases", immutable));
    b.check("CONFIG SET databases 1 stream-node-max-entries abc", config_failed("databases", immutable));
    // One bad value and nothing changes.
    b.check(
        "CONFIG SET stream-node-max-entries 5 stream-node-max-bytes abc",
        config_failed("stream-node-max-bytes", "argument must be a memory value"),
    );
    assert_eq!(b.db.config, StreamConfig::default());
    b.check("CONFIG SET stream-node-max-bytes 0 stream-node-max-entries 2", ok());
    assert_eq!(b.db.config, StreamConfig { node_max_entries: 2, node_max_bytes: 0 });
}

#[test]
fn the_policy_error_lists_the_policies() {
    assert_eq!(POLICY_ERROR, format!("argument(s) must be one of the following: {}", POLICIES.join(", ")));
}

#[test]
fn config_set_fixed_parameters() {
    let mut b = Bench::new(NOW);
    // Setting a fixed parameter to the value it has is accepted; bad values get Redis's
    // errors; other valid values are refused as immutable (StreamLab has no persistence,
    // eviction or extra databases to switch on).
    for line in ["CONFIG SET save \"\"", "CONFIG SET appendonly no", "CONFIG SET appendonly NO"] {
        let line = line.replace("\"\"", "");
        let args: Vec<&[u8]> = line.split(' ').map(str::as_bytes).collect();
        assert_eq!(b.call(&args), ok(), "{line}");
    }
    b.check("CONFIG SET maxmemory-policy NOEVICTION", ok());
    b.check("CONFIG SET maxmemory-policy noeviction", ok());
    let invalid_save = config_failed("save", "Invalid save parameters");
    for bad in ["3600", "abc 1", "-1 1", "  ", "3600 1 300"] {
        assert_eq!(b.call(&[b"CONFIG", b"SET", b"save", bad.as_bytes()]), invalid_save, "{bad:?}");
    }
    let immutable = "can't set immutable config";
    assert_eq!(b.call(&[b"CONFIG", b"SET", b"save", b"3600 1 300 100"]), config_failed("save", immutable));
    assert_eq!(
        b.call(&[b"CONFIG", b"SET", b"appendonly", b""]),
        config_failed("appendonly", "argument must be 'yes' or 'no'")
    );
    b.check("CONFIG SET appendonly maybe", config_failed("appendonly", "argument must be 'yes' or 'no'"));
    b.check("CONFIG SET appendonly yes", config_failed("appendonly", immutable));
    b.check(
        "CONFIG SET maxmemory-policy foo",
        config_failed(
            "maxmemory-policy",
            "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction",
        ),
    );
    b.check("CONFIG SET maxmemory-policy allkeys-lru", config_failed("maxmemory-policy", immutable));
    b.check(
        "CONFIG GET save appendonly maxmemory-policy",
        map(&[("save", ""), ("appendonly", "no"), ("maxmemory-policy", "noeviction")]),
    );
}

#[test]
fn command_count_docs_info() {
    let mut b = Bench::new(NOW);
    b.check("COMMAND FOO", err("ERR unknown subcommand 'FOO'. Try COMMAND HELP."));
    b.check("COMMAND COUNT x", arity("command|count"));
    b.check("COMMAND HELP x", arity("command|help"));
    b.check("COMMAND COUNT", int(available(b.caps).count() as i64));
    let xlen_doc = Reply::Map(vec![
        (bulk("summary"), bulk("Return the number of messages in a stream.")),
        (bulk("since"), bulk("5.0.0")),
        (bulk("group"), bulk("stream")),
    ]);
    let get_doc = Reply::Map(vec![
        (bulk("summary"), bulk("Returns the string value of a key.")),
        (bulk("since"), bulk("1.0.0")),
        (bulk("group"), bulk("string")),
    ]);
    b.check("COMMAND DOCS xlen", Reply::Map(vec![(bulk("xlen"), xlen_doc.clone())]));
    b.check("COMMAND DOCS nosuch", Reply::Map(vec![]));
    // Named in the order asked, unknown names skipped, repeats repeated.
    b.check(
        "COMMAND DOCS get nosuch XLEN get",
        Reply::Map(vec![(bulk("get"), get_doc.clone()), (bulk("xlen"), xlen_doc), (bulk("get"), get_doc)]),
    );
    let Reply::Map(docs) = b.run("COMMAND DOCS config") else { panic!() };
    let (_, Reply::Map(config_doc)) = &docs[0] else { panic!() };
    assert_eq!(config_doc[0], (bulk("summary"), bulk("A container for server configuration commands.")));
    let (label, Reply::Map(subs)) = &config_doc[3] else { panic!() };
    assert_eq!(label, &bulk("subcommands"));
    assert_eq!(
        subs[0],
        (
            bulk("config|get"),
            Reply::Map(vec![
                (bulk("summary"), bulk("Returns the effective values of configuration parameters.")),
                (bulk("group"), bulk("server")),
            ])
        )
    );
    let Reply::Map(every) = b.run("COMMAND DOCS") else { panic!() };
    assert_eq!(every.len(), available(b.caps).count());

    b.check("COMMAND INFO nosuch", arr(vec![Reply::NullBulk]));
    let empty = || Reply::Set(vec![]);
    let get_info = arr(vec![
        bulk("get"),
        int(2),
        Reply::Set(vec![status("readonly")]),
        int(1),
        int(1),
        int(1),
        Reply::Set(vec![status("@read"), status("@string")]),
        empty(),
        empty(),
        empty(),
    ]);
    b.check("COMMAND INFO get nosuch", arr(vec![get_info.clone(), Reply::NullBulk]));
    let Reply::Array(infos) = b.run("COMMAND INFO del echo xadd") else { panic!() };
    let positions = |r: &Reply| match r {
        Reply::Array(f) => (f[1].clone(), f[3].clone(), f[4].clone(), f[5].clone()),
        _ => panic!(),
    };
    assert_eq!(positions(&infos[0]), (int(-2), int(1), int(-1), int(1)));
    assert_eq!(positions(&infos[1]), (int(2), int(0), int(0), int(0)));
    assert_eq!(positions(&infos[2]), (int(-5), int(1), int(1), int(1)));
    let Reply::Array(config) = &b.run("COMMAND INFO config") else { panic!() };
    let Reply::Array(config) = &config[0] else { panic!() };
    let Reply::Array(subs) = &config[9] else { panic!() };
    assert_eq!(subs.len(), 5);
    let Reply::Array(bare) = b.run("COMMAND") else { panic!() };
    assert_eq!(bare.len(), available(b.caps).count());
    assert_eq!(b.run("COMMAND INFO"), arr(bare));
}

#[test]
fn info_server_reports_the_profile() {
    use crate::profile::Profile;
    let text = |profile: Profile| match Bench::with_profile(NOW, profile).run("INFO server") {
        Reply::Verbatim { text, .. } => String::from_utf8(text).unwrap(),
        other => panic!("{other:?}"),
    };
    assert!(text(Profile::Redis74).starts_with("# Server\r\nredis_version:7.4.1\r\nredis_git_sha1:"));
    assert!(text(Profile::Redis810).contains("redis_version:8.10.0\r\n"));
    // Valkey 9.1.2's layout: the Redis version it forked from, then its own.
    let valkey = text(Profile::Valkey9);
    assert!(valkey.starts_with(
        "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:9.1.2\r\nvalkey_release_stage:ga\r\n"
    ));
    assert!(valkey.contains("server_mode:standalone\r\n") && !valkey.contains("redis_mode"));
    assert!(!valkey.contains("atomicvar_api") && valkey.contains("clients_hz:10\r\n"));
    // COMMAND lists only what the profile has.
    let mut old = Bench::with_profile(NOW, Profile::Redis74);
    old.check("COMMAND INFO xnack xdelex", arr(vec![Reply::NullBulk, Reply::NullBulk]));
    let mut new = Bench::with_profile(NOW, Profile::Redis810);
    assert!(matches!(new.run("COMMAND INFO xnack"), Reply::Array(v) if v[0] != Reply::NullBulk));
}

#[test]
fn command_help() {
    let mut b = Bench::new(NOW);
    let lines = [
        "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "HELP",
        "    Print this help.",
    ];
    b.check("COMMAND HELP", arr(lines.iter().map(|l| status(l)).collect()));
}

#[test]
fn summaries_match_redis() {
    // Summaries, since and groups as Redis 8.2.3's COMMAND DOCS gives them.
    let expected: &[(&str, &str, &str, &str)] = &[
        ("del", "Deletes one or more keys.", "1.0.0", "generic"),
        ("unlink", "Asynchronously deletes one or more keys.", "4.0.0", "generic"),
        ("exists", "Determines whether one or more keys exist.", "1.0.0", "generic"),
        ("type", "Determines the type of value stored at a key.", "1.0.0", "generic"),
        ("keys", "Returns all key names that match a pattern.", "1.0.0", "generic"),
        ("scan", "Iterates over the key names in the database.", "2.8.0", "generic"),
        ("flushall", "Removes all keys from all databases.", "1.0.0", "server"),
        ("flushdb", "Remove all keys from the current database.", "1.0.0", "server"),
        (
            "set",
            "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
            "1.0.0",
            "string",
        ),
        ("get", "Returns the string value of a key.", "1.0.0", "string"),
        ("expire", "Sets the expiration time of a key in seconds.", "1.0.0", "generic"),
        ("pexpire", "Sets the expiration time of a key in milliseconds.", "2.6.0", "generic"),
        ("ttl", "Returns the expiration time in seconds of a key.", "1.0.0", "generic"),
        ("pttl", "Returns the expiration time in milliseconds of a key.", "2.6.0", "generic"),
        ("persist", "Removes the expiration time of a key.", "2.2.0", "generic"),
        ("echo", "Returns the given string.", "1.0.0", "connection"),
        ("time", "Returns the server time.", "2.6.0", "server"),
        ("config", "A container for server configuration commands.", "2.0.0", "server"),
        ("command", "Returns detailed information about all commands.", "2.8.13", "server"),
        ("info", "Returns information and statistics about the server.", "1.0.0", "server"),
        ("dbsize", "Returns the number of keys in the database.", "1.0.0", "server"),
    ];
    for &(name, summary, since, group) in expected {
        let spec = lookup(name.as_bytes()).unwrap();
        assert_eq!((spec.summary, spec.since, spec.group), (summary, since, group), "{name}");
    }
    // Arities as COMMAND INFO reports them.
    for (name, arity) in [("config", -2), ("command", -1), ("info", -1), ("flushall", -1), ("scan", -2), ("set", -3)] {
        assert_eq!(lookup(name.as_bytes()).unwrap().arity, arity, "{name}");
    }
}
