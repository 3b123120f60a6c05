//! Errors reading a design document.

/// A design document could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum DesignError {
    /// The text is not valid JSON or YAML for a design document.
    Parse(String),
    /// A key template is malformed.
    Template(String),
}

impl std::fmt::Display for DesignError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DesignError::Parse(m) => write!(f, "design document: {m}"),
            DesignError::Template(m) => write!(f, "key template: {m}"),
        }
    }
}

impl std::error::Error for DesignError {}
