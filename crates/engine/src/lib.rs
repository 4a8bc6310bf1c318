//! StreamLab's stream engine: a faithful model of Redis Streams and consumer groups.
//!
//! The engine holds state and applies typed operations to it. It performs no I/O, reads no
//! clock (every operation that needs the time is given `now` in Unix milliseconds by its
//! caller, once per command), formats no messages and knows nothing of the wire protocol:
//! the same inputs always give the same state.

mod chunked;
mod glob;
mod group;
mod id;
mod keyspace;
pub mod listpack;
mod node;
mod numbers;
pub mod sort;
mod sorted;
mod stream;
mod walk;

pub use chunked::{ChunkMap, ChunkRange, ChunkSet};
pub use glob::glob_match;
pub use group::{Consumer, ConsumerName, Group, Pending};
pub use id::{AddId, IdMode, InvalidId, StreamId};
pub use keyspace::{Keyspace, Value, ValueKind, WrongType};
pub use node::Node;
pub use numbers::canonical_i64;
pub use sorted::{SortedMap, SortedMapIter, SortedSet, SortedSetIter};
pub use stream::{
    count_limit, AddError, AutoClaim, AutoClaimOptions, ClaimOptions, Claimed, CounterRules, DeleteOutcome, Entry,
    Fields, Idmp, NackMode, ReadBudget, ReadGroup, RefPolicy, SetIdError, Stream, StreamConfig, Trim, TrimStrategy,
    IDMP_DEFAULT_DURATION, IDMP_DEFAULT_MAXSIZE,
};
pub use walk::Walk;
