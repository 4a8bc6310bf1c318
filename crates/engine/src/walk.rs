//! [`Walk`]: an iterator that is one of two, or nothing.

/// One of two iterators of the same items chosen at run time, or nothing, such as a range
/// walked forwards or backwards. An enum rather than a `Box<dyn Iterator>`: a trait object's
/// vtable carries `nth`, `advance_by` and `size_hint` for every iterator put behind it, about
/// 1 KB of wasm each that nothing calls; this has only `next`.
pub enum Walk<A, B> {
    /// Nothing to walk.
    Empty,
    /// The first kind of walk.
    Left(A),
    /// The second kind.
    Right(B),
}

impl<T, A: Iterator<Item = T>, B: Iterator<Item = T>> Iterator for Walk<A, B> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            Walk::Empty => None,
            Walk::Left(walk) => walk.next(),
            Walk::Right(walk) => walk.next(),
        }
    }
}
