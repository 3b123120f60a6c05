//! The one rule for reading the crate's documents (designs, traffic files, price tables):
//! JSON when the text starts with `{`, YAML otherwise.

use serde::de::DeserializeOwned;

/// Reads `text` as JSON or YAML; a failure becomes the error `wrap` makes of its message.
pub(crate) fn from_text<T: DeserializeOwned, E>(text: &str, wrap: impl FnOnce(String) -> E) -> Result<T, E> {
    if text.trim_start().starts_with('{') {
        serde_json::from_str(text).map_err(|e| wrap(e.to_string()))
    } else {
        serde_norway::from_str(text).map_err(|e| wrap(e.to_string()))
    }
}
