//! Server commands: ECHO, TIME, DBSIZE, INFO, CONFIG and COMMAND.
//!
//! Everything here answers from the keyspace, its settings and the command's clock reading, so
//! replies are as deterministic as the rest of the engine.

use streamlab_engine::{canonical_i64, glob_match, StreamConfig};

use super::{arg, available, is, lookup_in, rest, Clients, CommandSpec, Ctx, Outcome, Run, SubSpec, HELP_SUBCOMMAND};
use crate::error::{CmdError, Msg};
use crate::profile::{Capabilities, InfoStyle};
use crate::reply::Reply;

/// The server commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "echo",
        arity: 2,
        write: false,
        syntax: "message",
        summary: "Returns the given string.",
        since: "1.0.0",
        group: "connection",
        subcommands: &[],
        run: Run::Data(echo),
    },
    CommandSpec {
        name: "time",
        arity: 1,
        write: false,
        syntax: "",
        summary: "Returns the server time.",
        since: "2.6.0",
        group: "server",
        subcommands: &[],
        run: Run::Data(time),
    },
    CommandSpec {
        name: "dbsize",
        arity: 1,
        write: false,
        syntax: "",
        summary: "Returns the number of keys in the database.",
        since: "1.0.0",
        group: "server",
        subcommands: &[],
        run: Run::Data(dbsize),
    },
    CommandSpec {
        name: "info",
        arity: -1,
        write: false,
        syntax: "[section [section ...]]",
        summary: "Returns information and statistics about the server.",
        since: "1.0.0",
        group: "server",
        subcommands: &[],
        run: Run::Data(info),
    },
    CommandSpec {
        name: "config",
        arity: -2,
        write: false,
        syntax: "<subcommand> [arg ...]",
        summary: "A container for server configuration commands.",
        since: "2.0.0",
        group: "server",
        subcommands: &[
            SubSpec {
                name: "get",
                since: "2.0.0",
                arity: -3,
                syntax: "parameter [parameter ...]",
                summary: "Returns the effective values of configuration parameters.",
            },
            SubSpec {
                name: "set",
                since: "2.0.0",
                arity: -4,
                syntax: "parameter value [parameter value ...]",
                summary: "Sets configuration parameters in-flight.",
            },
            SubSpec {
                name: "resetstat",
                since: "2.0.0",
                arity: 2,
                syntax: "",
                summary: "Resets the server's statistics.",
            },
            SubSpec {
                name: "rewrite",
                since: "2.8.0",
                arity: 2,
                syntax: "",
                summary: "Persists the effective configuration to file.",
            },
            HELP_SUBCOMMAND,
        ],
        run: Run::Data(config),
    },
    CommandSpec {
        name: "command",
        arity: -1,
        write: false,
        syntax: "[<subcommand> [arg ...]]",
        summary: "Returns detailed information about all commands.",
        since: "2.8.13",
        group: "server",
        subcommands: &[
            SubSpec { name: "count", since: "2.8.13", arity: 2, syntax: "", summary: "Returns a count of commands." },
            SubSpec {
                name: "docs",
                since: "7.0.0",
                arity: -2,
                syntax: "[command-name [command-name ...]]",
                summary: "Returns documentary information about one, multiple or all commands.",
            },
            SubSpec {
                name: "info",
                since: "2.8.13",
                arity: -2,
                syntax: "[command-name [command-name ...]]",
                summary: "Returns information about one, multiple or all commands.",
            },
            HELP_SUBCOMMAND,
        ],
        run: Run::Data(command),
    },
];

// ----- ECHO / TIME / DBSIZE -----------------------------------------------------------------

fn echo(_ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    Ok(Reply::Bulk(arg(args, 1).clone()).into())
}

/// TIME: the command's clock reading as Unix seconds and the microseconds within that second.
fn time(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let secs = ctx.now.div_euclid(1000);
    let micros = ctx.now.rem_euclid(1000) * 1000;
    Ok(Reply::Array(vec![Reply::bulk(secs.to_string()), Reply::bulk(micros.to_string())]).into())
}

fn dbsize(ctx: &mut Ctx<'_>, _args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    Ok(Reply::Integer(ctx.db.len() as i64).into())
}

/// Status lines of a HELP reply: the header, the given lines, then HELP's own entry.
fn help_reply(command: &str, lines: &[&str]) -> Reply {
    let header = format!("{command} <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    let mut out = vec![Reply::Status(header)];
    out.extend(lines.iter().map(|l| Reply::Status((*l).to_owned())));
    out.push(Reply::Status("HELP".to_owned()));
    out.push(Reply::Status("    Print this help.".to_owned()));
    Reply::Array(out)
}

mod info;
use info::info;
#[cfg(test)]
use info::{mean, micros};

// ----- CONFIG -------------------------------------------------------------------------------

/// The parameters CONFIG knows, in the order CONFIG GET lists them.
///
/// The two stream settings are real and shape how streams are stored. The others are answered
/// so that clients asking for them get sensible values for a server without persistence,
/// eviction or extra databases; they can only be "set" to the value they already have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Param {
    Save,
    AppendOnly,
    Databases,
    MaxMemoryPolicy,
    MaxClients,
    NodeMaxEntries,
    NodeMaxBytes,
}

const PARAMS: &[(&str, Param)] = &[
    ("save", Param::Save),
    ("appendonly", Param::AppendOnly),
    ("databases", Param::Databases),
    ("maxmemory-policy", Param::MaxMemoryPolicy),
    ("maxclients", Param::MaxClients),
    ("stream-node-max-entries", Param::NodeMaxEntries),
    ("stream-node-max-bytes", Param::NodeMaxBytes),
];

/// The eviction policies Redis accepts, in the order its error message lists them (CONFIG
/// SET here, `--maxmemory-policy` in the server's command line).
pub const POLICIES: &[&str] = &[
    "volatile-lru",
    "volatile-lfu",
    "volatile-random",
    "volatile-ttl",
    "allkeys-lru",
    "allkeys-lfu",
    "allkeys-random",
    "noeviction",
];

/// The error for an eviction policy not in [`POLICIES`], which it lists (CONFIG SET here,
/// `--maxmemory-policy` in the server's command line). Spelled out because a `const` cannot
/// join strings; a test checks that it is built from `POLICIES`.
pub const POLICY_ERROR: &str = "argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction";

const IMMUTABLE: &str = "can't set immutable config";

/// A configuration parameter its host owns (the network server's `proto-max-bulk-len` and
/// buffer limits): CONFIG GET lists it after the session's own parameters, and CONFIG SET
/// checks its name and value in turn with theirs and stores the new value, or changes nothing.
/// Only with the crate's `host-params` feature, which the server turns on: the browser
/// builds carry none of this code.
#[derive(Debug, Clone)]
pub struct HostParam {
    /// The name, lowercase.
    pub name: &'static str,
    /// The value as CONFIG GET shows it.
    pub value: String,
    /// Checks a new value given the current one: the value to store, or the reason part of
    /// Redis's error.
    pub check: fn(current: &str, new: &[u8]) -> Result<String, &'static str>,
    /// How many times CONFIG SET changed it.
    pub changes: u64,
}

/// What a CONFIG SET name refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    Session(Param),
    #[cfg(feature = "host-params")]
    Host(usize),
}

/// The name a CONFIG GET pattern shows `name` under, if it matches: as typed when named
/// exactly (ignoring case), its own name when found by a glob (matched ignoring case).
fn shown_as(patterns: &[Vec<u8>], name: &str) -> Option<Vec<u8>> {
    patterns.iter().find_map(|p| {
        if p.eq_ignore_ascii_case(name.as_bytes()) {
            Some(p.clone())
        } else if glob_match(&p.to_ascii_lowercase(), name.as_bytes()) {
            Some(name.as_bytes().to_vec())
        } else {
            None
        }
    })
}

impl Param {
    fn find(name: &[u8]) -> Option<(&'static str, Param)> {
        PARAMS.iter().copied().find(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name))
    }

    fn value(self, config: &StreamConfig, clients: &Clients) -> String {
        match self {
            Param::MaxClients => clients.maxclients.to_string(),
            Param::Save => String::new(),
            Param::AppendOnly => "no".to_owned(),
            Param::Databases => "16".to_owned(),
            Param::MaxMemoryPolicy => "noeviction".to_owned(),
            Param::NodeMaxEntries => config.node_max_entries.to_string(),
            Param::NodeMaxBytes => config.node_max_bytes.to_string(),
        }
    }

    /// Reads a new value, or says why not (the reason part of Redis's error).
    fn parse(self, value: &[u8]) -> Result<Setting, &'static str> {
        match self {
            Param::MaxClients => {
                // Redis's wording for each way a value can be wrong, as 8.2.3 answers.
                let n = canonical_i64(value).ok_or("argument couldn't be parsed into an integer")?;
                if n < 0 {
                    return Err("argument must be greater or equal to 0");
                }
                if n == 0 || n > i64::from(u32::MAX) {
                    return Err("argument must be between 1 and 4294967295 inclusive");
                }
                Ok(Setting::MaxClients(n as u64))
            }
            Param::NodeMaxEntries => {
                let n = canonical_i64(value).ok_or("argument couldn't be parsed into an integer")?;
                if n < 0 {
                    return Err("argument must be between 0 and 9223372036854775807 inclusive");
                }
                Ok(Setting::NodeMaxEntries(n as u64))
            }
            Param::NodeMaxBytes => {
                let n = parse_memory(value).ok_or("argument must be a memory value")?;
                if n > i64::MAX as u64 {
                    return Err("argument must be greater or equal to 0");
                }
                Ok(Setting::NodeMaxBytes(n))
            }
            Param::Save => {
                if !value.is_empty() {
                    let parts: Vec<&[u8]> = value.split(|&b| b == b' ').collect();
                    let valid = parts.chunks_exact(2).remainder().is_empty()
                        && parts.iter().all(|p| canonical_i64(p).is_some_and(|n| n >= 0));
                    return Err(if valid { IMMUTABLE } else { "Invalid save parameters" });
                }
                Ok(Setting::Unchanged)
            }
            Param::AppendOnly => {
                if is(value, "no") {
                    Ok(Setting::Unchanged)
                } else if is(value, "yes") {
                    Err(IMMUTABLE)
                } else {
                    Err("argument must be 'yes' or 'no'")
                }
            }
            Param::MaxMemoryPolicy => match POLICIES.iter().find(|p| is(value, p)) {
                Some(&"noeviction") => Ok(Setting::Unchanged),
                Some(_) => Err(IMMUTABLE),
                None => Err(POLICY_ERROR),
            },
            Param::Databases => Err(IMMUTABLE),
        }
    }
}

/// A validated CONFIG SET change.
#[derive(Debug, Clone)]
enum Setting {
    MaxClients(u64),
    NodeMaxEntries(u64),
    NodeMaxBytes(u64),
    /// A fixed parameter set to the value it has.
    Unchanged,
    /// A host-owned parameter's new value.
    #[cfg(feature = "host-params")]
    Host(usize, String),
}

/// Reads a memory amount as Redis's configuration does: decimal digits (possibly none,
/// meaning 0) and an optional unit `b`, `k` (1000), `kb` (1024), `m`, `mb`, `g`, `gb` in any
/// case. Digits that overflow count as the largest 64-bit number and a unit wraps around;
/// callers then treat results above `i64::MAX` as negative.
pub fn parse_memory(text: &[u8]) -> Option<u64> {
    let split = text.iter().position(|b| !b.is_ascii_digit()).unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let multiplier: u64 = match unit.to_ascii_lowercase().as_slice() {
        b"" | b"b" => 1,
        b"k" => 1000,
        b"kb" => 1024,
        b"m" => 1000 * 1000,
        b"mb" => 1024 * 1024,
        b"g" => 1000 * 1000 * 1000,
        b"gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10).and_then(|n| n.checked_add(u64::from(d - b'0'))).unwrap_or(u64::MAX);
    }
    Some(n.wrapping_mul(multiplier))
}

fn config(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let sub = arg(args, 1);
    if is(sub, "get") {
        config_get(ctx, rest(args, 2))
    } else if is(sub, "set") {
        config_set(ctx, rest(args, 2))
    } else if is(sub, "resetstat") {
        // StreamLab keeps no statistics.
        Ok(Reply::ok().into())
    } else if is(sub, "rewrite") {
        Err(Msg::NoConfigFile.into())
    } else {
        Ok(help_reply(
            "CONFIG",
            &[
                "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>",
                "    Set the configuration <directive> to <value>.",
                "RESETSTAT",
                "    Reset statistics reported by the INFO command.",
                "REWRITE",
                "    Rewrite the configuration file.",
            ],
        )
        .into())
    }
}

/// CONFIG GET: every parameter that some pattern names, once, in table order (Redis's order
/// follows its hash table). A parameter named exactly (ignoring case) is listed as typed;
/// one found by a glob (matched ignoring case) under its own name. The first pattern that
/// finds a parameter decides. RESP3 gets a map.
fn config_get(ctx: &mut Ctx<'_>, patterns: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut out = Vec::new();
    for &(name, param) in PARAMS {
        if let Some(shown) = shown_as(patterns, name) {
            out.push((Reply::Bulk(shown), Reply::bulk(param.value(&ctx.db.config, ctx.clients))));
        }
    }
    #[cfg(feature = "host-params")]
    for param in ctx.host.iter() {
        if let Some(shown) = shown_as(patterns, param.name) {
            out.push((Reply::Bulk(shown), Reply::bulk(param.value.clone())));
        }
    }
    Ok(Reply::Map(out).into())
}

/// CONFIG SET: all names are checked first (unknown, immutable, repeated), then all values,
/// then everything is applied, so a failing call changes nothing.
fn config_set(ctx: &mut Ctx<'_>, pairs: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    if !pairs.chunks_exact(2).remainder().is_empty() {
        return Err(CmdError::Syntax);
    }
    let mut named: Vec<(&'static str, Target, &[u8])> = Vec::new();
    for pair in pairs.chunks(2) {
        let (name, value) = (&pair[0], &pair[1]);
        let found = match Param::find(name) {
            Some((canonical, param)) => Some((canonical, Target::Session(param))),
            #[cfg(feature = "host-params")]
            None => ctx
                .host
                .iter()
                .position(|p| p.name.as_bytes().eq_ignore_ascii_case(name))
                .map(|i| (ctx.host[i].name, Target::Host(i))),
            #[cfg(not(feature = "host-params"))]
            None => None,
        };
        let Some((canonical, target)) = found else { return Err(CmdError::ConfigUnknown(name.clone())) };
        if target == Target::Session(Param::Databases) {
            return Err(CmdError::ConfigSetFailed { name: name.clone(), reason: IMMUTABLE });
        }
        if named.iter().any(|&(_, t, _)| t == target) {
            return Err(CmdError::ConfigSetFailed { name: name.clone(), reason: "duplicate parameter" });
        }
        named.push((canonical, target, value));
    }
    let mut settings = Vec::new();
    for (canonical, target, value) in named {
        let setting = match target {
            Target::Session(param) => param.parse(value),
            #[cfg(feature = "host-params")]
            Target::Host(i) => (ctx.host[i].check)(&ctx.host[i].value, value).map(|v| Setting::Host(i, v)),
        };
        let setting =
            setting.map_err(|reason| CmdError::ConfigSetFailed { name: canonical.as_bytes().to_vec(), reason })?;
        if let Setting::MaxClients(n) = setting {
            if n > ctx.clients.ceiling {
                // Checked before anything is applied, like the other values.
                return Err(CmdError::MaxClientsOverLimit(ctx.clients.maxclients));
            }
        }
        settings.push(setting);
    }
    for setting in settings {
        match setting {
            Setting::MaxClients(n) => ctx.clients.maxclients = n,
            Setting::NodeMaxEntries(n) => ctx.db.config.node_max_entries = n,
            Setting::NodeMaxBytes(n) => ctx.db.config.node_max_bytes = n,
            Setting::Unchanged => {}
            #[cfg(feature = "host-params")]
            Setting::Host(i, value) => {
                ctx.host[i].value = value;
                ctx.host[i].changes += 1;
            }
        }
    }
    Ok(Reply::ok().into())
}

// ----- COMMAND ------------------------------------------------------------------------------

fn command(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let caps = ctx.caps;
    let Some(sub) = args.get(1) else { return Ok(all_infos(caps).into()) };
    let names = rest(args, 2);
    if is(sub, "count") {
        Ok(Reply::Integer(available(caps).count() as i64).into())
    } else if is(sub, "docs") {
        Ok(command_docs(ctx, names).into())
    } else if is(sub, "info") {
        if names.is_empty() {
            return Ok(all_infos(caps).into());
        }
        let mut infos = Vec::new();
        for name in names {
            infos.push(lookup_in(caps, name).map_or(Reply::NullBulk, command_info));
        }
        Ok(Reply::Array(infos).into())
    } else {
        Ok(help_reply(
            "COMMAND",
            &[
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
            ],
        )
        .into())
    }
}

/// COMMAND INFO for every command the profile has (a loop: collected adapter chains are
/// each their own code in the wasm bundles).
fn all_infos(caps: &Capabilities) -> Reply {
    let mut infos = Vec::new();
    for spec in available(caps) {
        infos.push(command_info(spec));
    }
    Reply::Array(infos)
}

/// COMMAND DOCS: a map from each named command (every command when none is named; unknown
/// names skipped, repeated names repeated, as Redis does) to its summary, since and group,
/// and its subcommands' docs.
///
/// Omitted compared with Redis: `complexity`, `history`, `doc_flags`, `deprecated_since`,
/// `replaced_by` and `arguments` (the command table does not carry them), and `since` for
/// subcommands (the table records it per command only).
fn command_docs(ctx: &Ctx<'_>, names: &[Vec<u8>]) -> Reply {
    let caps = ctx.caps;
    // Plain loops (each collected adapter chain is its own code in the wasm bundles).
    let mut docs = Vec::new();
    let mut add = |spec: &CommandSpec| {
        let mut doc = vec![
            (Reply::bulk("summary"), Reply::bulk(spec.summary)),
            (Reply::bulk("since"), Reply::bulk(spec.since)),
            (Reply::bulk("group"), Reply::bulk(spec.group)),
        ];
        if !spec.subcommands.is_empty() {
            let mut subs = Vec::new();
            for sub in spec.subcommands {
                let sub_doc = vec![
                    (Reply::bulk("summary"), Reply::bulk(sub.summary)),
                    (Reply::bulk("group"), Reply::bulk(spec.group)),
                ];
                subs.push((Reply::bulk(format!("{}|{}", spec.name, sub.name)), Reply::Map(sub_doc)));
            }
            doc.push((Reply::bulk("subcommands"), Reply::Map(subs)));
        }
        docs.push((Reply::bulk(spec.name), Reply::Map(doc)));
    };
    if names.is_empty() {
        for spec in available(caps) {
            add(spec);
        }
    } else {
        for name in names {
            if let Some(spec) = lookup_in(caps, name) {
                add(spec);
            }
        }
    }
    Reply::Map(docs)
}

/// Where a syntax line puts its keys: `(first, last, step)` counted from the word after the
/// command (or subcommand) name, as COMMAND INFO reports them; keys found only after a
/// keyword (XREAD's STREAMS) are not reported, as Redis does for its "movable" keys.
fn key_positions(syntax: &str, offset: i64) -> (i64, i64, i64) {
    let mut words = syntax.split_whitespace();
    if words.next() != Some("key") {
        return (0, 0, 0);
    }
    let last = if words.next() == Some("[key") { -1 } else { offset };
    (offset, last, 1)
}

/// One COMMAND INFO entry: name, arity, flags, first key, last key, key step, ACL categories,
/// tips, key specifications, subcommands.
///
/// Approximations: flags are only `write`/`readonly` (for commands with keys) and the ACL
/// categories only `@write`/`@read` and the group's category; Redis's finer flags (`fast`,
/// `denyoom`, `loading`, ...), its tips and its key specifications are not modelled.
fn command_info(spec: &CommandSpec) -> Reply {
    let (first, last, step) = key_positions(spec.syntax, 1);
    let mut subs = Vec::new();
    for sub in spec.subcommands {
        subs.push(subcommand_info(spec, sub));
    }
    let subs = if subs.is_empty() { Reply::Set(Vec::new()) } else { Reply::Array(subs) };
    info_entry(spec.name.to_owned(), spec.arity, spec.write, spec.group, (first, last, step), subs)
}

fn subcommand_info(parent: &CommandSpec, sub: &SubSpec) -> Reply {
    let positions = key_positions(sub.syntax, 2);
    let name = format!("{}|{}", parent.name, sub.name);
    info_entry(name, sub.arity, parent.write, parent.group, positions, Reply::Set(Vec::new()))
}

fn info_entry(name: String, arity: i32, write: bool, group: &str, keys: (i64, i64, i64), subs: Reply) -> Reply {
    let has_keys = keys.0 != 0;
    let status = |s: &str| Reply::Status(s.to_owned());
    let mut flags = Vec::new();
    let mut categories = Vec::new();
    if has_keys {
        flags.push(status(if write { "write" } else { "readonly" }));
        categories.push(status(if write { "@write" } else { "@read" }));
    }
    let category = match group {
        "generic" => Some("@keyspace"),
        "string" => Some("@string"),
        "stream" => Some("@stream"),
        "connection" => Some("@connection"),
        "pubsub" => Some("@pubsub"),
        "transactions" => Some("@transaction"),
        _ => None,
    };
    categories.extend(category.map(status));
    Reply::Array(vec![
        Reply::bulk(name),
        Reply::Integer(i64::from(arity)),
        Reply::Set(flags),
        Reply::Integer(keys.0),
        Reply::Integer(keys.1),
        Reply::Integer(keys.2),
        Reply::Set(categories),
        Reply::Set(Vec::new()),
        Reply::Set(Vec::new()),
        subs,
    ])
}

#[cfg(test)]
mod tests;
