//! Connection commands. Their table entries live here like every other command's, but they
//! run inside the session, which owns connection state (see `session.rs`).

use super::{CommandSpec, Run, SubSpec};

/// The connection commands, as the session dispatches them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum SessionCmd {
    Multi,
    Exec,
    Discard,
    Watch,
    Unwatch,
    Subscribe,
    PSubscribe,
    Unsubscribe,
    PUnsubscribe,
    Publish,
    Pubsub,
    Ping,
    Select,
    Quit,
    Reset,
    Hello,
    Client,
    #[cfg(feature = "host")]
    Shutdown,
    #[cfg(feature = "server")]
    Debug,
}

impl SessionCmd {
    /// Runs at once inside MULTI instead of being queued.
    pub fn controls_transaction(self) -> bool {
        use SessionCmd::*;
        matches!(self, Exec | Discard | Multi | Watch | Quit | Reset)
    }

    /// Allowed while the connection is subscribed (RESP2).
    pub fn allowed_subscribed(self) -> bool {
        use SessionCmd::*;
        matches!(self, Subscribe | PSubscribe | Unsubscribe | PUnsubscribe | Ping | Quit | Reset)
    }
}

const fn conn_command(
    cmd: SessionCmd,
    name: &'static str,
    arity: i32,
    syntax: &'static str,
    summary: &'static str,
    since: &'static str,
    group: &'static str,
) -> CommandSpec {
    CommandSpec { name, arity, write: false, syntax, summary, since, group, subcommands: &[], run: Run::Session(cmd) }
}

/// The connection, transaction and Pub/Sub commands.
pub const COMMANDS: &[CommandSpec] = &[
    conn_command(SessionCmd::Multi, "multi", 1, "", "Starts a transaction.", "1.2.0", "transactions"),
    conn_command(SessionCmd::Exec, "exec", 1, "", "Executes all commands in a transaction.", "1.2.0", "transactions"),
    conn_command(SessionCmd::Discard, "discard", 1, "", "Discards a transaction.", "2.0.0", "transactions"),
    conn_command(
        SessionCmd::Watch,
        "watch",
        -2,
        "key [key ...]",
        "Monitors changes to keys to determine the execution of a transaction.",
        "2.2.0",
        "transactions",
    ),
    conn_command(
        SessionCmd::Unwatch,
        "unwatch",
        1,
        "",
        "Forgets about watched keys of a transaction.",
        "2.2.0",
        "transactions",
    ),
    conn_command(
        SessionCmd::Subscribe,
        "subscribe",
        -2,
        "channel [channel ...]",
        "Listens for messages published to channels.",
        "2.0.0",
        "pubsub",
    ),
    conn_command(
        SessionCmd::PSubscribe,
        "psubscribe",
        -2,
        "pattern [pattern ...]",
        "Listens for messages published to channels that match one or more patterns.",
        "2.0.0",
        "pubsub",
    ),
    conn_command(
        SessionCmd::Unsubscribe,
        "unsubscribe",
        -1,
        "[channel [channel ...]]",
        "Stops listening to messages posted to channels.",
        "2.0.0",
        "pubsub",
    ),
    conn_command(
        SessionCmd::PUnsubscribe,
        "punsubscribe",
        -1,
        "[pattern [pattern ...]]",
        "Stops listening to messages published to channels that match one or more patterns.",
        "2.0.0",
        "pubsub",
    ),
    conn_command(
        SessionCmd::Publish,
        "publish",
        3,
        "channel message",
        "Posts a message to a channel.",
        "2.0.0",
        "pubsub",
    ),
    CommandSpec {
        name: "pubsub",
        arity: -2,
        write: false,
        syntax: "<CHANNELS | NUMSUB | NUMPAT> ...",
        summary: "A container for Pub/Sub commands.",
        since: "2.8.0",
        group: "pubsub",
        subcommands: &[
            SubSpec {
                name: "channels",
                since: "2.8.0",
                arity: -2,
                syntax: "[pattern]",
                summary: "Returns the active channels.",
            },
            SubSpec {
                name: "numsub",
                since: "2.8.0",
                arity: -2,
                syntax: "[channel [channel ...]]",
                summary: "Returns a count of subscribers to channels.",
            },
            SubSpec {
                name: "numpat",
                since: "2.8.0",
                arity: 2,
                syntax: "",
                summary: "Returns a count of unique pattern subscriptions.",
            },
        ],
        run: Run::Session(SessionCmd::Pubsub),
    },
    conn_command(
        SessionCmd::Ping,
        "ping",
        -1,
        "[message]",
        "Returns the server's liveliness response.",
        "1.0.0",
        "connection",
    ),
    conn_command(SessionCmd::Select, "select", 2, "index", "Changes the selected database.", "1.0.0", "connection"),
    conn_command(SessionCmd::Quit, "quit", -1, "", "Closes the connection.", "1.0.0", "connection"),
    conn_command(SessionCmd::Reset, "reset", 1, "", "Resets the connection.", "6.2.0", "connection"),
    conn_command(
        SessionCmd::Hello,
        "hello",
        -1,
        "[protover [AUTH username password] [SETNAME clientname]]",
        "Handshakes with the Redis server.",
        "6.0.0",
        "connection",
    ),
    #[cfg(feature = "host")]
    conn_command(
        SessionCmd::Shutdown,
        "shutdown",
        -1,
        "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]",
        "Synchronously saves the database(s) to disk and shuts down the Redis server.",
        "1.0.0",
        "server",
    ),
    #[cfg(feature = "server")]
    conn_command(
        SessionCmd::Debug,
        "debug",
        -2,
        "subcommand [argument]",
        "A container for debugging commands.",
        "1.0.0",
        "server",
    ),
    CommandSpec {
        name: "client",
        arity: -2,
        write: false,
        syntax: "<ID | GETNAME | SETNAME | LIST | INFO | KILL | PAUSE | UNPAUSE> ...",
        summary: "A container for client connection commands.",
        since: "2.4.0",
        group: "connection",
        subcommands: &[
            SubSpec {
                name: "id",
                since: "5.0.0",
                arity: 2,
                syntax: "",
                summary: "Returns the unique client ID of the connection.",
            },
            SubSpec {
                name: "getname",
                since: "2.6.9",
                arity: 2,
                syntax: "",
                summary: "Returns the name of the connection.",
            },
            SubSpec {
                name: "setname",
                since: "2.6.9",
                arity: 3,
                syntax: "connection-name",
                summary: "Sets the connection name.",
            },
            SubSpec { name: "list", since: "2.4.0", arity: -2, syntax: "", summary: "Lists open connections." },
            SubSpec {
                name: "info",
                since: "6.2.0",
                arity: 2,
                syntax: "",
                summary: "Returns information about the connection.",
            },
            #[cfg(feature = "host")]
            SubSpec {
                name: "kill",
                since: "2.4.0",
                arity: -3,
                syntax: "<ip:port | <ID | ADDR | LADDR | TYPE | USER | SKIPME | MAXAGE> value ...>",
                summary: "Terminates open connections.",
            },
            #[cfg(feature = "host")]
            SubSpec {
                name: "pause",
                since: "3.0.0",
                arity: -3,
                syntax: "timeout [WRITE | ALL]",
                summary: "Suspends commands processing.",
            },
            #[cfg(feature = "host")]
            SubSpec {
                name: "unpause",
                since: "6.2.0",
                arity: 2,
                syntax: "",
                summary: "Resumes processing commands from paused clients.",
            },
        ],
        run: Run::Session(SessionCmd::Client),
    },
];
