//! Stream commands that do not involve consumer groups' PELs directly: XADD, XRANGE,
//! XREVRANGE, XLEN, XDEL, XTRIM, XSETID, XDELEX, XREAD.

use streamlab_engine::{AddError, AddId, RefPolicy, StreamId, Trim, TrimStrategy};

use super::{entry_reply, id_reply, is, parse_bound, parse_int, BoundKind, CommandSpec, Ctx, Outcome, Run};
use crate::error::{CmdError, Msg};
use crate::reply::Reply;

/// The stream commands.
pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "xadd",
        arity: -5,
        write: true,
        syntax: "key [NOMKSTREAM] [KEEPREF | DELREF | ACKED] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]",
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
        let opt = &args[*i];
        let maxlen = is(opt, "MAXLEN");
        if (maxlen || is(opt, "MINID")) && more > 0 {
            if self.strategy.is_some() {
                return Err(Msg::MaxLenAndMinId.into());
            }
            self.approx = false;
            let next = &args[*i + 1];
            if more >= 2 && next.as_slice() == b"~" {
                self.approx = true;
                *i += 1;
            } else if more >= 2 && next.as_slice() == b"=" {
                *i += 1;
            }
            let value = &args[*i + 1];
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
            let n = parse_int(&args[*i + 1])?;
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

struct XAdd<'a> {
    key: &'a [u8],
    no_mkstream: bool,
    id: AddId,
    fields: &'a [Vec<u8>],
    trim: Option<Trim>,
}

impl<'a> XAdd<'a> {
    fn parse(args: &'a [Vec<u8>]) -> Result<XAdd<'a>, CmdError> {
        let mut trim = TrimArgs::default();
        let mut no_mkstream = false;
        let mut id = None;
        let mut i = 2;
        while i < args.len() {
            let opt = &args[i];
            if opt.as_slice() == b"*" {
                id = Some(AddId::Auto);
                break;
            }
            if trim.parse_option(args, &mut i)? {
            } else if is(opt, "NOMKSTREAM") {
                no_mkstream = true;
            } else if let Some(policy) = policy_keyword(opt).filter(|_| trim.policy.is_none()) {
                // A second policy keyword is not an option any more: it is read as the id.
                trim.policy = Some(policy);
            } else {
                id = Some(StreamId::parse_for_add(opt)?);
                break;
            }
            i += 1;
        }
        let trim = trim.finish(false)?;
        let fields = args.get(i + 1..).unwrap_or(&[]);
        if fields.len() < 2 || fields.len() % 2 == 1 {
            return Err(CmdError::WrongArity("xadd".into()));
        }
        let id = id.ok_or(CmdError::WrongArity("xadd".into()))?;
        if id == AddId::Explicit(StreamId::MIN) {
            return Err(Msg::XaddZeroId.into());
        }
        Ok(XAdd { key: &args[1], no_mkstream, id, fields, trim })
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
        let id = stream.add(self.id, self.fields, ctx.now, config).map_err(add_error)?;
        if let Some(trim) = self.trim {
            stream.trim(trim, config);
        }
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
    XAdd::parse(args)?.apply(ctx)
}

// ----- XRANGE / XREVRANGE / XLEN ------------------------------------------------------------

fn range_generic(ctx: &mut Ctx<'_>, args: &[Vec<u8>], rev: bool) -> Result<Outcome, CmdError> {
    let (start_arg, end_arg) = if rev { (&args[3], &args[2]) } else { (&args[2], &args[3]) };
    let start = parse_bound(start_arg, BoundKind::Start)?;
    let end = parse_bound(end_arg, BoundKind::End)?;
    let mut count: Option<u64> = None;
    let mut j = 4;
    while j < args.len() {
        if is(&args[j], "COUNT") && j + 1 < args.len() {
            count = Some(parse_int(&args[j + 1])?.max(0) as u64);
            j += 2;
        } else {
            return Err(CmdError::Syntax);
        }
    }
    let Some(stream) = ctx.db.stream(&args[1])? else { return Ok(Reply::Array(Vec::new()).into()) };
    let limit = match count {
        Some(0) => return Ok(Reply::NullArray.into()),
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => usize::MAX,
    };
    let entries = stream.range(start, end, rev).take(limit).map(entry_reply).collect();
    Ok(Reply::Array(entries).into())
}

fn xrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    range_generic(ctx, args, false)
}

fn xrevrange(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    range_generic(ctx, args, true)
}

fn xlen(ctx: &mut Ctx<'_>, args: &[Vec<u8>]) -> Result<Outcome, CmdError> {
    let len = ctx.db.stream(&args[1])?.map_or(0, |s| s.len());
    Ok(Reply::Integer(len as i64).into())
}
