//! The change handler: user code run once per record, in stream order.

use std::future::Future;

use super::record::ChangeRecord;
pub use crate::error::BoxError;

/// Code that reacts to changes. A failure stops delivery at that record: the consumer does
/// not advance its checkpoint past it, so the record is delivered again (at least once, as
/// Lambda retries a failed batch).
///
/// Any `FnMut(ChangeRecord<C>) -> impl Future<Output = Result<(), E>>` is a handler; implement
/// the trait on a type to borrow records instead of receiving clones.
pub trait Handler<C>: Send {
    /// What the handler fails with.
    type Error: Into<BoxError>;

    /// Handles one record.
    fn handle(&mut self, change: &ChangeRecord<C>) -> impl Future<Output = Result<(), Self::Error>> + Send;
}

impl<C, F, Fut, E> Handler<C> for F
where
    C: Clone + Send + Sync,
    F: FnMut(ChangeRecord<C>) -> Fut + Send,
    Fut: Future<Output = Result<(), E>> + Send,
    E: Into<BoxError>,
{
    type Error = E;

    fn handle(&mut self, change: &ChangeRecord<C>) -> impl Future<Output = Result<(), E>> + Send {
        self(change.clone())
    }
}
