//! `design cost`: a monthly estimate from what running the design measured and a traffic file.
//!
//! Invariant: the estimate is arithmetic over [`Measured`] (the capacity the engine reported
//! for each access pattern and the sizes of the sample items), a traffic file and a price
//! table; it runs nothing itself, so every figure can be pinned by a hand-computed test.
//! Prices are data ([`Prices`]), never constants in code. Format and rules: `docs/cost.md`.

mod check;
mod compute;
mod error;
mod estimate;
mod measured;
mod prices;
mod text;
mod traffic;

pub use compute::estimate;
pub use error::CostError;
pub use estimate::{
    Capacity, Estimate, IndexCost, KeysOnlySaving, ModeCost, PatternCost, PriceInfo, ProvisionedCost,
    StorageCost,
};
pub use measured::{IndexCopy, Measured, MeasuredEntity, MeasuredPattern};
pub use prices::{OnDemandPrices, Prices, ProvisionedPrices, StoragePrices};
pub use traffic::{EntityTraffic, PatternTraffic, ProvisionedSettings, Traffic};
