//! The traffic file: how often each access pattern runs and how many items each entity type
//! has, plus the settings a provisioned table would be sized with.
//!
//! Invariant: a parsed [`Traffic`] holds only finite, non-negative numbers in range and at
//! most one rate per pattern; names are checked against a design by the estimate.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::{non_negative, CostError};

/// How a design's table is used in a month.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Traffic {
    /// Per access pattern (by name): its rate and read consistency. A pattern left out runs
    /// zero times (the estimate notes it).
    #[serde(default)]
    pub patterns: BTreeMap<String, PatternTraffic>,
    /// Per entity type (by name): how many items it has. One left out has none.
    #[serde(default)]
    pub entities: BTreeMap<String, EntityTraffic>,
    /// How provisioned capacity would be sized.
    #[serde(default)]
    pub provisioned: ProvisionedSettings,
    /// Which month the estimate is for, from 1: items grow by `growth_per_month` each month.
    #[serde(default = "first_month")]
    pub month: u32,
}

fn first_month() -> u32 {
    1
}

impl Default for Traffic {
    /// No traffic and no items, in the first month.
    fn default() -> Self {
        Traffic {
            patterns: BTreeMap::new(),
            entities: BTreeMap::new(),
            provisioned: ProvisionedSettings::default(),
            month: first_month(),
        }
    }
}

/// The rate of one access pattern: `per_second` (a mean over the month) or `per_month`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatternTraffic {
    /// Mean requests per second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second: Option<f64>,
    /// Requests per month.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_month: Option<f64>,
    /// Whether a read is strongly consistent (eventually consistent when omitted).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub consistent: bool,
}

/// The items of one entity type.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityTraffic {
    /// Items at the start of the first month.
    pub count: f64,
    /// Items added per month (a steady rate).
    #[serde(default)]
    pub growth_per_month: f64,
}

/// How provisioned capacity is sized from the mean rate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProvisionedSettings {
    /// The share of provisioned capacity the mean load may use, in percent: auto scaling's
    /// target utilization, 70 when omitted as in the console ("Managing throughput capacity
    /// automatically with DynamoDB auto scaling",
    /// <https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/AutoScaling.html>).
    /// Auto scaling takes 20 to 90; up to 100 is accepted for capacity set by hand.
    #[serde(default = "default_utilization")]
    pub target_utilization_percent: f64,
    /// The peak rate over the mean rate (1 when omitted): capacity is sized for the peak.
    #[serde(default = "one")]
    pub peak_factor: f64,
}

fn default_utilization() -> f64 {
    70.0
}

fn one() -> f64 {
    1.0
}

impl Default for ProvisionedSettings {
    fn default() -> Self {
        ProvisionedSettings { target_utilization_percent: default_utilization(), peak_factor: one() }
    }
}

impl Traffic {
    /// Reads a traffic file: JSON if the text starts with `{`, YAML otherwise, then checks
    /// every number.
    pub fn parse(text: &str) -> Result<Traffic, CostError> {
        let traffic: Traffic = crate::text::from_text(text, CostError::TrafficParse)?;
        traffic.validate()?;
        Ok(traffic)
    }

    /// Checks every number and rate (a `Traffic` built in code is checked again by the
    /// estimate).
    pub(crate) fn validate(&self) -> Result<(), CostError> {
        for (name, p) in &self.patterns {
            match (p.per_second, p.per_month) {
                (Some(v), None) => non_negative(|| format!("patterns.{name}.per_second"), v)?,
                (None, Some(v)) => non_negative(|| format!("patterns.{name}.per_month"), v)?,
                _ => return Err(CostError::Rate { pattern: name.clone() }),
            };
        }
        for (name, e) in &self.entities {
            non_negative(|| format!("entities.{name}.count"), e.count)?;
            non_negative(|| format!("entities.{name}.growth_per_month"), e.growth_per_month)?;
        }
        let tu = self.provisioned.target_utilization_percent;
        if !(tu.is_finite() && tu > 0.0 && tu <= 100.0) {
            return Err(CostError::BadNumber {
                what: "provisioned.target_utilization_percent".into(),
                value: tu,
                expected: "a percentage above 0 and at most 100",
            });
        }
        let peak = self.provisioned.peak_factor;
        if !(peak.is_finite() && peak >= 1.0) {
            return Err(CostError::BadNumber {
                what: "provisioned.peak_factor".into(),
                value: peak,
                expected: "a finite number >= 1",
            });
        }
        if self.month == 0 {
            return Err(CostError::BadNumber { what: "month".into(), value: 0.0, expected: "1 or more" });
        }
        Ok(())
    }

    /// Requests of `pattern` in a month of `seconds`; zero when the file leaves it out.
    pub(crate) fn requests_per_month(&self, pattern: &str, seconds: f64) -> f64 {
        match self.patterns.get(pattern) {
            Some(PatternTraffic { per_second: Some(r), .. }) => r * seconds,
            Some(PatternTraffic { per_month: Some(n), .. }) => *n,
            _ => 0.0,
        }
    }

    /// The mean number of items of `entity` over the estimated month: the count grows
    /// steadily, so month `m` holds on average `count + growth × (m − ½)`.
    pub(crate) fn mean_items(&self, entity: &str) -> f64 {
        self.entities
            .get(entity)
            .map(|e| e.count + e.growth_per_month * (f64::from(self.month) - 0.5))
            .unwrap_or(0.0)
    }
}
