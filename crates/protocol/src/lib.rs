//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.

pub mod command;
pub mod error;
pub mod reply;
pub mod session;

pub use error::{CmdError, Msg};
pub use reply::Reply;
pub use session::{Clock, ConnId, Delivery, Executed, Session, VIRTUAL_EPOCH_MS};

/// The Redis version StreamLab answers as (INFO, HELLO).
pub const REDIS_VERSION: &str = "8.2.3";
