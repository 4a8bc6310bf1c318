//! INFO: the sections StreamLab reports (server, clients, keyspace), split from the other
//! server commands.

use super::*;

/// The sections StreamLab reports, in Redis's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Section {
    Server,
    Clients,
    Keyspace,
}

/// INFO: the `server` and `keyspace` sections (also what `default`, `all` and `everything`
/// give; Redis's other sections describe a process StreamLab does not have). Unknown section
/// names are ignored, so a request for nothing known answers an empty string, as Redis does.
pub(super) fn info(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut wanted = Vec::new();
    if args.len() == 1 {
        wanted = vec![Section::Server, Section::Clients, Section::Keyspace];
    }
    for arg in rest(args, 1) {
        if is(arg, "server") {
            wanted.push(Section::Server);
        } else if is(arg, "clients") {
            wanted.push(Section::Clients);
        } else if is(arg, "keyspace") {
            wanted.push(Section::Keyspace);
        } else if is(arg, "default") || is(arg, "all") || is(arg, "everything") {
            wanted.extend([Section::Server, Section::Clients, Section::Keyspace]);
        }
    }
    let mut sections = Vec::new();
    for section in [Section::Server, Section::Clients, Section::Keyspace] {
        // Without the `host` feature (the grader, which serves no clients) the clients
        // section is left out, as an unknown section is.
        if wanted.contains(&section) && (section != Section::Clients || cfg!(feature = "host")) {
            sections.push(match section {
                Section::Server => server_section(ctx),
                Section::Clients => clients_section(ctx),
                Section::Keyspace => keyspace_section(ctx),
            });
        }
    }
    Ok(Reply::Verbatim { format: *b"txt", text: sections.join("\r\n").into_bytes() }.into())
}

/// The server section in the profile's layout: Redis's fields, or Valkey's (whose
/// `redis_version` stays at the Redis version it forked from, 7.2.4, with its own version in
/// `valkey_version`; field set as Valkey 9.1.2 prints it). Fixed runs of fields are written as
/// one literal each: a `(name, value)` list of owned strings cost the wasm bundles more code.
fn server_section(ctx: &Ctx<'_>) -> String {
    let caps = ctx.caps;
    let valkey = caps.info == InfoStyle::Valkey;
    let uptime = (ctx.now - ctx.started_at).max(0) / 1000;
    let mut out = String::from("# Server\r\n");
    field(&mut out, "redis_version", caps.redis_version);
    if valkey {
        out.push_str("server_name:valkey\r\n");
        field(&mut out, "valkey_version", caps.version);
        out.push_str("valkey_release_stage:ga\r\n");
    }
    out.push_str("redis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:0000000000000000\r\n");
    out.push_str(if valkey { "server_mode:standalone\r\n" } else { "redis_mode:standalone\r\n" });
    field(&mut out, "os", &format!("StreamLab {} {}", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH));
    out.push_str("arch_bits:64\r\nmonotonic_clock:POSIX clock_gettime\r\nmultiplexing_api:epoll\r\n");
    if !valkey {
        out.push_str("atomicvar_api:c11-builtin\r\n");
    }
    out.push_str("gcc_version:0.0.0\r\n");
    #[cfg(feature = "host")]
    field(&mut out, "process_id", &ctx.process.process_id.to_string());
    #[cfg(not(feature = "host"))]
    out.push_str("process_id:1\r\n");
    out.push_str("process_supervised:no\r\n");
    field(&mut out, "run_id", RUN_ID);
    #[cfg(feature = "host")]
    field(&mut out, "tcp_port", &ctx.process.tcp_port.to_string());
    #[cfg(not(feature = "host"))]
    out.push_str("tcp_port:6379\r\n");
    field(&mut out, "server_time_usec", &micros(ctx.now));
    field(&mut out, "uptime_in_seconds", &uptime.to_string());
    field(&mut out, "uptime_in_days", &(uptime / 86_400).to_string());
    out.push_str("hz:10\r\nconfigured_hz:10\r\n");
    if valkey {
        out.push_str("clients_hz:10\r\n");
    }
    // The LRU clock: Unix seconds in 24 bits.
    field(&mut out, "lru_clock", &(ctx.now.div_euclid(1000) & 0xff_ffff).to_string());
    #[cfg(feature = "host")]
    {
        field(&mut out, "executable", &ctx.process.executable);
        field(&mut out, "config_file", &ctx.process.config_file);
    }
    #[cfg(not(feature = "host"))]
    out.push_str("executable:\r\nconfig_file:\r\n");
    out.push_str("io_threads_active:0\r\n");
    if valkey {
        out.push_str("availability_zone:\r\n");
    }
    // Without a host (the grader) the listener is Redis's default one.
    #[cfg(feature = "host")]
    for (i, listener) in ctx.process.listeners.iter().enumerate() {
        field(&mut out, &format!("listener{i}"), listener);
    }
    #[cfg(not(feature = "host"))]
    out.push_str("listener0:name=tcp,bind=*,bind=-::*,port=6379\r\n");
    out
}

/// The clients section, field for field as Redis 8.2.3 and Valkey 9.1.2 print it. What has no
/// meaning here (cluster links, client-side caching, the recent peaks of query and reply
/// buffers, which no host measures) is 0.
fn clients_section(ctx: &Ctx<'_>) -> String {
    let counts = ctx.clients.counts.unwrap_or_default();
    let mut out = String::from("# Clients\r\n");
    // One loop over the fields rather than a call per field: less wasm.
    for (name, value) in [
        ("connected_clients", counts.connected),
        ("cluster_connections", 0),
        ("maxclients", ctx.clients.maxclients),
        ("client_recent_max_input_buffer", 0),
        ("client_recent_max_output_buffer", 0),
        ("blocked_clients", counts.blocked),
        ("tracking_clients", 0),
        ("pubsub_clients", counts.pubsub),
        ("watching_clients", counts.watching),
        ("clients_in_timeout_table", counts.in_timeout_table),
        ("total_watched_keys", counts.watched_keys),
        ("total_blocking_keys", counts.blocking_keys),
        ("total_blocking_keys_on_nokey", counts.blocking_keys_on_nokey),
    ] {
        field(&mut out, name, &value.to_string());
    }
    if ctx.caps.info == InfoStyle::Valkey {
        let (reason, actions, left) = match counts.write_paused {
            Some(left) => ("client_pause", "write", left),
            None => ("none", "none", 0),
        };
        field(&mut out, "paused_reason", reason);
        field(&mut out, "paused_actions", actions);
        field(&mut out, "paused_timeout_milliseconds", &left.to_string());
    }
    out
}

/// One `name:value` line of a section (a section is its `# Title` line and such lines, each
/// ended by CRLF).
fn field(out: &mut String, name: &str, value: &str) {
    out.push_str(name);
    out.push(':');
    out.push_str(value);
    out.push_str("\r\n");
}

/// A fixed run id ("StreamLab" in hex, padded to Redis's 40 characters).
const RUN_ID: &str = "53747265616d4c61620000000000000000000000";

/// Milliseconds as microseconds, exact for any clock: the digits with three zeros added, not
/// a multiplication that could overflow (nor i128: ARCHITECTURE.md, "Wasm budget").
pub(super) fn micros(ms: i64) -> String {
    if ms == 0 {
        "0".to_owned()
    } else {
        format!("{ms}000")
    }
}

/// The floor of the mean of times-to-live (none negative), exact without a sum that could
/// overflow: the sum of each one's quotient by the count, plus the sum of the remainders
/// (each below the count) divided by the count. 0 for none.
pub(super) fn mean(ttls: &[i64]) -> i64 {
    let n = ttls.len() as u64;
    if n == 0 {
        return 0;
    }
    let (mut whole, mut rest) = (0u64, 0u64);
    for &t in ttls {
        let t = t.max(0) as u64;
        whole += t / n;
        rest += t % n;
    }
    (whole + rest / n) as i64
}

/// `db0:keys=N,expires=M,avg_ttl=T,subexpiry=0`, only when the database has keys. Redis
/// estimates `avg_ttl` by sampling; StreamLab gives the exact mean of the remaining
/// times-to-live in milliseconds. `subexpiry` counts hash fields with expiries: always 0.
fn keyspace_section(ctx: &Ctx<'_>) -> String {
    let mut out = String::from("# Keyspace\r\n");
    if !ctx.db.is_empty() {
        let mut ttls = Vec::new();
        for (key, _) in ctx.db.iter() {
            if let Some(at) = ctx.db.expiry(key) {
                ttls.push((at - ctx.now).max(0));
            }
        }
        let avg = mean(&ttls);
        // Valkey counts keys with expiring items where Redis counts hash fields with expiries.
        let last = if ctx.caps.info == InfoStyle::Valkey { "keys_with_volatile_items" } else { "subexpiry" };
        field(&mut out, "db0", &format!("keys={},expires={},avg_ttl={avg},{last}=0", ctx.db.len(), ttls.len()));
    }
    out
}
