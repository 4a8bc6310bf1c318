//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.
//!
//! * [`tokenize`](mod@tokenize): a console line -> arguments, with redis-cli's quoting rules;
//! * [`resp`]: RESP2/RESP3 encoding, the client-side reply decoder, the server-side request
//!   parser;
//! * [`format`](mod@format): a reply -> the text redis-cli prints for it.

mod double;
pub mod format;
pub mod reply;
pub mod resp;
pub mod tokenize;

pub use format::{format_reply, quote_bytes, SUBSCRIBE_BANNER};
pub use reply::Reply;
pub use resp::{
    decode_reply, encode, encode_into, encode_request, format_double, parse_request, ProtocolError,
};
pub use tokenize::{tokenize, TokenizeError};
