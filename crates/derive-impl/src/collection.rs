//! Code generation for `#[derive(Collection)]`: an enum with one single-field tuple variant
//! per entity type, decoded item by item from the entity-type attribute.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{spanned::Spanned, Data, DeriveInput, Fields};

pub fn expand(input: &DeriveInput) -> syn::Result<TokenStream> {
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new(input.ident.span(), "#[derive(Collection)] needs an enum"));
    };
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(input.generics.span(), "a collection cannot be generic"));
    }
    let mut types = Vec::new();
    let mut arms = Vec::new();
    for variant in &data.variants {
        let Fields::Unnamed(fields) = &variant.fields else {
            return Err(syn::Error::new(
                variant.span(),
                "each variant must wrap exactly one entity: `Record(Record)`",
            ));
        };
        let mut iter = fields.unnamed.iter();
        let (Some(field), None) = (iter.next(), iter.next()) else {
            return Err(syn::Error::new(
                variant.span(),
                "each variant must wrap exactly one entity: `Record(Record)`",
            ));
        };
        let ty = &field.ty;
        let v = &variant.ident;
        types.push(quote!(<#ty as ::monotable::Entity>::schema()));
        arms.push(quote! {
            if entity_type == <#ty as ::monotable::Entity>::schema().type_name {
                return ::monotable::__private::decode_item::<#ty>(item).map(|e| ::core::option::Option::Some(Self::#v(e)));
            }
        });
    }
    let ident = &input.ident;
    Ok(quote! {
        impl ::monotable::Collection for #ident {
            fn members() -> ::std::vec::Vec<&'static ::monotable::schema::EntitySchema> {
                ::std::vec![#(#types),*]
            }
            fn decode(
                entity_type: &str,
                item: ::monotable::__private::Item,
            ) -> ::core::result::Result<::core::option::Option<Self>, ::monotable::Error> {
                #(#arms)*
                ::core::result::Result::Ok(::core::option::Option::None)
            }
        }
    })
}
