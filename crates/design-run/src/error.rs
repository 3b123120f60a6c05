//! Why a design could not be run at all (a pattern that fails is a finding, not an error).

/// A design `validate` cannot run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The document is inconsistent: an unknown `per` entity, a cycle of `per`, a malformed
    /// template.
    #[error("design: {0}")]
    Design(String),
    /// The engine refused to create the table or to load a sample item.
    #[error("engine: {0}")]
    Engine(String),
}

impl From<monotable_design::DesignError> for RunError {
    fn from(e: monotable_design::DesignError) -> RunError {
        RunError::Design(e.to_string())
    }
}
