//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.

pub mod reply;
pub mod tokenize;

pub use reply::Reply;
pub use tokenize::{tokenize, TokenizeError};
