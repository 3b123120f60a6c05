//! Access patterns declared on an entity, `#[entity(pattern(...))]`, checked at compile time
//! and emitted as `monotable::schema::PatternSchema`s, which `Table::design` lists beside the
//! builder's `.access_pattern(..)`s.
//!
//! Defaults: the index is the table; the partition-key template is the entity's on that
//! index; a single-item operation (get, put, update, delete, transact_write) on the table
//! gets the equality sort condition on the entity's sort-key template.

use proc_macro2::TokenStream;
use quote::quote;
use syn::Ident;

use crate::attrs::{IndexAttr, PatternAttr, TemplateAttr};

/// What a pattern needs to know of its entity.
pub struct EntityKeys<'a> {
    pub ident: &'a Ident,
    pub pk: &'a TemplateAttr,
    pub sk: &'a TemplateAttr,
    pub indexes: &'a [IndexAttr],
    /// `(Rust field name, stored attribute name)`.
    pub fields: Vec<(String, String)>,
}

fn operation_tokens(op: &str) -> TokenStream {
    let variant = match op {
        "get" => quote!(Get),
        "query" => quote!(Query),
        "put" => quote!(Put),
        "update" => quote!(Update),
        "delete" => quote!(Delete),
        "transact_write" => quote!(TransactWrite),
        "batch_get" => quote!(BatchGet),
        _ => quote!(BatchWrite),
    };
    quote!(::monotable::design::Operation::#variant)
}

fn sort_tokens(op: &str) -> TokenStream {
    let variant = match op {
        "sk" => quote!(Eq),
        "begins_with" => quote!(BeginsWith),
        "lt" => quote!(Lt),
        "le" => quote!(Le),
        "gt" => quote!(Gt),
        _ => quote!(Ge),
    };
    quote!(::monotable::design::SortOp::#variant)
}

/// Checks the patterns and returns their `PatternSchema` expressions. `check` validates a
/// template's placeholders against the fields.
pub fn patterns(
    e: &EntityKeys<'_>,
    patterns: &[PatternAttr],
    check: &dyn Fn(&TemplateAttr) -> syn::Result<()>,
) -> syn::Result<Vec<TokenStream>> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for p in patterns {
        let name =
            p.name.as_ref().ok_or_else(|| syn::Error::new(p.at, "a pattern needs `name = \"...\"`"))?;
        if seen.contains(&name.value()) {
            return Err(syn::Error::new(
                name.span(),
                format!("pattern `{}` is declared twice", name.value()),
            ));
        }
        seen.push(name.value());
        let op = match p.operations.as_slice() {
            [op] => op,
            [] => {
                return Err(syn::Error::new(
                    name.span(),
                    "a pattern needs one operation: get, query, put, update, delete, transact_write, batch_get or batch_write",
                ))
            }
            [_, second, ..] => return Err(syn::Error::new(second.span(), "a pattern has one operation")),
        };
        let index = match &p.index {
            None => None,
            Some(i) => {
                let Some(decl) = e.indexes.iter().find(|d| d.name == *i) else {
                    let known: Vec<String> = e.indexes.iter().map(|d| d.name.to_string()).collect();
                    let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                    return Err(syn::Error::new(
                        i.span(),
                        format!("`{i}` is not an index of `{}`; its indexes are: {known}", e.ident),
                    ));
                };
                if op != "query" {
                    return Err(syn::Error::new(
                        op.span(),
                        format!("only a `query` reads an index; `{op}` works on the table's key"),
                    ));
                }
                Some(decl)
            }
        };
        if let Some(pk) = &p.pk {
            check(pk)?;
        }
        let pk = p.pk.as_ref().map_or_else(|| index.map_or(e.pk, |d| &d.pk).lit.value(), |t| t.lit.value());
        let sort = match p.sort.as_slice() {
            [] => None,
            [(w, t)] => {
                check(t)?;
                Some((w.to_string(), t.lit.value()))
            }
            [_, (second, _), ..] => {
                return Err(syn::Error::new(second.span(), "a pattern has at most one sort-key condition"))
            }
        };
        let single_item =
            ["get", "put", "update", "delete", "transact_write"].contains(&op.to_string().as_str());
        let sort =
            sort.or_else(|| (single_item && index.is_none()).then(|| ("sk".to_string(), e.sk.lit.value())));
        let sk = match sort {
            Some((w, v)) => {
                let op = sort_tokens(&w);
                quote!(::core::option::Option::Some((#op, #v)))
            }
            None => quote!(::core::option::Option::None),
        };
        let mut filter = Vec::new();
        for f in &p.filter {
            let Some((_, attr)) = e.fields.iter().find(|(n, _)| f == n) else {
                return Err(syn::Error::new(f.span(), format!("`{f}` is not a field of `{}`", e.ident)));
            };
            filter.push(attr.clone());
        }
        let name = name.value();
        let operation = operation_tokens(&op.to_string());
        let index = match index {
            Some(d) => {
                let n = d.name.to_string();
                quote!(::core::option::Option::Some(#n))
            }
            None => quote!(::core::option::Option::None),
        };
        let admin = p.admin;
        out.push(quote! {
            ::monotable::schema::PatternSchema {
                name: #name,
                operation: #operation,
                index: #index,
                pk: #pk,
                sk: #sk,
                admin: #admin,
                filter: &[#(#filter),*],
            }
        });
    }
    Ok(out)
}
