//! Server commands whose replies a transcript cannot pin, through `Session`; what reads the
//! same as on Redis 8.2.3 is in `tests/transcripts/admin-*.txt`.
//!
//! * INFO: redis-cli prints its text raw, in lines a transcript reads as comments, and
//!   StreamLab's `server` section differs on purpose (os, run_id, executable...), its
//!   `clients` section counts the session's own connections and its `avg_ttl` is exact
//!   (Redis estimates it by sampling);
//! * TIME: an oracle under faketime reads 5 us past the millisecond;
//! * DBSIZE right after a key's deadline (StreamLab expires keys as the clock moves);
//! * CONFIG GET of several parameters, which Redis lists in an order seeded at each start;
//! * COMMAND, COMMAND COUNT, COMMAND INFO and DOCS of known commands and COMMAND HELP, where
//!   StreamLab answers for fewer commands and with less detail than Redis;
//! * the fixed parameters StreamLab refuses to change (Redis would switch on persistence or
//!   eviction).

use streamlab_protocol::command::available;
use streamlab_protocol::{Clock, ConnId, Profile, Reply, Session, VIRTUAL_EPOCH_MS};

fn session(profile: Profile) -> (Session, ConnId) {
    let mut session = Session::with_profile(Clock::Virtual(VIRTUAL_EPOCH_MS), profile);
    let conn = session.connect();
    (session, conn)
}

/// Runs a command line split on spaces.
fn run(session: &mut Session, conn: ConnId, line: &str) -> Reply {
    let mut out = session.execute(conn, line.split(' ').map(|w| w.as_bytes().to_vec()).collect());
    session.check_invariants().unwrap();
    assert_eq!(out.replies.len(), 1, "{line}: one reply");
    out.replies.remove(0)
}

fn bulk(s: &str) -> Reply {
    Reply::Bulk(s.as_bytes().to_vec())
}

fn bulks(items: &[&str]) -> Reply {
    Reply::Array(items.iter().map(|s| bulk(s)).collect())
}

fn text(reply: Reply) -> String {
    match reply {
        Reply::Bulk(text) | Reply::Verbatim { text, .. } => String::from_utf8(text).unwrap(),
        other => panic!("{other:?}"),
    }
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
fn time_and_dbsize_follow_the_virtual_clock() {
    let (mut s, c) = session(Profile::Redis82);
    assert_eq!(run(&mut s, c, "TIME"), bulks(&["1700000000", "0"]));
    s.advance(1_728);
    assert_eq!(run(&mut s, c, "TIME"), bulks(&["1700000001", "728000"]));
    run(&mut s, c, "SET a 1");
    run(&mut s, c, "SET e 1 PX 10");
    assert_eq!(run(&mut s, c, "DBSIZE"), Reply::Integer(2));
    s.advance(10);
    assert_eq!(run(&mut s, c, "DBSIZE"), Reply::Integer(1));
}

#[test]
fn info_sections() {
    let (mut s, c) = session(Profile::Redis82);
    s.advance(196_500);
    let now = s.now();
    assert_eq!(text(run(&mut s, c, "INFO keyspace")), "# Keyspace\r\n");
    run(&mut s, c, "SET a 1");
    run(&mut s, c, "SET b 2 EX 100");
    run(&mut s, c, "XADD s 1-0 f v");
    let keyspace = "# Keyspace\r\ndb0:keys=3,expires=1,avg_ttl=100000,subexpiry=0\r\n";
    assert_eq!(text(run(&mut s, c, "INFO keyspace")), keyspace);
    assert_eq!(text(run(&mut s, c, "INFO KEYSPACE")), keyspace);
    assert_eq!(text(run(&mut s, c, "INFO keyspace keyspace")), keyspace);
    assert_eq!(text(run(&mut s, c, "INFO SERVER nosuch")), server_text(now, 196));
    let both = format!("{}\r\n{keyspace}", server_text(now, 196));
    assert_eq!(text(run(&mut s, c, "INFO server keyspace")), both);
    assert_eq!(text(run(&mut s, c, "INFO keyspace server")), both);
    let clients = text(run(&mut s, c, "INFO clients"));
    assert!(clients.starts_with("# Clients\r\nconnected_clients:1\r\n"), "{clients}");
    let all = format!("{}\r\n{clients}\r\n{keyspace}", server_text(now, 196));
    assert_eq!(text(run(&mut s, c, "INFO keyspace clients server")), all);
    for line in ["INFO", "INFO default", "INFO all", "INFO everything", "INFO Everything keyspace"] {
        assert_eq!(text(run(&mut s, c, line)), all, "{line}");
    }
    // avg_ttl is the exact mean remaining time of the keys that have one.
    run(&mut s, c, "SET c 3 PX 50000");
    run(&mut s, c, "SET d 4 PX 100001");
    assert_eq!(
        text(run(&mut s, c, "INFO keyspace")),
        "# Keyspace\r\ndb0:keys=5,expires=3,avg_ttl=83333,subexpiry=0\r\n"
    );
    // Uptime and the clocks follow the session's clock.
    s.advance(2 * 86_400_000);
    let later = s.now();
    assert_eq!(text(run(&mut s, c, "INFO server")), server_text(later, 2 * 86_400 + 196));
}

#[test]
fn info_server_reports_the_profile() {
    let info = |profile| {
        let (mut s, c) = session(profile);
        text(run(&mut s, c, "INFO server"))
    };
    assert!(info(Profile::Redis74).starts_with("# Server\r\nredis_version:7.4.1\r\nredis_git_sha1:"));
    assert!(info(Profile::Redis810).contains("redis_version:8.10.0\r\n"));
    // Valkey 9.1.2's layout: the Redis version it forked from, then its own.
    let valkey = info(Profile::Valkey9);
    assert!(valkey.starts_with(
        "# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:9.1.2\r\nvalkey_release_stage:ga\r\n"
    ));
    assert!(valkey.contains("server_mode:standalone\r\n") && !valkey.contains("redis_mode"));
    assert!(!valkey.contains("atomicvar_api") && valkey.contains("clients_hz:10\r\n"));
    // COMMAND knows only what the profile has.
    let (mut old, c) = session(Profile::Redis74);
    assert_eq!(run(&mut old, c, "COMMAND INFO xnack xdelex"), Reply::Array(vec![Reply::NullBulk, Reply::NullBulk]));
}

#[test]
fn config_get_of_several_parameters() {
    let (mut s, c) = session(Profile::Redis82);
    // RESP2 flattens the map into name, value, name, value...
    let map = |pairs: &[(&str, &str)]| Reply::Array(pairs.iter().flat_map(|(k, v)| [bulk(k), bulk(v)]).collect());
    let both = map(&[("stream-node-max-entries", "100"), ("stream-node-max-bytes", "4096")]);
    assert_eq!(run(&mut s, c, "CONFIG GET stream-node*"), both);
    assert_eq!(run(&mut s, c, "CONFIG GET Stream-Node*"), both);
    assert_eq!(run(&mut s, c, "CONFIG GET stream* stream-node-max-bytes"), both);
    assert_eq!(
        run(&mut s, c, "CONFIG GET save appendonly maxmemory-policy databases"),
        map(&[("save", ""), ("appendonly", "no"), ("databases", "16"), ("maxmemory-policy", "noeviction")])
    );
}

#[test]
fn fixed_parameters_keep_their_values() {
    let (mut s, c) = session(Profile::Redis82);
    let immutable = |name: &str| {
        Reply::Error(format!(
            "ERR CONFIG SET failed (possibly related to argument '{name}') - can't set immutable config"
        ))
    };
    let mut args = |args: &[&str]| {
        let mut out = s.execute(c, args.iter().map(|a| a.as_bytes().to_vec()).collect());
        out.replies.remove(0)
    };
    assert_eq!(args(&["CONFIG", "SET", "save", "3600 1 300 100"]), immutable("save"));
    assert_eq!(args(&["CONFIG", "SET", "appendonly", "yes"]), immutable("appendonly"));
    assert_eq!(args(&["CONFIG", "SET", "maxmemory-policy", "allkeys-lru"]), immutable("maxmemory-policy"));
    assert_eq!(args(&["CONFIG", "GET", "appendonly"]), bulks(&["appendonly", "no"]));
}

#[test]
fn command_lists_what_the_profile_has() {
    let (mut s, c) = session(Profile::Redis82);
    let count = available(s.capabilities()).count();
    assert_eq!(run(&mut s, c, "COMMAND COUNT"), Reply::Integer(count as i64));
    let Reply::Array(bare) = run(&mut s, c, "COMMAND") else { panic!() };
    assert_eq!(bare.len(), count);
    assert_eq!(run(&mut s, c, "COMMAND INFO"), Reply::Array(bare));
    let Reply::Array(docs) = run(&mut s, c, "COMMAND DOCS") else { panic!() };
    assert_eq!(docs.len(), 2 * count);

    // DOCS names commands in the order asked, skips unknown ones and repeats repeats.
    let Reply::Array(docs) = run(&mut s, c, "COMMAND DOCS get nosuch XLEN get") else { panic!() };
    let names: Vec<_> = docs.iter().step_by(2).cloned().collect();
    assert_eq!(names, [bulk("get"), bulk("xlen"), bulk("get")]);
    // INFO gives arity, first key, last key and step as Redis does.
    let Reply::Array(infos) = run(&mut s, c, "COMMAND INFO del echo xadd") else { panic!() };
    let positions: Vec<_> = infos
        .iter()
        .map(|r| match r {
            Reply::Array(f) => (f[1].clone(), f[3].clone(), f[4].clone(), f[5].clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    let int = Reply::Integer;
    assert_eq!(
        positions,
        [(int(-2), int(1), int(-1), int(1)), (int(2), int(0), int(0), int(0)), (int(-5), int(1), int(1), int(1))]
    );
    let Reply::Array(config) = run(&mut s, c, "COMMAND INFO config") else { panic!() };
    let Reply::Array(config) = &config[0] else { panic!() };
    let Reply::Array(subs) = &config[9] else { panic!() };
    assert_eq!(subs.len(), 5);
}

#[test]
fn command_help_lists_the_subcommands_streamlab_has() {
    // Redis 8.2.3 also lists LIST, GETKEYS and GETKEYSANDFLAGS, which StreamLab lacks.
    let (mut s, c) = session(Profile::Redis82);
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
    assert_eq!(
        run(&mut s, c, "COMMAND HELP"),
        Reply::Array(lines.iter().map(|l| Reply::Status((*l).to_owned())).collect())
    );
}
