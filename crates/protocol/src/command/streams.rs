//! Stream commands that do not involve consumer groups' PELs directly: XADD, XRANGE,
//! XREVRANGE, XLEN, XDEL, XTRIM, XSETID, XDELEX, XCFGSET.

use streamlab_engine::{AddError, AddId, DeleteOutcome, RefPolicy, SetIdError, StreamId, Trim, TrimStrategy};

use super::{arg, entry_reply, id_reply, is, parse_bound, parse_int, rest, BoundKind, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::profile::Capabilities;
use crate::reply::Reply;

/// The stream commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xadd",
        arity: -5,
        write: true,
        syntax: "key [NOMKSTREAM] [KEEPREF | DELREF | ACKED] [IDMPAUTO pid | IDMP pid iid] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]",
        summary: "Appends a new message to a stream. Creates the key if it doesn't exist.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xadd),
    },
    CommandSpec {
        name: "xrange",
        arity: -4,
        write: false,
        syntax: "key start end [COUNT count]",
        summary: "Returns the messages from a stream within a range of IDs.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xrange),
    },
    CommandSpec {
        name: "xrevrange",
        arity: -4,
        write: false,
        syntax: "key end start [COUNT count]",
        summary: "Returns the messages from a stream within a range of IDs in reverse order.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xrevrange),
    },
    CommandSpec {
        name: "xlen",
        arity: 2,
        write: false,
        syntax: "key",
        summary: "Return the number of messages in a stream.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xlen),
    },
    CommandSpec {
        name: "xdel",
        arity: -3,
        write: true,
        syntax: "key id [id ...]",
        summary: "Returns the number of messages after removing them from a stream.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xdel),
    },
    CommandSpec {
        name: "xtrim",
        arity: -4,
        write: true,
        syntax: "key <MAXLEN | MINID> [= | ~] threshold [LIMIT count] [KEEPREF | DELREF | ACKED]",
        summary: "Deletes messages from the beginning of a stream.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xtrim),
    },
    CommandSpec {
        name: "xsetid",
        arity: -3,
        write: true,
        syntax: "key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]",
        summary: "An internal command for replicating stream values.",
        since: "5.0.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xsetid),
    },
    CommandSpec {
        name: "xdelex",
        arity: -5,
        write: true,
        syntax: "key [KEEPREF | DELREF | ACKED] IDS numids id [id ...]",
        summary: "Deletes one or multiple entries from the stream.",
        since: "8.2.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xdelex),
    },
    CommandSpec {
        name: "xcfgset",
        arity: -2,
        write: true,
        syntax: "key [IDMP-DURATION idmp-duration] [IDMP-MAXSIZE idmp-maxsize]",
        summary: "Sets the IDMP configuration parameters for a stream.",
        since: "8.6.0",
        group: "stream",
        subcommands: &[],
        run: Run::Data(xcfgset),
    },
];

// ----- XADD / XTRIM shared option parsing ---------------------------------------------------

/// The trimming options of XADD and XTRIM.
#[derive(Debug, Default)]
struct TrimArgs {
    strategy: Option<TrimStrategy>,
    approx: bool,
    limit: Option<u64>,
    policy: Option<RefPolicy>,
}

impl TrimArgs {
    /// The checks Redis makes once all options are read, in its order.
    fn finish(self, xtrim: bool) -> Result<Option<Trim>, CmdError> {
        if self.limit.is_some_and(|l| l != 0) && self.strategy.is_none() {
            return Err(Msg::LimitWithoutStrategy.into());
        }
        if xtrim && self.strategy.is_none() {
            return Err(Msg::XtrimWithoutStrategy.into());
        }
        if self.limit.is_some() && !self.approx {
            return Err(Msg::LimitWithoutApprox.into());
        }
        Ok(self.strategy.map(|strategy| Trim {
            strategy,
            approx: self.approx,
            limit: self.limit,
            policy: self.policy.unwrap_or_default(),
        }))
    }

    /// Tries to read one option at `args[*i]`; returns false if the token is not a trimming
    /// option (so the caller decides what it is). Advances `*i` past any values consumed.
    fn parse_option(&mut self, args: &[Vec<u8>], i: &mut usize) -> Result<bool, CmdError> {
        let more = args.len() - 1 - *i;
        let opt = arg(args, *i);
        let maxlen = is(opt, "MAXLEN");
        if (maxlen || is(opt, "MINID")) && more > 0 {
            if self.strategy.is_some() {
                return Err(Msg::MaxLenAndMinId.into());
            }
            self.approx = false;
            let next = arg(args, *i + 1);
            if more >= 2 && next.as_slice() == b"~" {
                self.approx = true;
                *i += 1;
            } else if more >= 2 && next.as_slice() == b"=" {
                *i += 1;
            }
            let value = arg(args, *i + 1);
            self.strategy = Some(if maxlen {
                let n = parse_int(value)?;
                if n < 0 {
                    return Err(Msg::MaxLenNegative.into());
                }
                TrimStrategy::MaxLen(n as u64)
            } else {
                TrimStrategy::MinId(super::parse_strict_id(value)?)
            });
            *i += 1;
            return Ok(true);
        }
        if is(opt, "LIMIT") && more > 0 {
            let n = parse_int(arg(args, *i + 1))?;
            if n < 0 {
                return Err(Msg::LimitNegative.into());
            }
            self.limit = Some(n as u64);
            *i += 1;
            return Ok(true);
        }
        Ok(false)
    }
}

/// Reads a deletion-policy keyword.
pub(super) fn policy_keyword(arg: &[u8]) -> Option<RefPolicy> {
    if is(arg, "KEEPREF") {
        Some(RefPolicy::KeepRef)
    } else if is(arg, "DELREF") {
        Some(RefPolicy::DelRef)
    } else if is(arg, "ACKED") {
        Some(RefPolicy::Acked)
    } else {
        None
    }
}

// ----- XADD ---------------------------------------------------------------------------------

/// Where an XADD's idempotency id comes from (Redis 8.6; docs-only, unverified on a server).
enum Idempotency<'a> {
    /// `IDMP producer iid`.
    Given(&'a [u8], &'a [u8]),
    /// `IDMPAUTO producer`: the iid is the entry's content, field/value pairs in any order.
    Auto(&'a [u8]),
}

struct XAdd<'a> {
    key: &'a [u8],
    no_mkstream: bool,
    id: AddId,
    fields: &'a [Vec<u8>],
    trim: Option<Trim>,
    idmp: Option<Idempotency<'a>>,
}

impl<'a> XAdd<'a> {
    fn parse(args: &'a [Vec<u8>], caps: &Capabilities) -> Result<XAdd<'a>, CmdError> {
        let mut trim = TrimArgs::default();
        let mut no_mkstream = false;
        let mut id = None;
        let mut idmp = None;
        let mut i = 2;
        while i < args.len() {
            let opt = arg(args, i);
            let more = args.len() - 1 - i;
            if opt.as_slice() == b"*" {
                id = Some(AddId::Auto);
                break;
            }
            if trim.parse_option(args, &mut i)? {
            } else if is(opt, "NOMKSTREAM") {
                no_mkstream = true;
            } else if let Some(policy) = policy_keyword(opt).filter(|_| caps.ref_policies && trim.policy.is_none()) {
                // A second policy keyword is not an option any more: it is read as the id
                // (and before Redis 8.2 so is the first).
                trim.policy = Some(policy);
            } else if caps.idmp && is(opt, "IDMP") && more >= 2 {
                // Error texts from the Redis test suite (docs-only, unverified on a server).
                if idmp.is_some() {
                    return Err(Msg::IdmpTwice.into());
                }
                let (producer, iid) = (arg(args, i + 1), arg(args, i + 2));
                if producer.is_empty() {
                    return Err(Msg::IdmpEmptyProducer.into());
                }
                if iid.is_empty() {
                    return Err(Msg::IdmpEmptyIid.into());
                }
                idmp = Some(Idempotency::Given(producer, iid));
                i += 2;
            } else if caps.idmp && is(opt, "IDMPAUTO") && more >= 1 {
                if idmp.is_some() {
                    return Err(Msg::IdmpTwice.into());
                }
                if arg(args, i + 1).is_empty() {
                    return Err(Msg::IdmpautoEmptyProducer.into());
                }
                idmp = Some(Idempotency::Auto(arg(args, i + 1)));
                i += 1;
            } else {
                id = Some(StreamId::parse_for_add(opt)?);
                break;
            }
            i += 1;
        }
        let trim = trim.finish(false)?;
        if idmp.is_some() && id.is_some_and(|id| id != AddId::Auto) {
            return Err(Msg::IdmpNeedsAutoId.into());
        }
        let fields = args.get(i + 1..).unwrap_or(&[]);
        if fields.len() < 2 || fields.len() % 2 == 1 {
            return Err(CmdError::WrongArity("xadd".into()));
        }
        let id = id.ok_or_else(|| CmdError::WrongArity("xadd".into()))?;
        if id == AddId::Explicit(StreamId::MIN) {
            return Err(Msg::XaddZeroId.into());
        }
        Ok(XAdd { key: arg(args, 1), no_mkstream, id, fields, trim, idmp })
    }

    /// The producer and idempotency id, if IDMP or IDMPAUTO was given.
    fn idempotency(&self) -> Option<(&'a [u8], Vec<u8>)> {
        match self.idmp.as_ref()? {
            Idempotency::Given(producer, iid) => Some((producer, iid.to_vec())),
            Idempotency::Auto(producer) => {
                // The content itself, pairs sorted, each part length-prefixed: equal content
                // in any field order gives the same id, and nothing else does.
                let mut pairs: Vec<(&Vec<u8>, &Vec<u8>)> = Vec::new();
                for pair in self.fields.chunks_exact(2) {
                    if let [field, value] = pair {
                        pairs.push((field, value));
                    }
                }
                streamlab_engine::sort::sort(&mut pairs);
                let mut iid = Vec::new();
                for (field, value) in pairs {
                    for part in [field, value] {
                        iid.extend_from_slice(&(part.len() as u64).to_be_bytes());
                        iid.extend_from_slice(part);
                    }
                }
                Some((producer, iid))
            }
        }
    }

    fn apply(self, ctx: &mut Ctx<'_>) -> Result<Outcome, CmdError> {
        let config = ctx.db.config;
        let stream = match ctx.db.stream_mut(self.key)? {
            Some(stream) => stream,
            None if self.no_mkstream => return Ok(Reply::NullBulk.into()),
            None => {
                // Validate against a fresh stream first so a failed XADD leaves no empty key.
                streamlab_engine::Stream::new().next_id(self.id, ctx.now).map_err(add_error)?;
                ctx.db.stream_or_create(self.key)?
            }
        };
        let idempotency = self.idempotency();
        if let Some((producer, iid)) = &idempotency {
            // A repeat inside the window answers the first entry's id and adds nothing.
            stream.idmp.expire(ctx.now);
            if let Some(first) = stream.idmp.lookup(producer, iid, ctx.now) {
                stream.idmp.duplicates += 1;
                return Ok(id_reply(first).into());
            }
        }
        let id = stream.add(self.id, self.fields, ctx.now, config).map_err(add_error)?;
        if let Some((producer, iid)) = &idempotency {
            stream.idmp.record(producer, iid, id, ctx.now);
        }
        if let Some(trim) = self.trim {
            stream.trim(trim, config);
        }
        ctx.db.touch(self.key);
        ctx.db.signal_ready(self.key);
        Ok(id_reply(id).into())
    }
}

fn add_error(error: AddError) -> CmdError {
    match error {
        AddError::Exhausted => Msg::StreamExhausted.into(),
        AddError::IdNotGreater => Msg::XaddIdTooSmall.into(),
        AddError::TooLarge => Msg::ElementsTooLarge.into(),
    }
}

fn xadd(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    XAdd::parse(args, ctx.caps)?.apply(ctx)
}

// ----- XRANGE / XREVRANGE / XLEN ------------------------------------------------------------

fn range_generic(ctx: &mut Ctx<'_>, args: &[Vec<u8>], rev: bool) -> Result<Outcome, CmdError> {
    let (start_arg, end_arg) = if rev { (arg(args, 3), arg(args, 2)) } else { (arg(args, 2), arg(args, 3)) };
    let start = parse_bound(start_arg, BoundKind::Start)?;
    let end = parse_bound(end_arg, BoundKind::End)?;
    let mut count: Option<u64> = None;
    let mut j = 4;
    while j < args.len() {
        if is(arg(args, j), "COUNT") && j + 1 < args.len() {
            count = Some(parse_int(arg(args, j + 1))?.max(0) as u64);
            j += 2;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let Some(stream) = ctx.db.stream(arg(args, 1))? else { return Ok(Reply::Array(Vec::new()).into()) };
    let limit = match count {
        Some(0) => return Ok(Reply::NullArray.into()),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => usize::MAX,
    };
    // A loop: each collected adapter chain is its own code in the wasm bundles.
    let mut entries = Vec::new();
    for entry in stream.range(start, end, rev).take(limit) {
        entries.push(entry_reply(entry));
    }
    Ok(Reply::Array(entries).into())
}

fn xrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    range_generic(ctx, args, false)
}

fn xrevrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    range_generic(ctx, args, true)
}

fn xlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let len = ctx.db.stream(arg(args, 1))?.map_or(0, |s| s.len());
    Ok(Reply::Integer(len as i64).into())
}

// ----- XDEL ---------------------------------------------------------------------------------

fn xdel(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let key = arg(args, 1);
    // A missing key answers 0 before the ids are even parsed.
    let Some(stream) = ctx.db.stream_mut(key)? else { return Ok(Reply::Integer(0).into()) };
    let ids = super::parse_strict_ids(rest(args, 2))?;
    let deleted = ids.into_iter().filter(|&id| stream.delete(id)).count();
    if deleted > 0 {
        ctx.db.touch(key);
    }
    Ok(Reply::Integer(deleted as i64).into())
}

// ----- XTRIM --------------------------------------------------------------------------------

fn xtrim(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let mut opts = TrimArgs::default();
    let mut i = 2;
    while i < args.len() {
        if opts.parse_option(args, &mut i)? {
        } else if let Some(policy) = policy_keyword(arg(args, i)).filter(|_| ctx.caps.ref_policies) {
            if opts.policy.replace(policy).is_some() {
                return Err(CmdError::Syntax);
            }
        } else {
            return Err(CmdError::Syntax);
        }
        i += 1;
    }
    let trim = opts.finish(true)?.ok_or(Msg::XtrimWithoutStrategy)?;
    let key = arg(args, 1);
    let config = ctx.db.config;
    let Some(stream) = ctx.db.stream_mut(key)? else { return Ok(Reply::Integer(0).into()) };
    let removed = stream.trim(trim, config);
    if removed > 0 {
        ctx.db.touch(key);
    }
    Ok(Reply::Integer(removed as i64).into())
}

// ----- XSETID -------------------------------------------------------------------------------

fn xsetid(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let last_id = super::parse_strict_id(arg(args, 2))?;
    let (mut entries_added, mut max_deleted) = (None, None);
    let mut i = 3;
    while i < args.len() {
        let more = i + 1 < args.len();
        if is(arg(args, i), "ENTRIESADDED") && more {
            let n = parse_int(arg(args, i + 1))?;
            if n < 0 {
                return Err(Msg::EntriesAddedNegative.into());
            }
            entries_added = Some(n as u64);
        } else if is(arg(args, i), "MAXDELETEDID") && more {
            let id = super::parse_strict_id(arg(args, i + 1))?;
            if last_id < id {
                return Err(Msg::XsetidBelowGivenMaxDeleted.into());
            }
            max_deleted = Some(id);
        } else {
            return Err(CmdError::Syntax);
        }
        i += 2;
    }
    let key = arg(args, 1);
    let stream = ctx.db.stream_mut(key)?.ok_or(CmdError::NoSuchKey)?;
    stream.set_id(last_id, entries_added, max_deleted).map_err(|e| match e {
        SetIdError::BelowMaxDeleted => Msg::XsetidBelowMaxDeleted,
        SetIdError::BelowTopItem => Msg::XsetidBelowTop,
        SetIdError::EntriesAddedBelowLength => Msg::XsetidEntriesAddedBelowLength,
    })?;
    // Redis 8.2.3 does not count XSETID as a change for WATCH.
    Ok(Reply::ok().into())
}

// ----- XDELEX (and the policy + IDS block XACKDEL shares) ------------------------------------

/// A deletion policy and an `IDS numids id...` block, read in any order after the fixed
/// arguments. The ids stay unparsed: on a missing key Redis answers without validating them.
pub(crate) struct PolicyIds<'a> {
    /// The policy; KEEPREF when none was given.
    pub policy: RefPolicy,
    /// The raw id arguments.
    pub ids: &'a [Vec<u8>],
}

impl<'a> PolicyIds<'a> {
    /// Parses `args[from..]`.
    pub(crate) fn parse(args: &'a [Vec<u8>], from: usize) -> Result<PolicyIds<'a>, CmdError> {
        let mut policy = None;
        let mut ids = None;
        let mut i = from;
        while i < args.len() {
            if let Some(p) = policy_keyword(arg(args, i)) {
                if policy.replace(p).is_some() {
                    return Err(CmdError::Syntax);
                }
                i += 1;
            } else if is(arg(args, i), "IDS") && i + 1 < args.len() {
                let n = parse_int(arg(args, i + 1)).ok().filter(|&n| n > 0).ok_or(Msg::NumIdsNotPositive)?;
                let start = i + 2;
                let available = (args.len() - start) as u64;
                if (n as u64) > available {
                    return Err(Msg::NumIdsMismatch.into());
                }
                // A repeated IDS block replaces the earlier one.
                ids = Some(&args[start..start + n as usize]);
                i = start + n as usize;
            } else {
                return Err(CmdError::Syntax);
            }
        }
        Ok(PolicyIds { policy: policy.unwrap_or_default(), ids: ids.ok_or(CmdError::Syntax)? })
    }

    /// Parses the ids strictly (all of them, before anything changes).
    pub(crate) fn parsed_ids(&self) -> Result<Vec<StreamId>, CmdError> {
        super::parse_strict_ids(self.ids)
    }

    /// The reply for a missing key or group: -1 for every id.
    pub(crate) fn all_missing(&self) -> Reply {
        Reply::Array(vec![Reply::Integer(-1); self.ids.len()])
    }
}

/// The XDELEX / XACKDEL per-id result code.
pub(crate) fn outcome_code(outcome: DeleteOutcome) -> Reply {
    Reply::Integer(match outcome {
        DeleteOutcome::Deleted => 1,
        DeleteOutcome::NotFound => -1,
        DeleteOutcome::Referenced => 2,
    })
}

fn xdelex(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let key = arg(args, 1);
    // WRONGTYPE is reported before any option error.
    ctx.db.stream(key)?;
    let request = PolicyIds::parse(args, 2)?;
    let Some(stream) = ctx.db.stream_mut(key)? else { return Ok(request.all_missing().into()) };
    let ids = request.parsed_ids()?;
    let mut codes = Vec::with_capacity(ids.len());
    for id in ids {
        codes.push(outcome_code(stream.delete_with_policy(id, request.policy)));
    }
    if codes.contains(&Reply::Integer(1)) {
        ctx.db.touch(key);
    }
    Ok(Reply::Array(codes).into())
}

// ----- XCFGSET (Redis 8.6) ------------------------------------------------------------------

/// XCFGSET key [IDMP-DURATION s] [IDMP-MAXSIZE n] (Redis 8.6; docs-only, unverified on a
/// server). Options are read left to right (integer errors as met, ranges 1..=86400 and
/// 1..=10000), then the key must hold a stream. A changed value clears the stream's
/// idempotency history; the lifetime counters stay.
fn xcfgset(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    if args.len() == 2 {
        return Err(Msg::XcfgsetNoParameter.into());
    }
    let (mut duration, mut maxsize) = (None, None);
    let mut i = 2;
    while i < args.len() {
        let has_value = i + 1 < args.len();
        if is(arg(args, i), "IDMP-DURATION") && has_value {
            let n = parse_int(arg(args, i + 1))?;
            if !(1..=86_400).contains(&n) {
                return Err(Msg::IdmpDurationRange.into());
            }
            duration = Some(n as u64);
        } else if is(arg(args, i), "IDMP-MAXSIZE") && has_value {
            let n = parse_int(arg(args, i + 1))?;
            if !(1..=10_000).contains(&n) {
                return Err(Msg::IdmpMaxsizeRange.into());
            }
            maxsize = Some(n as u64);
        } else {
            return Err(CmdError::Syntax);
        }
        i += 2;
    }
    let stream = ctx.db.stream_mut(arg(args, 1))?.ok_or(CmdError::NoSuchKey)?;
    stream.idmp.configure(duration, maxsize);
    Ok(Reply::ok().into())
}
