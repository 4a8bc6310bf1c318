//! Commands on whole keys and on plain strings: DEL, UNLINK, EXISTS, TYPE, KEYS, SCAN,
//! FLUSHALL, FLUSHDB, SET, GET, EXPIRE, PEXPIRE, TTL, PTTL, PERSIST.
//!
//! Expiry times are absolute Unix milliseconds on the engine clock (`ctx.now`). A command that
//! sets an expiry at or before `now` deletes the key at once, as Redis does.

use streamlab_engine::{glob_match, Value, ValueKind};

use super::{arg, is, parse_int, rest, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

/// The key and string commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "del",
        arity: -2,
        write: true,
        syntax: "key [key ...]",
        summary: "Deletes one or more keys.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(del),
    },
    CommandSpec {
        name: "unlink",
        arity: -2,
        write: true,
        syntax: "key [key ...]",
        summary: "Asynchronously deletes one or more keys.",
        since: "4.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(del),
    },
    CommandSpec {
        name: "exists",
        arity: -2,
        write: false,
        syntax: "key [key ...]",
        summary: "Determines whether one or more keys exist.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(exists),
    },
    CommandSpec {
        name: "type",
        arity: 2,
        write: false,
        syntax: "key",
        summary: "Determines the type of value stored at a key.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(type_),
    },
    CommandSpec {
        name: "keys",
        arity: 2,
        write: false,
        syntax: "pattern",
        summary: "Returns all key names that match a pattern.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(keys),
    },
    CommandSpec {
        name: "scan",
        arity: -2,
        write: false,
        syntax: "cursor [MATCH pattern] [COUNT count] [TYPE type]",
        summary: "Iterates over the key names in the database.",
        since: "2.8.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(scan),
    },
    CommandSpec {
        name: "flushall",
        arity: -1,
        write: true,
        syntax: "[ASYNC | SYNC]",
        summary: "Removes all keys from all databases.",
        since: "1.0.0",
        group: "server",
        subcommands: &[],
        run: Run::Data(flush),
    },
    CommandSpec {
        name: "flushdb",
        arity: -1,
        write: true,
        syntax: "[ASYNC | SYNC]",
        summary: "Remove all keys from the current database.",
        since: "1.0.0",
        group: "server",
        subcommands: &[],
        run: Run::Data(flush),
    },
    CommandSpec {
        name: "set",
        arity: -3,
        write: true,
        syntax: "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]",
        summary: "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
        since: "1.0.0",
        group: "string",
        subcommands: &[],
        run: Run::Owning(set),
    },
    CommandSpec {
        name: "get",
        arity: 2,
        write: false,
        syntax: "key",
        summary: "Returns the string value of a key.",
        since: "1.0.0",
        group: "string",
        subcommands: &[],
        run: Run::Data(get),
    },
    CommandSpec {
        name: "expire",
        arity: -3,
        write: true,
        syntax: "key seconds [NX | XX | GT | LT]",
        summary: "Sets the expiration time of a key in seconds.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(expire),
    },
    CommandSpec {
        name: "pexpire",
        arity: -3,
        write: true,
        syntax: "key milliseconds [NX | XX | GT | LT]",
        summary: "Sets the expiration time of a key in milliseconds.",
        since: "2.6.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(pexpire),
    },
    CommandSpec {
        name: "ttl",
        arity: 2,
        write: false,
        syntax: "key",
        summary: "Returns the expiration time in seconds of a key.",
        since: "1.0.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(ttl),
    },
    CommandSpec {
        name: "pttl",
        arity: 2,
        write: false,
        syntax: "key",
        summary: "Returns the expiration time in milliseconds of a key.",
        since: "2.6.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(pttl),
    },
    CommandSpec {
        name: "persist",
        arity: 2,
        write: true,
        syntax: "key",
        summary: "Removes the expiration time of a key.",
        since: "2.2.0",
        group: "generic",
        subcommands: &[],
        run: Run::Data(persist),
    },
];

/// The name TYPE (and SCAN's TYPE filter) uses for a kind of value.
pub fn type_name(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Stream => "stream",
        ValueKind::String => "string",
    }
}

// ----- DEL / UNLINK / EXISTS / TYPE / KEYS --------------------------------------------------

/// DEL and UNLINK: there is no background freeing to model, so they are the same command.
fn del(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let removed = rest(args, 1).iter().filter(|key| ctx.db.remove(key)).count();
    Ok(Reply::Integer(removed as i64).into())
}

/// EXISTS counts a key once per time it is named.
fn exists(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let found = rest(args, 1).iter().filter(|key| ctx.db.get(key).is_some()).count();
    Ok(Reply::Integer(found as i64).into())
}

fn type_(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let name = ctx.db.get(arg(args, 1)).map_or("none", |v| type_name(v.kind()));
    Ok(Reply::Status(name.to_owned()).into())
}

/// KEYS answers in key order (Redis's order is its hash table's, so any order is faithful).
fn keys(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    // A loop: each collected adapter chain is its own code in the wasm bundles.
    let mut keys = Vec::new();
    for key in ctx.db.keys_matching(arg(args, 1)) {
        keys.push(Reply::Bulk(key.clone()));
    }
    Ok(Reply::Array(keys).into())
}

// ----- SCAN ---------------------------------------------------------------------------------
//
// Redis walks its hash table bucket by bucket, counting bucket indexes with their bits
// reversed, so that a walk survives the table growing or shrinking between calls: every key
// present for the whole walk is returned at least once. StreamLab has no hash table, but it
// walks an imaginary one the same way, which keeps those guarantees and makes cursors look
// like Redis's (small numbers for a small keyspace, `0` at the end):
//
// - a key's bucket is the low bits of a fixed 64-bit hash of its name (FNV-1a followed by a
//   mixing step), so the walk is deterministic and the same on every platform;
// - the table has as many buckets as the smallest power of two holding every key (at least
//   4), the size Redis's table has when it has not shrunk;
// - keys in one bucket come back in key order.
//
// Cursor numbers therefore differ from a real server's (which depend on a random hash seed),
// but the reply shape, the option errors and the final `0` are Redis's.

/// A fixed hash of a key name.
fn scan_hash(key: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // FNV's low bits mix poorly for short keys; finish with a 64-bit avalanche step.
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// The next cursor after visiting the bucket `cursor & mask`: the masked bits, read in
/// reverse, plus one. Wraps to 0 after the last bucket.
fn next_cursor(cursor: u64, mask: u64) -> u64 {
    let v = (cursor | !mask).reverse_bits().wrapping_add(1);
    v.reverse_bits()
}

/// Reads a SCAN cursor as Redis does: like C's `strtoull` in base 10 (leading white space, a
/// sign, at least one digit, nothing after the digits, no overflow; the text ends at a NUL
/// byte), except that a cursor starting with `-` must come to 0.
fn parse_cursor(arg: &[u8]) -> Result<u64, CmdError> {
    let text = arg.split(|&b| b == 0).next().unwrap_or_default();
    let invalid = || CmdError::from(Msg::InvalidCursor);
    let mut i = text.iter().take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')).count();
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = text.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let digits = &text[i..];
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(invalid());
    }
    let mut value: u64 = 0;
    for &d in digits {
        value = value.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))).ok_or_else(invalid)?;
    }
    if negative {
        value = value.wrapping_neg();
    }
    if arg.first() == Some(&b'-') && value != 0 {
        return Err(invalid());
    }
    Ok(value)
}

struct Scan<'a> {
    cursor: u64,
    pattern: Option<&'a [u8]>,
    count: u64,
    type_filter: Option<&'a [u8]>,
}

impl<'a> Scan<'a> {
    fn parse(args: &'a [Vec<u8>]) -> Result<Scan<'a>, CmdError> {
        let cursor = parse_cursor(arg(args, 1))?;
        let mut scan = Scan { cursor, pattern: None, count: 10, type_filter: None };
        let mut i = 2;
        while i < args.len() {
            let opt = arg(args, i);
            let value = args.get(i + 1);
            match value {
                Some(v) if is(opt, "COUNT") => {
                    let n = parse_int(v)?;
                    if n < 1 {
                        return Err(CmdError::Syntax);
                    }
                    scan.count = n as u64;
                }
                Some(v) if is(opt, "MATCH") => scan.pattern = Some(v),
                Some(v) if is(opt, "TYPE") => scan.type_filter = Some(v),
                _ if is(opt, "NOVALUES") => return Err(Msg::NovaluesOnlyInHscan.into()),
                _ => return Err(CmdError::Syntax),
            }
            i += 2;
        }
        Ok(scan)
    }

    fn run(&self, ctx: &Ctx<'_>) -> Reply {
        let mut found: Vec<&Vec<u8>> = Vec::new();
        let mut cursor = 0;
        if !ctx.db.is_empty() {
            let buckets = (ctx.db.len() as u64).next_power_of_two().max(4);
            let mask = buckets - 1;
            // The imaginary hash table, bucket by bucket (at most twice as many as keys).
            let mut table: Vec<Vec<&Vec<u8>>> = vec![Vec::new(); buckets as usize];
            for (key, _) in ctx.db.iter() {
                table[(scan_hash(key) & mask) as usize].push(key);
            }
            // Like Redis: visit at least one bucket, then keep going until `count` keys are
            // collected (before filtering), the walk ends, or `count * 10` more buckets were
            // visited.
            let mut budget = self.count.saturating_mul(10);
            cursor = self.cursor;
            loop {
                found.extend(&table[(cursor & mask) as usize]);
                cursor = next_cursor(cursor, mask);
                if cursor == 0 || budget == 0 || found.len() as u64 >= self.count {
                    break;
                }
                budget -= 1;
            }
        }
        let mut keys = Vec::new();
        for key in found {
            let typed =
                |t: &[u8]| ctx.db.get(key).is_some_and(|v| t.eq_ignore_ascii_case(type_name(v.kind()).as_bytes()));
            if self.pattern.is_none_or(|p| glob_match(p, key)) && self.type_filter.is_none_or(typed) {
                keys.push(Reply::Bulk(key.clone()));
            }
        }
        Reply::Array(vec![Reply::Bulk(cursor.to_string().into_bytes()), Reply::Array(keys)])
    }
}

fn scan(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    Ok(Scan::parse(args)?.run(ctx).into())
}

// ----- FLUSHALL / FLUSHDB -------------------------------------------------------------------

/// FLUSHALL and FLUSHDB: one database, so the same command. ASYNC and SYNC are accepted and
/// both flush at once.
fn flush(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    match args {
        [_] => {}
        [_, mode] if is(mode, "ASYNC") || is(mode, "SYNC") => {}
        _ => return Err(CmdError::Syntax),
    }
    ctx.db.flush();
    Ok(Reply::ok().into())
}

// ----- SET / GET ----------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Condition {
    Nx,
    Xx,
}

/// The four ways to give an expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExpireForm {
    /// EX: seconds from now.
    Ex,
    /// PX: milliseconds from now.
    Px,
    /// EXAT: a Unix time in seconds.
    ExAt,
    /// PXAT: a Unix time in milliseconds.
    PxAt,
}

impl ExpireForm {
    fn keyword(arg: &[u8]) -> Option<ExpireForm> {
        [("EX", ExpireForm::Ex), ("PX", ExpireForm::Px), ("EXAT", ExpireForm::ExAt), ("PXAT", ExpireForm::PxAt)]
            .into_iter()
            .find(|(k, _)| is(arg, k))
            .map(|(_, form)| form)
    }

    /// The absolute expiry (Unix ms) `value` means at `now`, or `None` if it is out of range:
    /// not positive, or overflowing once converted to absolute milliseconds.
    fn resolve(self, value: i64, now: i64) -> Option<i64> {
        if value <= 0 {
            return None;
        }
        let ms = match self {
            ExpireForm::Ex | ExpireForm::ExAt => value.checked_mul(1000)?,
            ExpireForm::Px | ExpireForm::PxAt => value,
        };
        match self {
            ExpireForm::Ex | ExpireForm::Px => ms.checked_add(now),
            ExpireForm::ExAt | ExpireForm::PxAt => Some(ms),
        }
    }
}

/// SET's key and options; the value (argument 2) is moved in by [`set`].
struct Set<'a> {
    key: &'a [u8],
    condition: Option<Condition>,
    get: bool,
    keep_ttl: bool,
    /// The absolute expiry, if one was given.
    expire_at: Option<i64>,
}

impl<'a> Set<'a> {
    /// Reads the flags first (any misuse is a syntax error), then the expiry value: only the
    /// last one given is read, so `EX abc EX 10` is accepted.
    fn parse(args: &'a [Vec<u8>], now: i64) -> Result<Set<'a>, CmdError> {
        let mut set = Set { key: arg(args, 1), condition: None, get: false, keep_ttl: false, expire_at: None };
        let mut expire: Option<(ExpireForm, &[u8])> = None;
        let mut i = 3;
        while i < args.len() {
            let opt = arg(args, i);
            let form = ExpireForm::keyword(opt);
            if is(opt, "NX") && set.condition != Some(Condition::Xx) {
                set.condition = Some(Condition::Nx);
            } else if is(opt, "XX") && set.condition != Some(Condition::Nx) {
                set.condition = Some(Condition::Xx);
            } else if is(opt, "GET") {
                set.get = true;
            } else if is(opt, "KEEPTTL") && expire.is_none() {
                set.keep_ttl = true;
            } else if let Some(form) =
                form.filter(|&f| !set.keep_ttl && expire.is_none_or(|(prev, _)| prev == f) && i + 1 < args.len())
            {
                expire = Some((form, arg(args, i + 1)));
                i += 1;
            } else {
                return Err(CmdError::Syntax);
            }
            i += 1;
        }
        if let Some((form, arg)) = expire {
            let value = parse_int(arg)?;
            set.expire_at = Some(form.resolve(value, now).ok_or(CmdError::InvalidExpire("set"))?);
        }
        Ok(set)
    }

    fn apply(self, ctx: &mut Ctx<'_>, value: Vec<u8>) -> Result<Outcome, CmdError> {
        let old = ctx.db.get(self.key);
        // GET needs a string (or nothing) even when NX/XX then stops the write.
        let old_value = match old {
            Some(Value::String(s)) if self.get => Reply::Bulk(s.clone()),
            Some(_) if self.get => return Err(CmdError::WrongType),
            _ => Reply::NullBulk,
        };
        let exists = old.is_some();
        let blocked = match self.condition {
            Some(Condition::Nx) => exists,
            Some(Condition::Xx) => !exists,
            None => false,
        };
        let reply = if self.get { old_value } else { Reply::ok() };
        if blocked {
            return Ok((if self.get { reply } else { Reply::NullBulk }).into());
        }
        ctx.db.set(self.key, Value::String(value), self.keep_ttl);
        if let Some(at) = self.expire_at {
            if at <= ctx.now {
                // Already in the past: the write happens and the key is gone at once.
                ctx.db.remove(self.key);
            } else {
                ctx.db.set_expiry(self.key, at);
            }
        }
        Ok(reply.into())
    }
}

fn set(ctx: &mut Ctx<'_>, mut args: Vec<Vec<u8>>) -> Result<Outcome, CmdError> {
    // The arity check guarantees the value; the options after it are parsed without it.
    let value = args.get_mut(2).map(std::mem::take).unwrap_or_default();
    Set::parse(&args, ctx.now)?.apply(ctx, value)
}

fn get(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    Ok(ctx.db.string(arg(args, 1))?.map_or(Reply::NullBulk, Reply::bulk).into())
}

// ----- EXPIRE / PEXPIRE / TTL / PTTL / PERSIST ----------------------------------------------

/// EXPIRE's and PEXPIRE's condition flags.
#[derive(Debug, Default)]
struct ExpireFlags {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

impl ExpireFlags {
    /// Reads every flag (an unknown one is reported as soon as it is met), then checks the
    /// combinations.
    fn parse(args: &[Vec<u8>]) -> Result<ExpireFlags, CmdError> {
        let mut flags = ExpireFlags::default();
        for opt in args {
            if is(opt, "NX") {
                flags.nx = true;
            } else if is(opt, "XX") {
                flags.xx = true;
            } else if is(opt, "GT") {
                flags.gt = true;
            } else if is(opt, "LT") {
                flags.lt = true;
            } else {
                return Err(CmdError::UnsupportedOption(opt.clone()));
            }
        }
        if flags.nx && (flags.xx || flags.gt || flags.lt) {
            return Err(Msg::ExpireNxAndOthers.into());
        }
        if flags.gt && flags.lt {
            return Err(Msg::ExpireGtAndLt.into());
        }
        Ok(flags)
    }

    /// Whether a key whose expiry is `current` (`None`: never, i.e. infinitely far) may be
    /// given the expiry `at`.
    fn allow(&self, current: Option<i64>, at: i64) -> bool {
        match current {
            None => !self.xx && !self.gt,
            Some(current) => !self.nx && (!self.gt || at > current) && (!self.lt || at < current),
        }
    }
}

fn expire_generic(ctx: &mut Ctx<'_>, args: &[Vec<u8>], name: &'static str, unit_ms: i64) -> Result<Outcome, CmdError> {
    let flags = ExpireFlags::parse(rest(args, 3))?;
    let value = parse_int(arg(args, 2))?;
    let at = value.checked_mul(unit_ms).and_then(|ms| ms.checked_add(ctx.now)).ok_or(CmdError::InvalidExpire(name))?;
    let key = arg(args, 1);
    if ctx.db.get(key).is_none() || !flags.allow(ctx.db.expiry(key), at) {
        return Ok(Reply::Integer(0).into());
    }
    if at <= ctx.now {
        ctx.db.remove(key);
    } else {
        ctx.db.set_expiry(key, at);
    }
    Ok(Reply::Integer(1).into())
}

fn expire(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    expire_generic(ctx, args, "expire", 1000)
}

fn pexpire(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    expire_generic(ctx, args, "pexpire", 1)
}

/// The time left in milliseconds, or Redis's -2 (no key) / -1 (no expiry).
fn ttl_ms(ctx: &Ctx<'_>, key: &[u8]) -> Result<i64, i64> {
    if ctx.db.get(key).is_none() {
        return Err(-2);
    }
    match ctx.db.expiry(key) {
        None => Err(-1),
        Some(at) => Ok((at - ctx.now).max(0)),
    }
}

/// TTL rounds to the nearest second (half a second rounds up).
fn ttl(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let secs = ttl_ms(ctx, arg(args, 1)).map_or_else(|code| code, |ms| (ms + 500) / 1000);
    Ok(Reply::Integer(secs).into())
}

fn pttl(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let ms = ttl_ms(ctx, arg(args, 1)).unwrap_or_else(|code| code);
    Ok(Reply::Integer(ms).into())
}

fn persist(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let key = arg(args, 1);
    let done = ctx.db.get(key).is_some() && ctx.db.persist(key);
    Ok(Reply::Integer(i64::from(done)).into())
}

#[cfg(test)]
mod tests {
    //! Expected replies were recorded from a real Redis 8.2.3 running the same commands.

    use super::*;
    use crate::command::testkit::*;

    const NOW: i64 = 1_700_000_000_000;

    fn nil() -> Reply {
        Reply::NullBulk
    }

    fn invalid_expire(cmd: &str) -> Reply {
        err(&format!("ERR invalid expire time in '{cmd}' command"))
    }

    #[test]
    fn set_and_get_basics() {
        let mut b = Bench::new(NOW);
        b.check("SET k", arity("set"));
        b.check("GET", arity("get"));
        b.check("GET k k", arity("get"));
        b.check("GET k", nil());
        b.check("SET k v", ok());
        b.check("GET k", bulk("v"));
        b.check("set k v2", ok());
        b.check("GET k", bulk("v2"));
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check("GET s", wrongtype());
        let big = vec![b'x'; 5000];
        assert_eq!(b.call(&[b"SET", b"big", &big]), ok());
        assert_eq!(b.call(&[b"GET", b"big"]), Reply::Bulk(big));
        assert_eq!(b.call(&[b"SET", b"", b""]), ok());
        assert_eq!(b.call(&[b"GET", b""]), bulk(""));
    }

    #[test]
    fn set_option_syntax() {
        let mut b = Bench::new(NOW);
        b.check("SET k v NX XX", syntax());
        b.check("SET k v XX NX", syntax());
        b.check("SET k v EX 10 PX 100", syntax());
        b.check("SET k v EX 10 EXAT 100", syntax());
        b.check("SET k v PXAT 10 PX 100", syntax());
        b.check("SET k v EX", syntax());
        b.check("SET k v NX EX", syntax());
        b.check("SET k v FOO", syntax());
        b.check("SET k v KEEPTTL EX 10", syntax());
        b.check("SET k v EX 10 KEEPTTL", syntax());
        b.check("SET k v KEEPTTL PXAT 10", syntax());
        b.check("SET k v GET NX XX", syntax());
        // Flags are read before the expiry value.
        b.check("SET k v EX abc FOO", syntax());
        b.check("SET k v EX 0 FOO", syntax());
        b.check("GET k", nil());
        // Repeats of the same flag are accepted; the last expiry given counts.
        b.check("SET k v KEEPTTL KEEPTTL", ok());
        b.check("SET k v NX NX", nil());
        b.check("SET k v GET GET", bulk("v"));
        b.check("SET k v nx get", bulk("v"));
        b.check("SET k v EX 10 EX 20", ok());
        b.check("TTL k", int(20));
        b.check("SET k v EX 20 EX 10", ok());
        b.check("TTL k", int(10));
        b.check("SET k v EX abc EX 10", ok());
        b.check("TTL k", int(10));
        b.check("SET k v EX 10 EX abc", not_int());
        b.check("SET k v ex 30", ok());
        b.check("TTL k", int(30));
        b.check("SET k v PX 10 PX 20", ok());
        b.check("PTTL k", int(20));
    }

    #[test]
    fn set_expire_values() {
        let mut b = Bench::new(NOW);
        for bad in ["abc", "1.5", "01", "+1", "", "9223372036854775808"] {
            assert_eq!(b.call(&[b"SET", b"k", b"v", b"EX", bad.as_bytes()]), not_int(), "{bad:?}");
        }
        assert_eq!(b.call(&[b"SET", b"k", b"v", b"EX", b" 1"]), not_int());
        for bad in [
            "SET k v EX 0",
            "SET k v EX -1",
            "SET k v PX 0",
            "SET k v PX -5",
            "SET k v EXAT 0",
            "SET k v EXAT -1",
            "SET k v PXAT 0",
            "SET k v EX 9223372036854775807",
            "SET k v EX 9223372036854775",
            "SET k v PX 9223372036854775807",
            "SET k v EXAT 9223372036854776",
        ] {
            b.check(bad, invalid_expire("set"));
        }
        b.check("EXISTS k", int(0));
        b.check("SET k v EX 9223372036854", ok());
        b.check("TTL k", int(9_223_372_036_854));
        b.check("SET k v EXAT 9223372036854775", ok());
        b.check("PTTL k", int(9_223_372_036_854_775_000 - NOW));
        b.check("SET k v PXAT 9223372036854775807", ok());
        b.check("PTTL k", int(i64::MAX - NOW));
        b.check("TTL k", int((i64::MAX - NOW + 500) / 1000));
        b.check("SET k v PXAT 9223372036854775808", not_int());
        b.check("SET k v PX 9223370000000000000", ok());
        b.check("PTTL k", int(9_223_370_000_000_000_000));
        b.check(&format!("SET k v PX {}", i64::MAX - NOW), ok());
        b.check(&format!("SET k v PX {}", i64::MAX - NOW + 1), invalid_expire("set"));
        b.check("SET k v EXAT 1700000100", ok());
        b.check("TTL k", int(100));
        b.check("SET k v PXAT 1700000000500", ok());
        b.check("PTTL k", int(500));
        b.check("TTL k", int(1));
    }

    #[test]
    fn set_with_a_time_in_the_past_deletes() {
        let mut b = Bench::new(NOW);
        b.check("SET k v", ok());
        b.check("SET k v GET EXAT 1", bulk("v"));
        b.check("EXISTS k", int(0));
        b.check("SET k v", ok());
        b.check("SET k v2 GET PXAT 1", bulk("v"));
        b.check("EXISTS k", int(0));
        b.check(&format!("SET k v PXAT {NOW}"), ok());
        b.check("EXISTS k", int(0));
        b.check(&format!("SET k v PXAT {}", NOW + 1), ok());
        b.check("PTTL k", int(1));
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check("SET s v EXAT 1 GET", wrongtype());
        b.check("TYPE s", status("stream"));
        b.check("SET s v EXAT 1 NX", nil());
        b.check("TYPE s", status("stream"));
        b.db.take_ready();
        b.check("SET s v EXAT 1", ok());
        b.check("EXISTS s", int(0));
        // Readers blocked on the stream must hear that it is gone.
        assert!(b.db.take_ready().contains(&b"s".to_vec()));
    }

    #[test]
    fn set_conditions_and_get() {
        let mut b = Bench::new(NOW);
        b.check("SET k v3 XX", nil());
        b.check("SET k v3 XX GET", nil());
        b.check("EXISTS k", int(0));
        b.check("SET k v3 NX GET", nil());
        b.check("GET k", bulk("v3"));
        b.check("SET k v4 NX", nil());
        b.check("SET k v4 NX GET", bulk("v3"));
        b.check("GET k", bulk("v3"));
        b.check("SET k v5 XX GET", bulk("v3"));
        b.check("GET k", bulk("v5"));
        b.check("SET k v6 XX", ok());
        b.check("GET k", bulk("v6"));
        b.check("SET n v GET", nil());
        b.check("GET n", bulk("v"));
    }

    #[test]
    fn set_on_a_stream() {
        let mut b = Bench::new(NOW);
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check("SET s x GET", wrongtype());
        b.check("SET s x NX GET", wrongtype());
        b.check("SET s x XX GET", wrongtype());
        b.check("SET s x NX", nil());
        // Parsing errors come before the type check.
        b.check("SET s v EX 0 GET", invalid_expire("set"));
        b.check("SET s v EX abc GET", not_int());
        b.check("TYPE s", status("stream"));
        b.db.take_ready();
        b.db.take_touched();
        b.check("SET s x", ok());
        assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
        assert!(b.db.take_touched().contains(&b"s".to_vec()));
        b.check("TYPE s", status("string"));
        b.check("GET s", bulk("x"));
        b.check("XADD s2 1-0 f v", bulk("1-0"));
        b.check("SET s2 x XX", ok());
        b.check("TYPE s2", status("string"));
    }

    #[test]
    fn set_keepttl_and_ttl_reset() {
        let mut b = Bench::new(NOW);
        b.check("SET k v", ok());
        b.check("EXPIRE k 100", int(1));
        b.check("SET k v4 KEEPTTL", ok());
        b.check("TTL k", int(100));
        b.check("SET k v5", ok());
        b.check("TTL k", int(-1));
        b.check("SET k v EX 100", ok());
        b.check("SET k v NX", nil());
        b.check("TTL k", int(100));
        b.check("SET n v KEEPTTL", ok());
        b.check("TTL n", int(-1));
    }

    #[test]
    fn expiry_follows_the_clock() {
        let mut b = Bench::new(NOW);
        b.check("SET k v PX 1500", ok());
        b.check("TTL k", int(2));
        b.check("PTTL k", int(1500));
        b.now += 1;
        b.check("PTTL k", int(1499));
        b.check("TTL k", int(1));
        b.now += 999;
        b.check("PTTL k", int(500));
        b.check("TTL k", int(1));
        b.now += 1;
        b.check("TTL k", int(0));
        b.now += 498;
        b.check("PTTL k", int(1));
        b.check("TTL k", int(0));
        assert_eq!(b.db.len(), 1);
        b.now += 1;
        b.check("PTTL k", int(-2));
        b.check("TTL k", int(-2));
        b.check("GET k", nil());
        assert_eq!(b.db.len(), 0);
        // A stream with an expiry goes the same way, and its readers hear of it.
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check("PEXPIRE s 10", int(1));
        b.now += 9;
        b.check("XLEN s", int(1));
        b.db.take_ready();
        b.now += 1;
        b.check("XLEN s", int(0));
        assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
        b.check("TYPE s", status("none"));
    }

    #[test]
    fn expire_errors_and_order() {
        let mut b = Bench::new(NOW);
        b.check("EXPIRE k", arity("expire"));
        b.check("PEXPIRE k", arity("pexpire"));
        b.check("EXPIRE nokey abc", not_int());
        b.check("EXPIRE nokey 10 FOO", err("ERR Unsupported option FOO"));
        b.check("EXPIRE nokey 10", int(0));
        b.check("EXPIRE nokey 10 NX", int(0));
        b.check("EXPIRE nokey 9223372036854775807", invalid_expire("expire"));
        b.check("EXPIRE nokey -9223372036854775808", invalid_expire("expire"));
        b.check("SET k v", ok());
        b.check("EXPIRE k abc", not_int());
        b.check("EXPIRE k 1.5", not_int());
        b.check("EXPIRE k 01", not_int());
        b.check("EXPIRE k 10 FOO", err("ERR Unsupported option FOO"));
        b.check("EXPIRE k 100 nx foo", err("ERR Unsupported option foo"));
        // Unknown flags are reported before flag conflicts, conflicts before the number.
        b.check("EXPIRE k 100 NX XX FOO", err("ERR Unsupported option FOO"));
        b.check("EXPIRE k 100 FOO NX XX", err("ERR Unsupported option FOO"));
        b.check("EXPIRE k abc FOO", err("ERR Unsupported option FOO"));
        let nx_and = err("ERR NX and XX, GT or LT options at the same time are not compatible");
        let gt_lt = err("ERR GT and LT options at the same time are not compatible");
        b.check("EXPIRE k abc NX XX", nx_and.clone());
        b.check("EXPIRE k 10 NX XX", nx_and.clone());
        b.check("EXPIRE k 10 NX GT", nx_and.clone());
        b.check("EXPIRE k 100 GT NX", nx_and.clone());
        b.check("EXPIRE k 1 GT LT NX", nx_and.clone());
        b.check("EXPIRE k 10 GT LT", gt_lt.clone());
        b.check("EXPIRE k 100 LT GT", gt_lt);
        b.check("PEXPIRE k 100 FOO", err("ERR Unsupported option FOO"));
        b.check("PEXPIRE k 9223372036854775807", invalid_expire("pexpire"));
        b.check("EXPIRE k 9223372036854775", invalid_expire("expire"));
        b.check("TTL k", int(-1));
        b.check("EXPIRE k 9223372036854", int(1));
        b.check("TTL k", int(9_223_372_036_854));
        b.check("PEXPIRE k 9223370000000000000", int(1));
        b.check("PTTL k", int(9_223_370_000_000_000_000));
        b.check(&format!("PEXPIRE k {}", i64::MAX - NOW), int(1));
        b.check(&format!("PEXPIRE k {}", i64::MAX - NOW + 1), invalid_expire("pexpire"));
    }

    #[test]
    fn expire_conditions() {
        let mut b = Bench::new(NOW);
        b.check("SET k v", ok());
        // No expiry counts as an infinitely distant one.
        b.check("EXPIRE k 10 XX", int(0));
        b.check("EXPIRE k 10 GT", int(0));
        b.check("EXPIRE k 100 XX GT", int(0));
        b.check("EXPIRE k 100 LT XX", int(0));
        b.check("TTL k", int(-1));
        b.check("EXPIRE k 10 LT", int(1));
        b.check("EXPIRE k 10 NX", int(0));
        b.check("TTL k", int(10));
        b.check("EXPIRE k 20 NX", int(0));
        b.check("EXPIRE k 20 XX", int(1));
        b.check("TTL k", int(20));
        b.check("EXPIRE k 10 GT", int(0));
        b.check("EXPIRE k 20 GT", int(0));
        b.check("EXPIRE k 30 GT", int(1));
        b.check("EXPIRE k 40 LT", int(0));
        b.check("EXPIRE k 30 LT", int(0));
        b.check("EXPIRE k 5 LT", int(1));
        b.check("EXPIRE k 5 xx", int(1));
        b.check("EXPIRE k 5 NX NX", int(0));
        b.check("EXPIRE k 5 XX XX", int(1));
        b.check("PEXPIRE k 100 LT XX", int(1));
        b.check("PTTL k", int(100));
        b.check("PEXPIRE k 200 GT", int(1));
        b.check("PTTL k", int(200));
        b.check("PEXPIRE k 100 NX", int(0));
        b.check("PEXPIRE nokey 100 XX", int(0));
    }

    #[test]
    fn expire_in_the_past_deletes() {
        let mut b = Bench::new(NOW);
        for line in [
            "EXPIRE k 0",
            "EXPIRE k -9223372036854775",
            "EXPIRE k -1 NX",
            "PEXPIRE k 0",
            "PEXPIRE k -9223372036854775808",
        ] {
            b.check("SET k v", ok());
            b.check(line, int(1));
            b.check("EXISTS k", int(0));
        }
        // The conditions are checked first.
        b.check("SET k v EX 100", ok());
        b.check("EXPIRE k -1 NX", int(0));
        b.check("EXPIRE k -1 GT", int(0));
        b.check("EXPIRE k 0 GT", int(0));
        b.check("EXISTS k", int(1));
        b.check("EXPIRE k -1 LT", int(1));
        b.check("EXISTS k", int(0));
        b.check("SET k v", ok());
        b.check("EXPIRE k -1 XX", int(0));
        b.check("EXPIRE k -1 GT", int(0));
        b.check("EXISTS k", int(1));
        b.check("EXPIRE k -1 LT", int(1));
        b.check("EXISTS k", int(0));
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.db.take_ready();
        b.check("EXPIRE s 0", int(1));
        assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
    }

    #[test]
    fn ttl_pttl_persist() {
        let mut b = Bench::new(NOW);
        b.check("TTL", arity("ttl"));
        b.check("TTL k k", arity("ttl"));
        b.check("PTTL", arity("pttl"));
        b.check("PERSIST", arity("persist"));
        b.check("PERSIST k k", arity("persist"));
        b.check("TTL nokey", int(-2));
        b.check("PTTL nokey", int(-2));
        b.check("PERSIST nokey", int(0));
        b.check("SET k v", ok());
        b.check("TTL k", int(-1));
        b.check("PTTL k", int(-1));
        b.check("PERSIST k", int(0));
        b.check("EXPIRE k 100", int(1));
        b.db.take_touched();
        b.check("PERSIST k", int(1));
        assert_eq!(b.db.take_touched(), vec![b"k".to_vec()]);
        b.check("PERSIST k", int(0));
        assert!(b.db.take_touched().is_empty());
        b.check("TTL k", int(-1));
        b.check("SET k v PX 1", ok());
        b.check("TTL k", int(0));
    }

    #[test]
    fn del_unlink_exists_type() {
        let mut b = Bench::new(NOW);
        for cmd in ["del", "unlink", "exists", "type"] {
            b.check(cmd, arity(cmd));
        }
        b.check("TYPE a b", arity("type"));
        b.check("SET a 1", ok());
        b.check("SET b 2", ok());
        b.check("XADD s 1-0 f v", bulk("1-0"));
        b.check("TYPE a", status("string"));
        b.check("TYPE s", status("stream"));
        b.check("TYPE nokey", status("none"));
        b.check("EXISTS a a b nokey s", int(4));
        b.check("DEL a a b nokey", int(2));
        b.check("EXISTS a a b", int(0));
        b.db.take_ready();
        b.check("UNLINK s s", int(1));
        assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
        b.check("SET a 1 EX 10", ok());
        b.check("EXISTS a a a nokey", int(3));
        b.check("DEL a", int(1));
        b.check("SET a 1", ok());
        b.check("TTL a", int(-1));
        b.check("del A", int(0));
    }

    #[test]
    fn keys_glob() {
        let mut b = Bench::new(NOW);
        b.check("KEYS", arity("keys"));
        b.check("KEYS a b", arity("keys"));
        b.check("KEYS *", arr(vec![]));
        for k in ["s", "a", "b", "user:1", "user:2", "user:10", "h[x]"] {
            b.check(&format!("SET {k} v"), ok());
        }
        b.check("KEYS *", bulks(&["a", "b", "h[x]", "s", "user:1", "user:10", "user:2"]));
        b.check("KEYS user:?", bulks(&["user:1", "user:2"]));
        b.check("KEYS user:*", bulks(&["user:1", "user:10", "user:2"]));
        b.check("KEYS [ab]", bulks(&["a", "b"]));
        b.check("KEYS [^ab]", bulks(&["s"]));
        b.check("KEYS [a-c]", bulks(&["a", "b"]));
        b.check("KEYS h\\[x]", bulks(&["h[x]"]));
        b.check("KEYS [", arr(vec![]));
        b.check("KEYS x", arr(vec![]));
        b.check("KEYS A", arr(vec![]));
    }

    #[test]
    fn flushall_and_flushdb() {
        let mut b = Bench::new(NOW);
        for cmd in ["FLUSHALL", "FLUSHDB"] {
            b.check("SET a 1 EX 100", ok());
            b.check("XADD s 1-0 f v", bulk("1-0"));
            b.check(&format!("{cmd} FOO"), syntax());
            b.check(&format!("{cmd} ASYNC SYNC"), syntax());
            b.check(&format!("{cmd} SYNC SYNC"), syntax());
            assert_eq!(b.db.len(), 2);
            b.db.take_ready();
            b.check(cmd, ok());
            assert_eq!(b.db.take_ready(), vec![b"s".to_vec()]);
            assert_eq!(b.db.len(), 0);
            b.check(&format!("{cmd} async"), ok());
            b.check(&format!("{cmd} sync"), ok());
            b.check(&format!("{cmd} ASYNC"), ok());
        }
    }

    // ----- SCAN -----

    fn scan_reply(cursor: &str, keys: &[&str]) -> Reply {
        arr(vec![bulk(cursor), bulks(keys)])
    }

    /// Runs a full SCAN walk; returns every key seen (with repeats) and the number of calls.
    fn walk(b: &mut Bench, options: &str) -> (Vec<String>, usize) {
        let mut cursor = "0".to_owned();
        let mut seen = Vec::new();
        let mut calls = 0;
        loop {
            calls += 1;
            let Reply::Array(parts) = b.run(&format!("SCAN {cursor} {options}")) else { panic!() };
            let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else { panic!() };
            seen.extend(keys.iter().map(|k| match k {
                Reply::Bulk(k) => String::from_utf8(k.clone()).unwrap(),
                _ => panic!(),
            }));
            cursor = String::from_utf8(next.clone()).unwrap();
            if cursor == "0" {
                return (seen, calls);
            }
            assert!(calls < 10_000);
        }
    }

    #[test]
    fn scan_errors() {
        let mut b = Bench::new(NOW);
        let invalid = err("ERR invalid cursor");
        b.check("SCAN", arity("scan"));
        for bad in
            ["abc", "-1", "-5", "18446744073709551616", "1a", "0x1", "+", "-", " ", "+-1", "-+0", "1 ", "-0 ", "+ 1"]
        {
            assert_eq!(b.call(&[b"SCAN", bad.as_bytes()]), invalid, "{bad:?}");
        }
        for bad in ["", "\x001", "\x00", "-9223372036854775808", " -18446744073709551616"] {
            assert_eq!(b.call(&[b"SCAN", bad.as_bytes()]), invalid, "{bad:?}");
        }
        b.check("SCAN abc FOO", invalid);
        b.check("SCAN 0 COUNT", syntax());
        b.check("SCAN 0 COUNT 0", syntax());
        b.check("SCAN 0 COUNT -1", syntax());
        b.check("SCAN 0 COUNT abc", not_int());
        b.check("SCAN 0 COUNT 01", not_int());
        b.check("SCAN 0 MATCH", syntax());
        b.check("SCAN 0 TYPE", syntax());
        b.check("SCAN 0 FOO", syntax());
        b.check("SCAN 0 FOO bar", syntax());
        b.check("SCAN 0 COUNT abc TYPE foo", not_int());
        b.check("SCAN 0 TYPE foo COUNT abc", not_int());
        b.check("SCAN 0 TYPE foo FOO", syntax());
        b.check("SCAN 0 FOO TYPE foo", syntax());
        let novalues = err("ERR NOVALUES option can only be used in HSCAN");
        b.check("SCAN 0 NOVALUES", novalues.clone());
        b.check("SCAN 0 novalues", novalues.clone());
        b.check("SCAN 0 NOVALUES FOO", novalues.clone());
        b.check("SCAN 0 NOVALUES COUNT abc", novalues);
        b.check("SCAN 0 COUNT abc NOVALUES", not_int());
        b.check("SCAN 0 FOO NOVALUES", syntax());
    }

    #[test]
    fn scan_accepts_what_strtoull_accepts() {
        let mut b = Bench::new(NOW);
        b.check("SCAN 0", scan_reply("0", &[]));
        b.run("SET a 1");
        for cursor in
            ["0", "00", "-0", "-00", "-000", "+0", " +0", " -0", "\t0", "\n0", "\r0", "\x0b0", "\x0c0", "0\x00x"]
        {
            assert_eq!(b.call(&[b"SCAN", cursor.as_bytes()]), scan_reply("0", &["a"]), "{cursor:?}");
        }
        // Any number is a cursor; the large ones land somewhere in the walk.
        for cursor in
            ["01", "+1", " -1", " -2", "18446744073709551615", "018446744073709551615", " -18446744073709551615"]
        {
            let reply = b.call(&[b"SCAN", cursor.as_bytes()]);
            assert!(matches!(&reply, Reply::Array(parts) if parts.len() == 2), "{cursor:?}: {reply:?}");
        }
        assert_eq!(parse_cursor(b" -1"), Ok(u64::MAX));
        assert_eq!(parse_cursor(b" -18446744073709551615"), Ok(1));
        assert_eq!(parse_cursor(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_cursor(b"000000000000000000000000000000000000001"), Ok(1));
        assert_eq!(parse_cursor(b"7\x00junk"), Ok(7));
    }

    #[test]
    fn scan_small_keyspace() {
        let mut b = Bench::new(NOW);
        b.run("SET a 1");
        b.run("SET b 2");
        b.run("XADD s 1-0 f v");
        // A keyspace smaller than COUNT comes back in one call (bucket order, key order within
        // a bucket), like Redis's.
        let Reply::Array(parts) = b.run("SCAN 0") else { panic!() };
        assert_eq!(parts[0], bulk("0"));
        let Reply::Array(keys) = &parts[1] else { panic!() };
        let mut keys = keys.clone();
        keys.sort_by_key(|k| match k {
            Reply::Bulk(k) => k.clone(),
            _ => panic!(),
        });
        assert_eq!(keys, vec![bulk("a"), bulk("b"), bulk("s")]);
        b.check("SCAN 0 TYPE stream", scan_reply("0", &["s"]));
        b.check("SCAN 0 TYPE STREAM", scan_reply("0", &["s"]));
        let strings = b.run("SCAN 0 TYPE string MATCH *");
        b.check("SCAN 0 TYPE String MATCH ?", strings.clone());
        for t in ["hash", "zset", "list", "set", "none", "foo"] {
            b.check(&format!("SCAN 0 TYPE {t}"), scan_reply("0", &[]));
        }
        b.check("SCAN 0 MATCH a*", scan_reply("0", &["a"]));
        b.check("SCAN 0 MATCH [", scan_reply("0", &[]));
        // The last of a repeated option counts.
        b.check("SCAN 0 TYPE foo TYPE stream", scan_reply("0", &["s"]));
        b.check("SCAN 0 TYPE stream TYPE foo", scan_reply("0", &[]));
        b.check("SCAN 0 MATCH b MATCH a", scan_reply("0", &["a"]));
        let everything = b.run("SCAN 0");
        b.check("SCAN 0 COUNT 1 COUNT 9223372036854775807", everything);
        b.check("SCAN 0 count 10 match * type string", strings);
    }

    #[test]
    fn scan_cursors_are_deterministic() {
        // Pinned so that a change of hash or walk (which would change every cursor a lesson
        // shows) is a deliberate decision.
        let mut b = Bench::new(NOW);
        for k in ["a", "b", "s"] {
            b.run(&format!("SET {k} v"));
        }
        let first = b.run("SCAN 0 COUNT 1");
        let mut again = Bench::new(0);
        for k in ["s", "b", "a"] {
            again.run(&format!("SET {k} v"));
        }
        assert_eq!(again.run("SCAN 0 COUNT 1"), first);
        for key in [&b""[..], b"a", b"user:1", &[0xff; 300]] {
            assert_eq!(scan_hash(key), scan_hash_reference(key));
        }
        assert_eq!(first, scan_reply("2", &["b"]));
        b.check("SCAN 2 COUNT 1", scan_reply("1", &["s"]));
        b.check("SCAN 1 COUNT 1", scan_reply("0", &["a"]));
    }

    /// The same hash written out separately, to pin its definition.
    fn scan_hash_reference(key: &[u8]) -> u64 {
        let mut h = 14_695_981_039_346_656_037_u64;
        for &b in key {
            h = (h ^ u64::from(b)).wrapping_mul(1_099_511_628_211);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51afd7ed558ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ceb9fe1a85ec53);
        h ^ (h >> 33)
    }

    #[test]
    fn scan_walks_visit_every_key_once() {
        let mut b = Bench::new(NOW);
        let mut expected: Vec<String> = (0..200).map(|i| format!("key:{i}")).collect();
        for k in &expected {
            b.run(&format!("SET {k} v"));
        }
        expected.sort();
        for count in [1, 3, 10, 1000] {
            let (mut seen, calls) = walk(&mut b, &format!("COUNT {count}"));
            seen.sort();
            assert_eq!(seen, expected, "COUNT {count}");
            if count == 1000 {
                assert_eq!(calls, 1);
            } else {
                assert!(calls > 200 / count / 2, "COUNT {count}: {calls} calls");
            }
        }
        // Filters apply after the walk: the number of calls does not change.
        let (_, plain) = walk(&mut b, "COUNT 5");
        let (seen, filtered) = walk(&mut b, "COUNT 5 MATCH key:1?");
        assert_eq!(plain, filtered);
        let mut seen = seen;
        seen.sort();
        assert_eq!(seen, (10..20).map(|i| format!("key:{i}")).collect::<Vec<_>>());
        let (seen, _) = walk(&mut b, "TYPE stream");
        assert!(seen.is_empty());
    }

    #[test]
    fn scan_survives_growth_and_shrinking() {
        // Keys present for the whole walk come back at least once even when the imaginary
        // table grows or shrinks between calls.
        for (start, change) in [(20usize, 500usize), (500, 20)] {
            let mut b = Bench::new(NOW);
            let stable: Vec<String> = (0..start.min(change)).map(|i| format!("stable:{i}")).collect();
            for k in &stable {
                b.run(&format!("SET {k} v"));
            }
            for i in 0..start.saturating_sub(stable.len()) {
                b.run(&format!("SET extra:{i} v"));
            }
            let mut cursor = "0".to_owned();
            let mut seen = std::collections::BTreeSet::new();
            let mut calls = 0;
            loop {
                let Reply::Array(parts) = b.run(&format!("SCAN {cursor} COUNT 7")) else { panic!() };
                let [Reply::Bulk(next), Reply::Array(keys)] = parts.as_slice() else { panic!() };
                for k in keys {
                    let Reply::Bulk(k) = k else { panic!() };
                    seen.insert(String::from_utf8(k.clone()).unwrap());
                }
                cursor = String::from_utf8(next.clone()).unwrap();
                calls += 1;
                if calls == 2 {
                    // Resize in the middle of the walk.
                    if change > start {
                        for i in 0..change - start {
                            b.run(&format!("SET more:{i} v"));
                        }
                    } else {
                        b.run("SCAN 0 MATCH nothing");
                        let extra: Vec<Vec<u8>> = b.db.keys_matching(b"extra:*").cloned().collect();
                        for k in extra {
                            b.db.remove(&k);
                        }
                    }
                }
                if cursor == "0" {
                    break;
                }
            }
            for k in &stable {
                assert!(seen.contains(k), "{start}->{change}: missed {k}");
            }
        }
    }

    #[test]
    fn next_cursor_counts_reversed_bits() {
        // With 8 buckets the walk visits 0, 4, 2, 6, 1, 5, 3, 7 and then ends.
        let mut cursor = 0;
        let mut order = vec![];
        loop {
            order.push(cursor);
            cursor = next_cursor(cursor, 7);
            if cursor == 0 {
                break;
            }
        }
        assert_eq!(order, vec![0, 4, 2, 6, 1, 5, 3, 7]);
        assert_eq!(next_cursor(u64::MAX, 7), 0);
    }
}
