//! `CmdError`: every error a command can answer with. Its `Display` is the exact error line
//! Redis sends (without the leading `-`), pinned by golden tests.

use std::fmt;

/// Bytes shown inside an error message: Redis prints them raw, so what is not UTF-8 is
/// carried as raw-byte characters (see `reply::push_echoed`) for the wire to send as it came.
fn show(bytes: &[u8]) -> String {
    let mut text = String::new();
    crate::reply::push_echoed(&mut text, bytes);
    text
}

/// A command error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CmdError {
    /// `ERR syntax error`
    Syntax,
    /// `ERR value is not an integer or out of range`
    NotInteger,
    /// `WRONGTYPE ...`
    WrongType,
    /// `ERR no such key`
    NoSuchKey,
    /// `ERR Invalid stream ID specified as stream command argument`
    InvalidStreamId,
    /// `ERR wrong number of arguments for 'xadd' command` (name as given to the constructor:
    /// lower case, `cmd|sub` for subcommands).
    WrongArity(String),
    /// The unknown-command error, with the name and the first arguments as typed.
    UnknownCommand {
        /// The command name as typed.
        name: Vec<u8>,
        /// The arguments that followed it.
        args: Vec<Vec<u8>>,
    },
    /// `ERR unknown subcommand 'FOO'. Try XGROUP HELP.`
    UnknownSubcommand {
        /// The parent command, upper case.
        command: String,
        /// The subcommand as typed.
        sub: Vec<u8>,
    },
    /// `ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.`
    SubcommandSyntax {
        /// The parent command, upper case.
        command: String,
        /// The subcommand as typed.
        sub: Vec<u8>,
    },
    /// A fixed `ERR ...` message that carries no values.
    Msg(Msg),
    /// DEBUG SLEEP or STREAMLAB-CLOCK ADVANCE past the virtual clock's last instant.
    #[cfg(feature = "server")]
    ClockPastEnd {
        /// Where the clock is.
        now: i64,
    },
    /// `NOGROUP No such key 'k' or consumer group 'g' in XREADGROUP with GROUP option`
    NoGroupRead {
        /// The key.
        key: Vec<u8>,
        /// The group.
        group: Vec<u8>,
    },
    /// `NOGROUP No such key 'k' or consumer group 'g'` (XPENDING, XCLAIM, XAUTOCLAIM).
    NoGroup {
        /// The key.
        key: Vec<u8>,
        /// The group.
        group: Vec<u8>,
    },
    /// `NOGROUP No such consumer group 'g' for key name 'k'` (XGROUP, XINFO CONSUMERS).
    NoGroupForKey {
        /// The key.
        key: Vec<u8>,
        /// The group.
        group: Vec<u8>,
    },
    /// `BUSYGROUP Consumer Group name already exists`
    BusyGroup,
    /// `ERR Unrecognized XCLAIM option 'FOO'`
    UnrecognizedXclaimOption(Vec<u8>),
    /// `EXECABORT Transaction discarded because of previous errors.`
    ExecAbort,
    /// `EXECABORT Transaction discarded because of: <error without its code>` (a malformed
    /// EXEC, inside MULTI or not).
    ExecAbortBecause(Box<CmdError>),
    /// The error for a command refused in RESP2 subscribed mode.
    SubscribedContext(String),
    /// Valkey: `ERR Command 'multi' not allowed inside a transaction` (lower-case name).
    NotInTransaction(String),
    /// `ERR invalid expire time in 'set' command` (the command name varies).
    InvalidExpire(&'static str),
    /// `ERR Unknown option or number of arguments for CONFIG SET - 'x'`
    ConfigUnknown(Vec<u8>),
    /// `ERR DB index is out of range`
    DbIndexOutOfRange,
    /// CLIENT SETNAME with spaces or special characters.
    ClientNameInvalid,
    /// HELLO with a version that is not an integer.
    ProtocolVersion,
    /// HELLO with a version other than 2 or 3.
    NoProto,
    /// HELLO with an unknown option.
    HelloSyntax(Vec<u8>),
    /// `ERR Unsupported option FOO` (EXPIRE and PEXPIRE flags, echoed as typed).
    UnsupportedOption(Vec<u8>),
    /// CLIENT KILL or CLIENT LIST TYPE with an unknown type (echoed as typed).
    UnknownClientType(Vec<u8>),
    #[cfg(feature = "host")]
    /// CLIENT KILL USER naming a user that does not exist.
    NoSuchUser(Vec<u8>),
    /// CONFIG SET maxclients above what the host can serve; carries the value kept.
    MaxClientsOverLimit(u64),
    /// `ERR CONFIG SET failed (possibly related to argument 'x') - reason`.
    ConfigSetFailed {
        /// The parameter: as typed for name problems, canonical for value problems.
        name: Vec<u8>,
        /// Why, as Redis words it.
        reason: &'static str,
    },
}

/// Fixed error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    /// XADD/XTRIM with both MAXLEN and MINID.
    MaxLenAndMinId,
    /// MAXLEN below zero.
    MaxLenNegative,
    /// LIMIT below zero.
    LimitNegative,
    /// LIMIT with no strategy.
    LimitWithoutStrategy,
    /// XTRIM with no strategy.
    XtrimWithoutStrategy,
    /// LIMIT without `~`.
    LimitWithoutApprox,
    /// XADD with id 0-0.
    XaddZeroId,
    /// XADD on a stream whose last id is the maximum.
    StreamExhausted,
    /// XADD with an id not above the top item.
    XaddIdTooSmall,
    /// Fields and values over the listpack limit.
    ElementsTooLarge,
    /// A `(` bound that cannot be incremented.
    InvalidStartInterval,
    /// A `(` bound that cannot be decremented.
    InvalidEndInterval,
    /// BLOCK not an integer.
    TimeoutNotInteger,
    /// BLOCK negative.
    TimeoutNegative,
    /// XREAD given GROUP.
    GroupOnlyInXreadgroup,
    /// XREAD given NOACK.
    NoackOnlyInXreadgroup,
    /// XREAD STREAMS with an odd count.
    UnbalancedXread,
    /// XREADGROUP STREAMS with an odd count.
    UnbalancedXreadgroup,
    /// XREAD STREAMS with an odd count, before Redis 8.2 and on Valkey.
    UnbalancedXreadNoPlus,
    /// XREADGROUP without GROUP.
    MissingGroup,
    /// `>` given to XREAD.
    GreaterIdOnlyInXreadgroup,
    /// `$` given to XREADGROUP.
    DollarInXreadgroup,
    /// `+` given to XREADGROUP.
    PlusInXreadgroup,
    /// ENTRIESREAD below -1.
    EntriesReadNegative,
    /// XGROUP on a missing key without MKSTREAM.
    XgroupNeedsKey,
    /// XCLAIM min-idle-time not an integer.
    XclaimMinIdle,
    /// XCLAIM IDLE not an integer.
    XclaimIdle,
    /// XCLAIM TIME not an integer.
    XclaimTime,
    /// XCLAIM RETRYCOUNT not an integer.
    XclaimRetryCount,
    /// XAUTOCLAIM min-idle-time not an integer.
    XautoclaimMinIdle,
    /// XAUTOCLAIM COUNT out of range.
    XautoclaimCount,
    /// XAUTOCLAIM COUNT too large for the scratch space Redis allocates for it.
    XautoclaimCountTooHigh,
    /// XSETID ENTRIESADDED negative.
    EntriesAddedNegative,
    /// XSETID with MAXDELETEDID above the id.
    XsetidBelowGivenMaxDeleted,
    /// XSETID below the stream's max-deleted-entry-id.
    XsetidBelowMaxDeleted,
    /// XSETID below the top item.
    XsetidBelowTop,
    /// XSETID ENTRIESADDED below the length.
    XsetidEntriesAddedBelowLength,
    /// XDELEX/XACKDEL numids not positive.
    NumIdsNotPositive,
    /// XDELEX/XACKDEL numids not matching the ids given.
    NumIdsMismatch,
    /// MULTI inside MULTI.
    MultiNested,
    /// EXEC without MULTI.
    ExecWithoutMulti,
    /// DISCARD without MULTI.
    DiscardWithoutMulti,
    /// WATCH inside MULTI.
    WatchInMulti,
    /// SCAN cursor that is not an unsigned 64-bit number.
    InvalidCursor,
    /// SCAN given HSCAN's NOVALUES.
    NovaluesOnlyInHscan,
    /// EXPIRE NX together with XX, GT or LT.
    ExpireNxAndOthers,
    /// EXPIRE GT together with LT.
    ExpireGtAndLt,
    /// CONFIG REWRITE without a config file.
    NoConfigFile,
    /// BLOCK so large that the deadline would overflow.
    TimeoutOutOfRange,
    /// CLIENT LIST ID with an id that is no integer.
    InvalidClientId,
    #[cfg(feature = "host")]
    /// CLIENT KILL ip:port matching no connection.
    NoSuchClient,
    #[cfg(feature = "host")]
    /// CLIENT KILL ID not a positive integer.
    ClientIdNotPositive,
    #[cfg(feature = "host")]
    /// CLIENT KILL MAXAGE not an integer.
    MaxAgeNotInteger,
    #[cfg(feature = "host")]
    /// CLIENT KILL MAXAGE not positive.
    MaxAgeNotPositive,
    #[cfg(feature = "host")]
    /// CLIENT PAUSE with a mode other than WRITE or ALL.
    PauseMode,
    #[cfg(feature = "host")]
    /// SHUTDOWN ABORT with no shutdown waiting.
    NoShutdownInProgress,
    #[cfg(feature = "host")]
    /// A command flagged no-multi (SHUTDOWN) sent inside MULTI.
    NotAllowedInMulti,
    #[cfg(feature = "server")]
    /// DEBUG from a connection the host's `enable-debug-command` does not allow.
    DebugNotAllowed,
    #[cfg(feature = "server")]
    /// DEBUG STREAMLAB-CLOCK ADVANCE on a session that reads the host's clock.
    ClockNotVirtual,
    /// XADD with IDMP/IDMPAUTO twice (Redis 8.6; text from the Redis test suite).
    IdmpTwice,
    /// XADD IDMP with an empty producer id.
    IdmpEmptyProducer,
    /// XADD IDMP with an empty idempotency id.
    IdmpEmptyIid,
    /// XADD IDMPAUTO with an empty producer id.
    IdmpautoEmptyProducer,
    /// XADD IDMP/IDMPAUTO with an explicit id.
    IdmpNeedsAutoId,
    /// XCFGSET without options (Redis 8.6; the test suite pins only the beginning).
    XcfgsetNoParameter,
    /// XCFGSET IDMP-DURATION out of range (the test suite pins only the beginning).
    IdmpDurationRange,
    /// XCFGSET IDMP-MAXSIZE out of range (the test suite pins only the beginning).
    IdmpMaxsizeRange,
}

impl Msg {
    fn text(self) -> &'static str {
        match self {
            Msg::MaxLenAndMinId => "ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
            Msg::MaxLenNegative => "ERR The MAXLEN argument must be >= 0.",
            Msg::LimitNegative => "ERR The LIMIT argument must be >= 0.",
            Msg::LimitWithoutStrategy => "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy",
            Msg::XtrimWithoutStrategy => "ERR syntax error, XTRIM must be called with a trimming strategy",
            Msg::LimitWithoutApprox => "ERR syntax error, LIMIT cannot be used without the special ~ option",
            Msg::XaddZeroId => "ERR The ID specified in XADD must be greater than 0-0",
            Msg::StreamExhausted => "ERR The stream has exhausted the last possible ID, unable to add more items",
            Msg::XaddIdTooSmall => "ERR The ID specified in XADD is equal or smaller than the target stream top item",
            Msg::ElementsTooLarge => "ERR Elements are too large to be stored",
            Msg::InvalidStartInterval => "ERR invalid start ID for the interval",
            Msg::InvalidEndInterval => "ERR invalid end ID for the interval",
            Msg::TimeoutNotInteger => "ERR timeout is not an integer or out of range",
            Msg::TimeoutNegative => "ERR timeout is negative",
            Msg::GroupOnlyInXreadgroup => {
                "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead."
            }
            Msg::NoackOnlyInXreadgroup => {
                "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead."
            }
            Msg::UnbalancedXread => {
                "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified."
            }
            Msg::UnbalancedXreadNoPlus => {
                "ERR Unbalanced 'xread' list of streams: for each stream key an ID or '$' must be specified."
            }
            Msg::UnbalancedXreadgroup => {
                "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
            }
            Msg::MissingGroup => "ERR Missing GROUP option for XREADGROUP",
            Msg::GreaterIdOnlyInXreadgroup => {
                "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option."
            }
            Msg::DollarInXreadgroup => "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.",
            Msg::PlusInXreadgroup => "ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.",
            Msg::EntriesReadNegative => "ERR value for ENTRIESREAD must be positive or -1",
            Msg::XgroupNeedsKey => "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.",
            Msg::XclaimMinIdle => "ERR Invalid min-idle-time argument for XCLAIM",
            Msg::XclaimIdle => "ERR Invalid IDLE option argument for XCLAIM",
            Msg::XclaimTime => "ERR Invalid TIME option argument for XCLAIM",
            Msg::XclaimRetryCount => "ERR Invalid RETRYCOUNT option argument for XCLAIM",
            Msg::XautoclaimMinIdle => "ERR Invalid min-idle-time argument for XAUTOCLAIM",
            Msg::XautoclaimCount => "ERR COUNT must be > 0",
            Msg::XautoclaimCountTooHigh => {
                "ERR Insufficient memory, failed allocating transient memory, COUNT too high."
            }
            Msg::EntriesAddedNegative => "ERR entries_added must be positive",
            Msg::XsetidBelowGivenMaxDeleted => {
                "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
            }
            Msg::XsetidBelowMaxDeleted => "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id",
            Msg::XsetidBelowTop => "ERR The ID specified in XSETID is smaller than the target stream top item",
            Msg::XsetidEntriesAddedBelowLength => {
                "ERR The entries_added specified in XSETID is smaller than the target stream length"
            }
            Msg::NumIdsNotPositive => "ERR Number of IDs must be a positive integer",
            Msg::NumIdsMismatch => "ERR The `numids` parameter must match the number of arguments",
            Msg::MultiNested => "ERR MULTI calls can not be nested",
            Msg::ExecWithoutMulti => "ERR EXEC without MULTI",
            Msg::DiscardWithoutMulti => "ERR DISCARD without MULTI",
            Msg::WatchInMulti => "ERR WATCH inside MULTI is not allowed",
            Msg::InvalidCursor => "ERR invalid cursor",
            Msg::NovaluesOnlyInHscan => "ERR NOVALUES option can only be used in HSCAN",
            Msg::ExpireNxAndOthers => "ERR NX and XX, GT or LT options at the same time are not compatible",
            Msg::ExpireGtAndLt => "ERR GT and LT options at the same time are not compatible",
            Msg::NoConfigFile => "ERR The server is running without a config file",
            Msg::TimeoutOutOfRange => "ERR timeout is out of range",
            Msg::InvalidClientId => "ERR Invalid client ID",
            #[cfg(feature = "host")]
            Msg::NoSuchClient => "ERR No such client",
            #[cfg(feature = "host")]
            Msg::ClientIdNotPositive => "ERR client-id should be greater than 0",
            #[cfg(feature = "host")]
            Msg::MaxAgeNotInteger => "ERR maxage is not an integer or out of range",
            #[cfg(feature = "host")]
            Msg::MaxAgeNotPositive => "ERR maxage should be greater than 0",
            #[cfg(feature = "host")]
            Msg::PauseMode => "ERR CLIENT PAUSE mode must be WRITE or ALL",
            #[cfg(feature = "host")]
            Msg::NoShutdownInProgress => "ERR No shutdown in progress.",
            #[cfg(feature = "host")]
            Msg::NotAllowedInMulti => "ERR Command not allowed inside a transaction",
            #[cfg(feature = "server")]
            Msg::DebugNotAllowed => "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.",
            #[cfg(feature = "server")]
            Msg::ClockNotVirtual => "ERR the server reads the system clock; start it with --clock virtual to move time",
            // Redis 8.6+: docs-only, unverified on a server.
            Msg::IdmpTwice => "ERR IDMP/IDMPAUTO specified multiple times",
            Msg::IdmpEmptyProducer => "ERR IDMP requires a non-empty producer ID",
            Msg::IdmpEmptyIid => "ERR IDMP requires a non-empty idempotent ID",
            Msg::IdmpautoEmptyProducer => "ERR IDMPAUTO requires a non-empty producer ID",
            Msg::IdmpNeedsAutoId => "ERR IDMP/IDMPAUTO can be used only with auto-generated IDs",
            Msg::XcfgsetNoParameter => "ERR At least one parameter must be specified",
            Msg::IdmpDurationRange => "ERR IDMP-DURATION must be between 1 and 86400",
            Msg::IdmpMaxsizeRange => "ERR IDMP-MAXSIZE must be between 1 and 10000",
        }
    }
}

impl From<Msg> for CmdError {
    fn from(msg: Msg) -> CmdError {
        CmdError::Msg(msg)
    }
}

impl From<streamlab_engine::WrongType> for CmdError {
    fn from(_: streamlab_engine::WrongType) -> CmdError {
        CmdError::WrongType
    }
}

impl From<streamlab_engine::InvalidId> for CmdError {
    fn from(_: streamlab_engine::InvalidId) -> CmdError {
        CmdError::InvalidStreamId
    }
}

/// Redis quotes at most this much of an unknown command's name and arguments.
const QUOTE_LIMIT: usize = 128;

impl CmdError {
    /// The unknown-command error for `args`, keeping only what its message can show: each
    /// quoted argument takes at least 3 characters, so no more than `QUOTE_LIMIT / 3 + 1` of
    /// them, each cut to `QUOTE_LIMIT` bytes (a request of millions of arguments, or of one
    /// huge one, is not copied to report it).
    pub fn unknown_command(args: &[Vec<u8>]) -> CmdError {
        let cut = |a: &[u8]| a.get(..QUOTE_LIMIT).unwrap_or(a).to_vec();
        let mut shown = Vec::new();
        for a in crate::command::rest(args, 1) {
            if shown.len() > QUOTE_LIMIT / 3 {
                break;
            }
            shown.push(cut(a));
        }
        CmdError::UnknownCommand { name: cut(crate::command::arg(args, 0)), args: shown }
    }
}

impl fmt::Display for CmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CmdError::Syntax => f.write_str("ERR syntax error"),
            CmdError::NotInteger => f.write_str("ERR value is not an integer or out of range"),
            CmdError::WrongType => f.write_str("WRONGTYPE Operation against a key holding the wrong kind of value"),
            CmdError::NoSuchKey => f.write_str("ERR no such key"),
            CmdError::InvalidStreamId => f.write_str("ERR Invalid stream ID specified as stream command argument"),
            CmdError::WrongArity(name) => write!(f, "ERR wrong number of arguments for '{name}' command"),
            CmdError::UnknownCommand { name, args } => {
                let name = show(&name[..name.len().min(QUOTE_LIMIT)]);
                // The argument list stops growing once it reaches the limit; each argument is
                // cut to what still fits.
                let mut quoted = String::new();
                // Counted in the bytes Redis counts, not in the text's UTF-8.
                let mut used = 0;
                for arg in args {
                    if used >= QUOTE_LIMIT {
                        break;
                    }
                    let room = QUOTE_LIMIT - used;
                    used += arg.len().min(room) + 3;
                    quoted.push('\'');
                    quoted.push_str(&show(&arg[..arg.len().min(room)]));
                    quoted.push_str("' ");
                }
                write!(f, "ERR unknown command '{name}', with args beginning with: {quoted}")
            }
            CmdError::UnknownSubcommand { command, sub } => {
                write!(f, "ERR unknown subcommand '{}'. Try {command} HELP.", show(&sub[..sub.len().min(QUOTE_LIMIT)]))
            }
            CmdError::SubcommandSyntax { command, sub } => write!(
                f,
                "ERR unknown subcommand or wrong number of arguments for '{}'. Try {command} HELP.",
                show(&sub[..sub.len().min(QUOTE_LIMIT)])
            ),
            CmdError::Msg(msg) => f.write_str(msg.text()),
            #[cfg(feature = "server")]
            CmdError::ClockPastEnd { now } => write!(
                f,
                "ERR the virtual clock cannot move past {} (the end of year 9999); it is at {now}",
                crate::session::VIRTUAL_CLOCK_MAX_MS
            ),
            CmdError::NoGroupRead { key, group } => write!(
                f,
                "NOGROUP No such key '{}' or consumer group '{}' in XREADGROUP with GROUP option",
                show(key),
                show(group)
            ),
            CmdError::NoGroup { key, group } => {
                write!(f, "NOGROUP No such key '{}' or consumer group '{}'", show(key), show(group))
            }
            CmdError::NoGroupForKey { key, group } => {
                write!(f, "NOGROUP No such consumer group '{}' for key name '{}'", show(group), show(key))
            }
            CmdError::BusyGroup => f.write_str("BUSYGROUP Consumer Group name already exists"),
            CmdError::UnrecognizedXclaimOption(opt) => write!(f, "ERR Unrecognized XCLAIM option '{}'", show(opt)),
            CmdError::ExecAbort => f.write_str("EXECABORT Transaction discarded because of previous errors."),
            CmdError::ExecAbortBecause(cause) => {
                let text = cause.to_string();
                let reason = text.split_once(' ').map_or(text.as_str(), |(_, rest)| rest);
                write!(f, "EXECABORT Transaction discarded because of: {reason}")
            }
            CmdError::SubscribedContext(name) => write!(
                f,
                "ERR Can't execute '{name}': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context"
            ),
            CmdError::NotInTransaction(name) => write!(f, "ERR Command '{name}' not allowed inside a transaction"),
            CmdError::InvalidExpire(cmd) => write!(f, "ERR invalid expire time in '{cmd}' command"),
            CmdError::DbIndexOutOfRange => f.write_str("ERR DB index is out of range"),
            CmdError::ClientNameInvalid => {
                f.write_str("ERR Client names cannot contain spaces, newlines or special characters.")
            }
            CmdError::ProtocolVersion => f.write_str("ERR Protocol version is not an integer or out of range"),
            CmdError::NoProto => f.write_str("NOPROTO unsupported protocol version"),
            CmdError::HelloSyntax(opt) => write!(f, "ERR Syntax error in HELLO option '{}'", show(opt)),
            CmdError::ConfigUnknown(name) => {
                write!(f, "ERR Unknown option or number of arguments for CONFIG SET - '{}'", show(name))
            }
            CmdError::UnsupportedOption(opt) => write!(f, "ERR Unsupported option {}", show(opt)),
            CmdError::UnknownClientType(kind) => write!(f, "ERR Unknown client type '{}'", show(kind)),
            #[cfg(feature = "host")]
            CmdError::NoSuchUser(user) => write!(f, "ERR No such user '{}'", show(user)),
            CmdError::MaxClientsOverLimit(kept) => write!(
                f,
                "ERR CONFIG SET failed (possibly related to argument 'maxclients') - The operating system is not able to handle the specified number of clients, try with {kept}"
            ),
            CmdError::ConfigSetFailed { name, reason } => {
                write!(f, "ERR CONFIG SET failed (possibly related to argument '{}') - {reason}", show(name))
            }
        }
    }
}

impl std::error::Error for CmdError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_command_keeps_only_what_its_message_shows() {
        let shapes: Vec<Vec<Vec<u8>>> = vec![
            vec![b"NOSUCH".to_vec()],
            vec![b"NOSUCH".to_vec(); 5_000],
            vec![vec![b'n'; 300], vec![b'a'; 1_000_000]],
            std::iter::once(b"x".to_vec()).chain((0..200).map(|i| format!("arg{i}").into_bytes())).collect(),
            std::iter::once(b"x".to_vec()).chain(std::iter::repeat_n(Vec::new(), 100)).collect(),
            vec![b"\xff\xfe".to_vec(), b"\x01".to_vec()],
        ];
        for args in shapes {
            let full = CmdError::UnknownCommand { name: args[0].clone(), args: args[1..].to_vec() };
            let kept = CmdError::unknown_command(&args);
            assert_eq!(kept.to_string(), full.to_string());
            let CmdError::UnknownCommand { args: shown, .. } = kept else { unreachable!() };
            assert!(shown.len() <= QUOTE_LIMIT / 3 + 1 && shown.iter().all(|a| a.len() <= QUOTE_LIMIT));
        }
    }
}
