//! The price table: DynamoDB's unit prices as data, us-east-1 built in, any other from a file.
//!
//! Invariant: every price and billing constant the estimate uses is a field here, read from
//! `prices-us-east-1.yaml` or a file of the same format; no figure lives in code.

use serde::{Deserialize, Serialize};

use super::error::{non_negative, positive, CostError};

/// The built-in table: us-east-1, Standard table class.
const US_EAST_1: &str = include_str!("prices-us-east-1.yaml");

/// DynamoDB's unit prices for one region and table class.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// The region the prices are for.
    pub region: String,
    /// The table class (`standard`, `standard_infrequent_access`).
    pub table_class: String,
    /// The currency, e.g. `USD`.
    pub currency: String,
    /// The date the prices were read (ISO 8601).
    pub read_on: String,
    /// Where they were read.
    pub source: Vec<String>,
    /// On-demand request unit prices.
    pub on_demand: OnDemandPrices,
    /// Provisioned capacity unit prices.
    pub provisioned: ProvisionedPrices,
    /// Storage price and how storage is measured.
    pub storage: StoragePrices,
    /// Hours in the billed month (the pricing pages use 730).
    pub hours_per_month: f64,
}

/// On-demand prices per million request units.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnDemandPrices {
    /// Per million write request units.
    pub write_per_million: f64,
    /// Per million read request units.
    pub read_per_million: f64,
}

/// Provisioned prices per capacity unit per hour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvisionedPrices {
    /// Per write capacity unit-hour.
    pub write_unit_hour: f64,
    /// Per read capacity unit-hour.
    pub read_unit_hour: f64,
}

/// The storage price and the measure it applies to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoragePrices {
    /// Per GB-month.
    pub gb_month: f64,
    /// Bytes in a billed GB.
    pub bytes_per_gb: f64,
    /// Bytes DynamoDB adds to each table item and each index entry for indexing.
    pub item_overhead_bytes: f64,
}

impl Prices {
    /// The built-in us-east-1 prices (Standard table class).
    pub fn us_east_1() -> Prices {
        // The built-in table is data of this crate; a test pins that it parses.
        Prices::parse(US_EAST_1).expect("the built-in us-east-1 price table is valid")
    }

    /// Reads a price table: JSON if the text starts with `{`, YAML otherwise. Every number
    /// must be finite and not negative; a GB's bytes and the month's hours above zero.
    pub fn parse(text: &str) -> Result<Prices, CostError> {
        let prices: Prices = crate::text::from_text(text, CostError::PricesParse)?;
        prices.validate()?;
        Ok(prices)
    }

    /// Checks every number (a `Prices` built in code is checked again by the estimate).
    pub(crate) fn validate(&self) -> Result<(), CostError> {
        let named = |name: &'static str| move || format!("prices.{name}");
        non_negative(named("on_demand.write_per_million"), self.on_demand.write_per_million)?;
        non_negative(named("on_demand.read_per_million"), self.on_demand.read_per_million)?;
        non_negative(named("provisioned.write_unit_hour"), self.provisioned.write_unit_hour)?;
        non_negative(named("provisioned.read_unit_hour"), self.provisioned.read_unit_hour)?;
        non_negative(named("storage.gb_month"), self.storage.gb_month)?;
        positive(named("storage.bytes_per_gb"), self.storage.bytes_per_gb)?;
        non_negative(named("storage.item_overhead_bytes"), self.storage.item_overhead_bytes)?;
        positive(named("hours_per_month"), self.hours_per_month)?;
        Ok(())
    }
}
