//! The design-document type of a field, read from its Rust type where the type says it
//! plainly; anything else (enums, newtypes, custom serde) is unknown (`None`) and not compared.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{GenericArgument, PathArguments, Type};

/// `FieldType` tokens for `ty`, or `None` when the Rust type does not decide it.
pub fn field_type(ty: &Type) -> TokenStream {
    match name(ty) {
        Some(v) => {
            let v = syn::Ident::new(v, proc_macro2::Span::call_site());
            quote!(::core::option::Option::Some(::monotable::design::FieldType::#v))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn first_arg(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(a) = args else { return None };
    a.args.iter().find_map(|g| match g {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

fn name(ty: &Type) -> Option<&'static str> {
    let Type::Path(p) = ty else {
        return match ty {
            Type::Reference(r) => name(&r.elem),
            _ => None,
        };
    };
    let last = p.path.segments.last()?;
    Some(match last.ident.to_string().as_str() {
        "String" | "str" => "String",
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize"
        | "f32" | "f64" => "Number",
        "bool" => "Bool",
        "Option" | "Box" => return name(first_arg(&last.arguments)?),
        // serde writes every sequence, `Vec<u8>` included, as a list (L); sets too.
        "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => "List",
        "HashMap" | "BTreeMap" => "Map",
        "DateTime" | "OffsetDateTime" => "Timestamp",
        _ => return None,
    })
}

/// `ty` as a diagnostic names it: its tokens without spaces (`Option<i64>`).
pub fn type_text(ty: &Type) -> String {
    quote!(#ty).to_string().replace(' ', "")
}

/// The DynamoDB scalar type (`"S"` or `"N"`) a field of Rust type `ty` is stored as when it
/// is part of a multi-attribute index key, or `None` if the type cannot be one. Only types
/// whose serde form is decided by the type and that can fill a [`KeyPart`] qualify: `String`
/// (S) and the integer types (N), each optionally in an `Option` (absent: the item is left
/// out of the index). `Vec<u8>` is not B: serde writes it as a list.
///
/// [`KeyPart`]: https://docs.rs/monotable/latest/monotable/trait.KeyPart.html
pub fn key_scalar(ty: &Type) -> Option<&'static str> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    match last.ident.to_string().as_str() {
        "String" => Some("S"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            Some("N")
        }
        "Option" | "Box" => match first_arg(&last.arguments)? {
            Type::Path(inner) if inner.path.segments.last().is_some_and(|s| s.ident == "Option") => None,
            inner => key_scalar(inner),
        },
        _ => None,
    }
}

/// The Rust types a `version` field may have: integers that hold every version the library
/// stores. `monotable` writes the version as a number, 1 on `create` and one more on every
/// write, reads it back as an `i64` (`Update::expect_version`, `ConflictReason::
/// VersionMismatch`), and requires it on every `put`, so the field is never absent (no
/// `Option`) and never narrower than the versions it may reach (no `i32`, `u8`, ...).
pub const VERSION_TYPES: [&str; 2] = ["i64", "u64"];

/// Whether `ty` is one of [`VERSION_TYPES`], by its last path segment (`i64`,
/// `std::primitive::i64`). A type alias is not seen through and is refused.
pub fn is_version_type(ty: &Type) -> bool {
    let Type::Path(p) = ty else { return false };
    p.qself.is_none()
        && p.path
            .segments
            .last()
            .is_some_and(|s| s.arguments.is_empty() && VERSION_TYPES.iter().any(|t| s.ident == t))
}
