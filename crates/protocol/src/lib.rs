//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.

pub mod command;
pub mod error;
pub mod reply;

pub use error::{CmdError, Msg};
pub use reply::Reply;
