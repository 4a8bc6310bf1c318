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
mod tests;
