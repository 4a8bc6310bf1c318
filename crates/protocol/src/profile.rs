//! Server profiles: which server, at which version, a session answers as.
//!
//! Every difference between the servers StreamLab imitates is decided here, in one table
//! ([`PROFILES`]): which commands and options exist, how their absence looks, and the
//! behaviours that changed between versions. Handlers ask the session's [`Capabilities`]
//! instead of comparing version numbers.
//!
//! Provenance of each row: `redis-7.4` (7.4.1), `redis-8.2` (8.2.3) and `valkey-9` (9.1.2)
//! were observed on those servers (see `tests/transcripts/profile-*.txt`). `redis-8.4` to
//! `redis-8.10` add features known only from the Redis documentation: every behaviour that
//! only they have is **docs-only, unverified on a server**, and so are the version strings
//! they report.

use std::fmt;
use std::str::FromStr;

use streamlab_engine::CounterRules;

/// A server a session can answer as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Profile {
    /// Redis 7.4.
    Redis74,
    /// Redis 8.2: deletion policies (KEEPREF/DELREF/ACKED), XACKDEL, XDELEX.
    Redis82,
    /// Redis 8.4: XREADGROUP ... CLAIM.
    Redis84,
    /// Redis 8.6: XADD IDMP/IDMPAUTO, XCFGSET.
    Redis86,
    /// Redis 8.8: XNACK.
    Redis88,
    /// Redis 8.10: MAXCOUNT / MAXSIZE on XREAD and XREADGROUP. The default.
    #[default]
    Redis810,
    /// Valkey 9.
    Valkey9,
}

/// How `XREAD ... +` picks "the last entry".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlusRule {
    /// The newest live entry, even when the newest entry ever added was deleted (Redis 8.2).
    NewestLive,
    /// Entries after last-generated-id minus one: nothing once the newest entry was deleted
    /// (Redis 7.4, Valkey 9).
    LastGenerated,
}

/// Which INFO server section a profile prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InfoStyle {
    /// Redis's fields (`redis_version`, `redis_mode`, `atomicvar_api`, ...).
    Redis,
    /// Valkey's fields: `redis_version` frozen at the Redis version it forked from, then
    /// `server_name`, `valkey_version`, `valkey_release_stage`, `server_mode`, ...
    Valkey,
}

/// A module HELLO lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Module {
    /// Its name.
    pub name: &'static str,
    /// Its version number.
    pub ver: i64,
    /// Its path.
    pub path: &'static str,
}

/// Everything a profile decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// The profile.
    pub profile: Profile,
    /// Its name, as `--profile` and `:profile` take it.
    pub name: &'static str,
    /// HELLO's `server`.
    pub server: &'static str,
    /// HELLO's `version` (and INFO's `redis_version` for Redis, `valkey_version` for Valkey).
    pub version: &'static str,
    /// INFO's `redis_version` line.
    pub redis_version: &'static str,
    /// INFO server's layout.
    pub info: InfoStyle,
    /// HELLO's `modules`.
    pub modules: &'static [Module],
    /// Redis 8.2: KEEPREF/DELREF/ACKED on XADD and XTRIM, XACKDEL, XDELEX. Without them
    /// XACKDEL/XDELEX are unknown commands, a policy token on XADD is read as the id (invalid
    /// stream id) and on XTRIM is a syntax error (observed on 7.4 and Valkey 9).
    pub ref_policies: bool,
    /// Redis 8.4: XREADGROUP ... CLAIM (without it: `ERR syntax error`, observed on 8.2).
    pub read_claim: bool,
    /// Redis 8.6: XADD IDMP/IDMPAUTO, XCFGSET and the XINFO STREAM IDMP fields (without it the
    /// token is read as the id: invalid stream id; XCFGSET is unknown; observed on 8.2).
    pub idmp: bool,
    /// Redis 8.8: XNACK and XINFO STREAM FULL's `nacked-count` (without it: unknown command,
    /// observed on 8.2).
    pub xnack: bool,
    /// Redis 8.10: MAXCOUNT / MAXSIZE on XREAD and XREADGROUP (without it: `ERR syntax error`,
    /// observed on 8.2).
    pub read_caps: bool,
    /// How groups' entries-read and lag are kept (and whether ENTRIESREAD is clamped).
    pub counters: CounterRules,
    /// What `XREAD ... +` reads.
    pub xread_plus: PlusRule,
    /// Whether XREAD's unbalanced-STREAMS error mentions `'+'` (Redis 8.2+).
    pub unbalanced_mentions_plus: bool,
    /// Valkey: MULTI or WATCH inside MULTI is refused as "not allowed inside a transaction"
    /// and fails the transaction; Redis keeps it open with its own errors.
    pub strict_multi: bool,
}

const VECTORSET: &[Module] = &[Module { name: "vectorset", ver: 1, path: "" }];
const LUA: &[Module] = &[Module { name: "lua", ver: 1, path: "lua" }];

const REDIS_82: Capabilities = Capabilities {
    profile: Profile::Redis82,
    name: "redis-8.2",
    server: "redis",
    version: "8.2.3",
    redis_version: "8.2.3",
    info: InfoStyle::Redis,
    modules: VECTORSET,
    ref_policies: true,
    read_claim: false,
    idmp: false,
    xnack: false,
    read_caps: false,
    counters: CounterRules::Redis82,
    xread_plus: PlusRule::NewestLive,
    unbalanced_mentions_plus: true,
    strict_multi: false,
};

/// The profile table, one row per profile, oldest Redis first.
pub const PROFILES: [Capabilities; 7] = [
    Capabilities {
        profile: Profile::Redis74,
        name: "redis-7.4",
        version: "7.4.1",
        redis_version: "7.4.1",
        modules: &[],
        ref_policies: false,
        counters: CounterRules::Redis74,
        xread_plus: PlusRule::LastGenerated,
        unbalanced_mentions_plus: false,
        ..REDIS_82
    },
    REDIS_82,
    // Versions 8.4 to 8.10 are documented, not observed: their version strings are the
    // release's first, and every behaviour only they have is docs-only.
    Capabilities {
        profile: Profile::Redis84,
        name: "redis-8.4",
        version: "8.4.0",
        redis_version: "8.4.0",
        read_claim: true,
        ..REDIS_82
    },
    Capabilities {
        profile: Profile::Redis86,
        name: "redis-8.6",
        version: "8.6.0",
        redis_version: "8.6.0",
        read_claim: true,
        idmp: true,
        ..REDIS_82
    },
    Capabilities {
        profile: Profile::Redis88,
        name: "redis-8.8",
        version: "8.8.0",
        redis_version: "8.8.0",
        read_claim: true,
        idmp: true,
        xnack: true,
        ..REDIS_82
    },
    Capabilities {
        profile: Profile::Redis810,
        name: "redis-8.10",
        version: "8.10.0",
        redis_version: "8.10.0",
        read_claim: true,
        idmp: true,
        xnack: true,
        read_caps: true,
        ..REDIS_82
    },
    Capabilities {
        profile: Profile::Valkey9,
        name: "valkey-9",
        server: "valkey",
        version: "9.1.2",
        redis_version: "7.2.4",
        info: InfoStyle::Valkey,
        modules: LUA,
        ref_policies: false,
        counters: CounterRules::Valkey9,
        xread_plus: PlusRule::LastGenerated,
        unbalanced_mentions_plus: false,
        strict_multi: true,
        ..REDIS_82
    },
];

impl Profile {
    /// Every profile, in table order.
    pub const ALL: [Profile; 7] = [
        Profile::Redis74,
        Profile::Redis82,
        Profile::Redis84,
        Profile::Redis86,
        Profile::Redis88,
        Profile::Redis810,
        Profile::Valkey9,
    ];

    /// The profile's row of the table.
    pub fn caps(self) -> &'static Capabilities {
        // The rows are in the enum's order (a test checks it): an index, not a search that
        // could fail (its panic path is wasm weight).
        &PROFILES[self as usize]
    }

    /// Its name (`redis-8.10`).
    pub fn name(self) -> &'static str {
        self.caps().name
    }

    /// Every profile name, for messages.
    pub fn names() -> String {
        Profile::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A profile name that is not in the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownProfile(pub String);

impl fmt::Display for UnknownProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown profile '{}': use one of {}", self.0, Profile::names())
    }
}

impl std::error::Error for UnknownProfile {}

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(s)).ok_or_else(|| UnknownProfile(s.to_owned()))
    }
}

impl Capabilities {
    /// Whether a command (lower-case name) exists under this profile. Commands newer than the
    /// profile answer the unknown-command error, before any arity check, as older servers do.
    pub fn has_command(&self, name: &str) -> bool {
        match name {
            "xackdel" | "xdelex" => self.ref_policies,
            "xcfgset" => self.idmp,
            "xnack" => self.xnack,
            _ => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_the_default_is_the_newest_redis() {
        for profile in Profile::ALL {
            assert_eq!(profile.name().parse::<Profile>(), Ok(profile));
            assert_eq!(profile.caps().profile, profile);
        }
        assert_eq!(Profile::default(), Profile::Redis810);
        assert!("redis-9".parse::<Profile>().is_err());
    }

    #[test]
    fn features_arrive_in_version_order() {
        let redis: Vec<&Capabilities> = PROFILES.iter().filter(|c| c.server == "redis").collect();
        for pair in redis.windows(2) {
            let (old, new) = (pair[0], pair[1]);
            for (was, is) in [
                (old.ref_policies, new.ref_policies),
                (old.read_claim, new.read_claim),
                (old.idmp, new.idmp),
                (old.xnack, new.xnack),
                (old.read_caps, new.read_caps),
            ] {
                assert!(!was || is, "{} has a feature {} lacks", old.name, new.name);
            }
        }
    }
}
