use thiserror::Error;

/// Why a number was refused. The `Display` text is DynamoDB's `ValidationException` message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NumberError {
    /// The text is not a number at all.
    #[error("A value provided cannot be converted into a number")]
    NotANumber,
    /// More than 38 significant digits.
    #[error("Attempting to store more than 38 significant digits in a Number")]
    Precision,
    /// Magnitude at or above 1E+126.
    #[error("Number overflow. Attempting to store a number with magnitude larger than supported range")]
    Overflow,
    /// Non-zero magnitude below 1E-130.
    #[error("Number underflow. Attempting to store a number with magnitude smaller than supported range")]
    Underflow,
}
