//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.
//!
//! * [`tokenize`](mod@tokenize): a console line -> arguments, with redis-cli's quoting rules;
//! * [`command`]: the command table, argument parsing and each command's handler;
//! * [`error`]: `CmdError`, whose `Display` is the exact Redis error line;
//! * [`session`]: the `Session` façade (engine, clock, connections) every host uses;
//! * [`console`]: `Console`, console lines (commands and `:` meta-commands) over a timeline,
//!   with named connections, plus the syntax hint, completion and `help` text;
//! * [`timeline`]: `Timeline`, a session with undo, redo and seek;
//! * [`transcript`]: the transcript format and script runner, the behaviour spec's form;
//! * [`resp`]: RESP2/RESP3 encoding, the client-side reply decoder and protocol errors;
//! * [`request`]: the server-side request parser, incremental per connection;
//! * [`format`](mod@format): a reply -> the text redis-cli prints for it.

pub mod civil;
pub mod command;
pub mod console;
mod double;
pub mod error;
pub mod format;
pub mod help;
pub mod profile;
pub mod reply;
pub mod request;
pub mod resp;
pub mod session;
pub mod timeline;
pub mod tokenize;
pub mod transcript;

pub use console::{Console, Output, OutputKind};
pub use double::{format_double, push_decimal};
pub use error::{CmdError, Msg};
pub use format::{format_reply, format_reply_to, quote_bytes, SUBSCRIBE_BANNER};
pub use profile::{Capabilities, Profile, UnknownProfile, PROFILES};
pub use reply::Reply;
pub use request::{parse_request, Args, RequestParser};
pub use resp::{decode_reply, encode, encode_into, encode_request, ProtocolError};
pub use session::{Clock, ConnId, Delivery, Executed, HostRequest, Session, VIRTUAL_CLOCK_MAX_MS, VIRTUAL_EPOCH_MS};
pub use timeline::{Keep, Record, Step, StepOutput, Timeline, Words};
pub use tokenize::{tokenize, TokenizeError};
