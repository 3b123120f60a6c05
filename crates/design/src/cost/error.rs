//! Why an estimate could not be made.

/// An estimate could not be made: the traffic file, the price table or the measurements do
/// not fit the design, or hold a number no bill can be computed from.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CostError {
    /// The traffic file is not YAML or JSON of the traffic format.
    TrafficParse(String),
    /// The price table is not YAML or JSON of the price format.
    PricesParse(String),
    /// The traffic file names access patterns the design does not have (sorted).
    UnknownPatterns(Vec<String>),
    /// The traffic file names entity types the design does not have (sorted).
    UnknownEntities(Vec<String>),
    /// The measurements name a secondary index the design does not have.
    UnknownIndex {
        /// The entity type or access pattern whose measurement names it.
        subject: String,
        /// The index name.
        index: String,
    },
    /// Traffic is given for a pattern or an entity type the measurements do not cover.
    NotMeasured {
        /// `pattern` or `entity`.
        kind: &'static str,
        /// Its name.
        name: String,
    },
    /// A pattern's rate is given both per second and per month, or neither.
    Rate {
        /// The access pattern.
        pattern: String,
    },
    /// A strongly consistent read asked of a pattern that cannot make one: a write, or a read
    /// of a global secondary index (DynamoDB reads a GSI eventually consistently only).
    NoStrongRead {
        /// The access pattern.
        pattern: String,
    },
    /// A number is not finite, is negative, or is outside its range.
    BadNumber {
        /// Where it is, e.g. `patterns.get-user.per_second`.
        what: String,
        /// The value.
        value: f64,
        /// What it must be, e.g. `a finite number >= 0`.
        expected: &'static str,
    },
}

impl std::fmt::Display for CostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CostError::TrafficParse(m) => write!(f, "traffic file: {m}"),
            CostError::PricesParse(m) => write!(f, "price table: {m}"),
            CostError::UnknownPatterns(names) => {
                write!(f, "traffic file: the design has no access pattern {}", names.join(", "))
            }
            CostError::UnknownEntities(names) => {
                write!(f, "traffic file: the design has no entity type {}", names.join(", "))
            }
            CostError::UnknownIndex { subject, index } => {
                write!(f, "measurements: {subject} names index {index}, which the design does not have")
            }
            CostError::NotMeasured { kind, name } => {
                write!(f, "measurements: {kind} {name} has traffic but was not measured")
            }
            CostError::Rate { pattern } => {
                write!(f, "traffic file: pattern {pattern} needs exactly one of per_second and per_month")
            }
            CostError::NoStrongRead { pattern } => write!(
                f,
                "traffic file: pattern {pattern} cannot read strongly consistently (it writes, or reads a global secondary index)"
            ),
            CostError::BadNumber { what, value, expected } => {
                write!(f, "{what} is {value}; it must be {expected}")
            }
        }
    }
}

impl std::error::Error for CostError {}

/// `value` if it is finite and not negative, else [`CostError::BadNumber`] naming `what`.
pub(crate) fn non_negative(what: impl FnOnce() -> String, value: f64) -> Result<f64, CostError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(CostError::BadNumber { what: what(), value, expected: "a finite number >= 0" })
    }
}

/// `value` if it is finite and above zero, else [`CostError::BadNumber`] naming `what`.
pub(crate) fn positive(what: impl FnOnce() -> String, value: f64) -> Result<f64, CostError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(CostError::BadNumber { what: what(), value, expected: "a finite number > 0" })
    }
}
