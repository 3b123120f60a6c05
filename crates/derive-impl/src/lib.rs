//! The logic behind `#[derive(Entity)]` and `#[derive(Collection)]` of `monotable`.
//!
//! This is an ordinary library (not a proc-macro crate) so the parsing, the compile-time
//! checks of key templates and the generated code can be unit-tested with plain `#[test]`s.
//! `monotable-derive` is a thin shell that forwards its token streams here.
//!
//! Invariant: every diagnostic is a `syn::Error` with the span of the offending attribute,
//! template literal or field, so a mistake in a key template points at the template.

mod attrs;
mod collection;
mod expand;
mod field_type;
mod pattern;
mod template;

pub use template::{parse_template, Segment};

use proc_macro2::TokenStream;

/// Expands `#[derive(Entity)]`. Errors become `compile_error!` invocations.
pub fn derive_entity(input: TokenStream) -> TokenStream {
    match syn::parse2::<syn::DeriveInput>(input).and_then(|input| expand::entity(&input)) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

/// Expands `#[derive(Collection)]` on an enum whose variants each wrap one entity type.
pub fn derive_collection(input: TokenStream) -> TokenStream {
    match syn::parse2::<syn::DeriveInput>(input).and_then(|input| collection::expand(&input)) {
        Ok(tokens) => tokens,
        Err(error) => error.to_compile_error(),
    }
}

#[cfg(test)]
mod tests;
