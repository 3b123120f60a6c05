//! `#[derive(Entity)]` and `#[derive(Collection)]` for `monotable`. The logic lives in
//! `monotable-derive-impl`; see the `monotable` crate documentation for usage.

use proc_macro::TokenStream;

/// Declares a single-table entity: key templates, tenant, version, TTL and unique fields.
#[proc_macro_derive(Entity, attributes(entity))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    monotable_derive_impl::derive_entity(input.into()).into()
}

/// Declares an enum of entity types that share a partition, decoded by entity type.
#[proc_macro_derive(Collection)]
pub fn derive_collection(input: TokenStream) -> TokenStream {
    monotable_derive_impl::derive_collection(input.into()).into()
}
