//! Test support: run command lines through the dispatcher and the handlers the way the
//! session will, and check the keyspace after every command.

use streamlab_engine::Keyspace;

use super::{check_call, Ctx, Outcome, Run};
use crate::profile::{Capabilities, Profile};
use crate::reply::Reply;

/// A keyspace with a clock that tests move by hand.
pub struct Bench {
    /// The keyspace.
    pub db: Keyspace,
    /// The clock reading the next command gets (Unix ms).
    pub now: i64,
    /// Whether the connection speaks RESP3.
    pub resp3: bool,
    /// The server profile (Redis 8.2, the one the unit tests were written against).
    pub caps: &'static Capabilities,
    /// Host-owned configuration parameters.
    #[cfg(feature = "host-params")]
    pub host: Vec<super::admin::HostParam>,
}

impl Bench {
    /// An empty keyspace at `now`.
    pub fn new(now: i64) -> Bench {
        Bench::with_profile(now, Profile::Redis82)
    }

    /// An empty keyspace at `now`, answering as `profile`.
    pub fn with_profile(now: i64, profile: Profile) -> Bench {
        let caps = profile.caps();
        let mut db = Keyspace::new();
        db.rules = caps.counters;
        Bench {
            db,
            now,
            resp3: false,
            caps,
            #[cfg(feature = "host-params")]
            host: Vec::new(),
        }
    }

    /// Runs one command given as separate arguments; errors come back as `Reply::Error`.
    pub fn call(&mut self, args: &[&[u8]]) -> Reply {
        let args: Vec<Vec<u8>> = args.iter().map(|a| a.to_vec()).collect();
        // The session expires due keys once per command, before running it.
        self.db.expire_due(self.now);
        let reply = match check_call(&args, self.caps) {
            Err(e) => Reply::Error(e.to_string()),
            Ok(spec) => {
                let mut clients = Default::default();
                #[cfg(feature = "host")]
                let process = crate::session::HostInfo::default();
                let mut ctx = Ctx {
                    db: &mut self.db,
                    now: self.now,
                    resp3: self.resp3,
                    caps: self.caps,
                    clients: &mut clients,
                    #[cfg(feature = "host-params")]
                    host: &mut self.host,
                    #[cfg(feature = "host")]
                    process: &process,
                };
                let outcome = match spec.run {
                    Run::Session(_) => panic!("{} is run by the session", spec.name),
                    Run::Owning(handler) => handler(&mut ctx, args.clone()),
                    Run::Data(handler) => handler(&mut ctx, &args),
                };
                match outcome {
                    Ok(Outcome::Reply(r)) => r,
                    Ok(Outcome::Block(b)) => panic!("unexpected block {b:?}"),
                    Err(e) => Reply::Error(e.to_string()),
                }
            }
        };
        if let Err(e) = self.db.check_invariants() {
            panic!(
                "invariants broken after {:?}: {e}",
                args.iter().map(|a| String::from_utf8_lossy(a)).collect::<Vec<_>>()
            );
        }
        reply
    }

    /// Runs a command line split on spaces (for arguments without spaces).
    pub fn run(&mut self, line: &str) -> Reply {
        let args: Vec<&[u8]> = line.split(' ').filter(|a| !a.is_empty()).map(str::as_bytes).collect();
        self.call(&args)
    }

    /// Runs a command line and asserts its reply.
    #[track_caller]
    pub fn check(&mut self, line: &str, expected: Reply) {
        assert_eq!(self.run(line), expected, "{line}");
    }
}

/// `OK`.
pub fn ok() -> Reply {
    Reply::ok()
}

/// A status reply.
pub fn status(s: &str) -> Reply {
    Reply::Status(s.to_owned())
}

/// An error reply.
pub fn err(s: &str) -> Reply {
    Reply::Error(s.to_owned())
}

/// An integer reply.
pub fn int(n: i64) -> Reply {
    Reply::Integer(n)
}

/// A bulk string reply.
pub fn bulk(s: &str) -> Reply {
    Reply::bulk(s)
}

/// An array of bulk strings.
pub fn bulks(items: &[&str]) -> Reply {
    Reply::Array(items.iter().map(|s| bulk(s)).collect())
}

/// An array.
pub fn arr(items: Vec<Reply>) -> Reply {
    Reply::Array(items)
}

/// The wrong-arity error for `name`.
pub fn arity(name: &str) -> Reply {
    err(&format!("ERR wrong number of arguments for '{name}' command"))
}

/// `ERR syntax error`.
pub fn syntax() -> Reply {
    err("ERR syntax error")
}
