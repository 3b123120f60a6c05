//! The table a design asks for, and how a live table differs from it: the model side of
//! `monotable design apply` and `design diff` (and of the console's drift view).
//!
//! Invariant: this module knows no AWS SDK. A caller fills a [`TableShape`] from its own
//! DescribeTable, DescribeTimeToLive and ListTagsOfResource answers, and turns the
//! [`Change`]s of a [`Drift`] into its own requests.

mod diff;
mod shape;

pub use diff::{diff, Change, Drift};
pub use shape::{IndexShape, TableShape};
