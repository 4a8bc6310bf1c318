//! StreamLab's protocol layer: everything between a line of text (or RESP bytes) and the engine.

pub mod reply;

pub use reply::Reply;
