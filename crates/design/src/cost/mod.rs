//! `design cost`: a monthly estimate from what running the design measured and a traffic file.
//!
//! Invariant: the estimate is arithmetic over [`Measured`] (the capacity the engine reported
//! for each access pattern and the sizes of the sample items), a traffic file and a price
//! table; it runs nothing itself, so every figure can be pinned by a hand-computed test.

mod measured;

pub use measured::{IndexCopy, Measured, MeasuredEntity, MeasuredPattern};
