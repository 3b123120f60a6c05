//! Code generation for `#[derive(Entity)]`.
//!
//! For `struct Record` the macro emits:
//! - `impl monotable::Entity for Record` with a `'static` schema (type name, parsed templates,
//!   tenant / version / TTL / unique fields, field-to-attribute names);
//! - `struct RecordKey` holding exactly the fields the table key templates need, minus the
//!   tenant field (which always comes from the caller's scope);
//! - `struct RecordFields` and `Record::FIELDS`, typed handles used by filters, updates,
//!   projections and sort-key conditions.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{spanned::Spanned, Data, DeriveInput, Fields, Ident, Type};

use crate::attrs::{self, TemplateAttr};
use crate::template::{parse_template, Segment};

struct FieldInfo {
    ident: Ident,
    ty: Type,
    attr: String,
    attrs: Vec<syn::Attribute>,
}

pub fn entity(input: &DeriveInput) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(input.generics.span(), "an entity cannot be generic"));
    }
    let Data::Struct(data) = &input.data else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Entity)] needs a struct with named fields",
        ));
    };
    let Fields::Named(named) = &data.fields else {
        return Err(syn::Error::new(
            input.ident.span(),
            "#[derive(Entity)] needs a struct with named fields",
        ));
    };
    let rename_all = attrs::serde_rename_all(&input.attrs)?;
    let mut fields = Vec::new();
    for field in &named.named {
        let Some(ident) = field.ident.clone() else { continue };
        let rust = ident.to_string();
        let rust = rust.strip_prefix("r#").unwrap_or(&rust).to_string();
        let attr = match (attrs::serde_rename(&field.attrs)?, &rename_all) {
            (Some(name), _) => name,
            (None, Some(rule)) => attrs::apply_rename_all(rule, &rust)?,
            (None, None) => rust.clone(),
        };
        fields.push(FieldInfo { ident, ty: field.ty.clone(), attr, attrs: field.attrs.clone() });
    }
    let entity_attrs = attrs::entity_attrs(&input.attrs)?;
    let ident = &input.ident;
    let pk = entity_attrs
        .pk
        .as_ref()
        .ok_or_else(|| syn::Error::new(ident.span(), "#[entity(pk = \"...\")] is required"))?;
    let sk = entity_attrs
        .sk
        .as_ref()
        .ok_or_else(|| syn::Error::new(ident.span(), "#[entity(sk = \"...\")] is required"))?;
    let find = |name: &Ident| -> syn::Result<&FieldInfo> {
        fields
            .iter()
            .find(|f| f.ident == *name)
            .ok_or_else(|| syn::Error::new(name.span(), format!("`{name}` is not a field of `{ident}`")))
    };
    let pk_segments = checked_template(pk, &fields)?;
    let sk_segments = checked_template(sk, &fields)?;

    if let (Some(_), Some(owner)) = (&entity_attrs.tenant, &entity_attrs.owner) {
        return Err(syn::Error::new(owner.span(), "an entity has either a tenant or an owner, not both"));
    }
    let is_owner = entity_attrs.owner.is_some();
    let tenant = entity_attrs.tenant.as_ref().or(entity_attrs.owner.as_ref()).map(&find).transpose()?;
    if let Some(tenant) = tenant {
        let in_pk = pk_segments.iter().any(|s| matches!(s, Segment::Field(f) if tenant.ident == f));
        if !in_pk {
            return Err(syn::Error::new(
                tenant.ident.span(),
                format!("the tenant field `{}` must appear in the pk template", tenant.ident),
            ));
        }
    }
    let version = entity_attrs.version.as_ref().map(&find).transpose()?;
    if let (Some(name), Some(field)) = (&entity_attrs.version, version) {
        if !crate::field_type::is_version_type(&field.ty) {
            let ty = crate::field_type::type_text(&field.ty);
            return Err(syn::Error::new(
                name.span(),
                format!("the version field `{name}` has type `{ty}`; a version must be an `i64` or a `u64` (the library stores 1 on create and one more on every write, and reads it as an i64)"),
            ));
        }
    }
    let ttl = entity_attrs.ttl.as_ref().map(&find).transpose()?;
    let unique = entity_attrs.unique.iter().map(&find).collect::<syn::Result<Vec<_>>>()?;

    let mut index_tokens = Vec::new();
    let mut template_fields: BTreeSet<String> = BTreeSet::new();
    for seg in pk_segments.iter().chain(&sk_segments) {
        if let Segment::Field(f) = seg {
            template_fields.insert(f.clone());
        }
    }
    let mut all_template_fields = template_fields.clone();
    for index in &entity_attrs.indexes {
        let multi_tokens = match &index.multi {
            Some(m) => {
                let pk = multi_key_fields(m.pk.iter(), &fields, ident)?;
                let sk = multi_key_fields(m.sk.iter(), &fields, ident)?;
                quote!(::core::option::Option::Some(::monotable::schema::MultiKey { pk: &[#(#pk),*], sk: &[#(#sk),*] }))
            }
            None => quote!(::core::option::Option::None),
        };
        let ipk = checked_template(&index.pk, &fields)?;
        let isk = index.sk.as_ref().map(|t| checked_template(t, &fields)).transpose()?;
        for seg in ipk.iter().chain(isk.iter().flatten()) {
            if let Segment::Field(f) = seg {
                all_template_fields.insert(f.clone());
            }
        }
        let name = index.name.to_string();
        let ipk_tokens = template_tokens(&index.pk.lit.value(), &ipk);
        let isk_tokens = match (&index.sk, &isk) {
            (Some(t), Some(segs)) => {
                let t = template_tokens(&t.lit.value(), segs);
                quote!(::core::option::Option::Some(#t))
            }
            _ => quote!(::core::option::Option::None),
        };
        index_tokens.push(quote! {
            ::monotable::schema::IndexSchema { name: #name, pk: #ipk_tokens, sk: #isk_tokens, multi: #multi_tokens }
        });
    }

    let type_name = entity_attrs.name.as_ref().map(|n| n.value()).unwrap_or_else(|| ident.to_string());
    let pk_tokens = template_tokens(&pk.lit.value(), &pk_segments);
    let sk_tokens = template_tokens(&sk.lit.value(), &sk_segments);
    let opt = |f: Option<&FieldInfo>| match f {
        Some(f) => {
            let a = &f.attr;
            quote!(::core::option::Option::Some(#a))
        }
        None => quote!(::core::option::Option::None),
    };
    let tenant_tokens = match tenant {
        Some(f) => {
            let n = f.ident.to_string();
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    let version_tokens = opt(version);
    let ttl_tokens = opt(ttl);
    let unique_tokens = unique.iter().map(|f| {
        let n = f.ident.to_string();
        let a = &f.attr;
        quote!(::monotable::schema::FieldSchema { name: #n, attr: #a, ty: ::core::option::Option::None })
    });
    let field_schema = fields.iter().map(|f| {
        let n = f.ident.to_string();
        let a = &f.attr;
        let ty = crate::field_type::field_type(&f.ty);
        quote!(::monotable::schema::FieldSchema { name: #n, attr: #a, ty: #ty })
    });
    let keys = crate::pattern::EntityKeys {
        ident,
        pk,
        sk,
        indexes: &entity_attrs.indexes,
        fields: fields.iter().map(|f| (f.ident.to_string(), f.attr.clone())).collect(),
    };
    let pattern_tokens = crate::pattern::patterns(&keys, &entity_attrs.patterns, &|t| {
        checked_template(t, &fields).map(|_| ())
    })?;

    // The entity's own key parts: every field any template (table or index) uses.
    let entity_arms = all_template_fields.iter().map(|name| {
        let f = fields.iter().find(|f| f.ident == name.as_str());
        let ident = f.map(|f| &f.ident);
        quote!(#name => ::monotable::KeyPart::key_part(&self.#ident))
    });

    // The key struct: table key fields minus the tenant.
    let key_ident = format_ident!("{}Key", ident);
    let tenant_name = tenant.map(|t| t.ident.to_string());
    let key_fields: Vec<&FieldInfo> = fields
        .iter()
        .filter(|f| template_fields.contains(&f.ident.to_string()))
        .filter(|f| Some(f.ident.to_string()) != tenant_name)
        .collect();
    let key_decls = key_fields.iter().map(|f| {
        let (i, t) = (&f.ident, &f.ty);
        quote!(pub #i: #t)
    });
    let key_arms = key_fields.iter().map(|f| {
        let i = &f.ident;
        let n = i.to_string();
        quote!(#n => ::monotable::KeyPart::key_part(&self.#i))
    });
    let key_clone = key_fields.iter().map(|f| {
        let i = &f.ident;
        quote!(#i: ::core::clone::Clone::clone(&self.#i))
    });
    let key_doc = format!("The key of a [`{ident}`] (its table key fields, without the tenant).");

    let fields_ident = format_ident!("{}Fields", ident);
    let fields_doc =
        format!("Typed handles to the fields of [`{ident}`], for filters, updates and sort keys.");
    let field_decls = fields.iter().map(|f| {
        let (i, t) = (&f.ident, &f.ty);
        quote!(pub #i: ::monotable::Field<#ident, #t>)
    });
    let field_inits = fields.iter().map(|f| {
        let i = &f.ident;
        let n = i.to_string();
        let a = &f.attr;
        quote!(#i: ::monotable::Field::new(#n, #a))
    });

    let validate = if entity_attrs.validate {
        let partial = partial_validation(&input.attrs, rename_all.as_ref(), &fields);
        quote! {
            fn validate(&self) -> ::core::result::Result<(), ::monotable::ValidationErrors> {
                ::monotable::__private::garde_report(::monotable::__private::garde::Validate::validate(self))
            }
            #partial
        }
    } else {
        quote!()
    };
    let vis = &input.vis;

    Ok(quote! {
        #[doc = #key_doc]
        #[derive(::core::clone::Clone, ::core::fmt::Debug)]
        #vis struct #key_ident { #(#key_decls,)* }

        impl ::monotable::EntityKey for #key_ident {
            type Entity = #ident;
            fn key_part(&self, field: &str) -> ::core::option::Option<::std::borrow::Cow<'_, str>> {
                match field { #(#key_arms,)* _ => ::core::option::Option::None }
            }
        }

        #[doc = #fields_doc]
        #[derive(::core::clone::Clone, ::core::marker::Copy)]
        #vis struct #fields_ident { #(#field_decls,)* }

        impl #ident {
            /// Typed handles to every field, by Rust name.
            #vis const FIELDS: #fields_ident = #fields_ident { #(#field_inits,)* };
        }

        impl ::monotable::Entity for #ident {
            type Key = #key_ident;
            fn schema() -> &'static ::monotable::schema::EntitySchema {
                static SCHEMA: ::monotable::schema::EntitySchema = ::monotable::schema::EntitySchema {
                    type_name: #type_name,
                    pk: #pk_tokens,
                    sk: #sk_tokens,
                    indexes: &[#(#index_tokens),*],
                    tenant: #tenant_tokens,
                    tenant_is_owner: #is_owner,
                    version_attr: #version_tokens,
                    ttl_attr: #ttl_tokens,
                    unique: &[#(#unique_tokens),*],
                    fields: &[#(#field_schema),*],
                    patterns: &[#(#pattern_tokens),*],
                };
                &SCHEMA
            }
            fn key_part(&self, field: &str) -> ::core::option::Option<::std::borrow::Cow<'_, str>> {
                match field { #(#entity_arms,)* _ => ::core::option::Option::None }
            }
            fn key(&self) -> #key_ident {
                #key_ident { #(#key_clone,)* }
            }
            #validate
        }
    })
}

/// The `KeyField`s of one part of a multi-attribute index key: every name a field of the
/// struct, of a type stored as S or N (see [`crate::field_type::key_scalar`]).
fn multi_key_fields<'a>(
    names: impl Iterator<Item = &'a Ident>,
    fields: &[FieldInfo],
    entity: &Ident,
) -> syn::Result<Vec<TokenStream>> {
    names
        .map(|name| {
            let Some(f) = fields.iter().find(|f| f.ident == *name) else {
                let known: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
                return Err(syn::Error::new(
                    name.span(),
                    format!("`{name}` is not a field of `{entity}`; the fields are: {}", known.join(", ")),
                ));
            };
            let Some(ty) = crate::field_type::key_scalar(&f.ty) else {
                let ty = crate::field_type::type_text(&f.ty);
                return Err(syn::Error::new(
                    name.span(),
                    format!("`{name}` has type `{ty}`; a multi-attribute key field must be a `String` (stored as S) or an integer (N), optionally in an `Option`"),
                ));
            };
            let (n, a) = (name.to_string(), &f.attr);
            let ty = syn::Ident::new(ty, name.span());
            Ok(quote!(::monotable::schema::KeyField { name: #n, attr: #a, ty: ::monotable::schema::ScalarType::#ty }))
        })
        .collect()
}

/// Parses a template and checks every placeholder names a field, pointing at the literal.
fn checked_template(t: &TemplateAttr, fields: &[FieldInfo]) -> syn::Result<Vec<Segment>> {
    let segments = parse_template(&t.lit.value()).map_err(|m| syn::Error::new(t.lit.span(), m))?;
    for seg in &segments {
        if let Segment::Field(name) = seg {
            if !fields.iter().any(|f| f.ident == name.as_str()) {
                let known: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
                return Err(syn::Error::new(
                    t.lit.span(),
                    format!("unknown field `{name}` in key template; the fields are: {}", known.join(", ")),
                ));
            }
        }
    }
    Ok(segments)
}

fn template_tokens(source: &str, segments: &[Segment]) -> TokenStream {
    let segs = segments.iter().map(|s| match s {
        Segment::Lit(l) => quote!(::monotable::schema::Segment::Lit(#l)),
        Segment::Field(f) => quote!(::monotable::schema::Segment::Field(#f)),
    });
    quote!(::monotable::schema::Template { source: #source, segments: &[#(#segs),*] })
}

/// `Entity::validate_partial`: for every field with garde rules, a one-field garde struct with the
/// same rules (and the fields those rules read, unvalidated), decoded from what the update sets.
fn partial_validation(
    attrs: &[syn::Attribute],
    rename_all: Option<&syn::LitStr>,
    fields: &[FieldInfo],
) -> TokenStream {
    let context = attrs.iter().filter(|a| a.path().is_ident("garde") && is_garde_context(a));
    let context: Vec<&syn::Attribute> = context.collect();
    let rename_all = rename_all.map(|r| quote!(#[serde(rename_all = #r)]));
    let names: Vec<String> = fields.iter().map(|f| f.ident.to_string()).collect();
    let checks = fields.iter().filter(|f| has_garde_rules(&f.attrs)).map(|f| {
        let name = f.ident.to_string();
        let mut reads = BTreeSet::new();
        for a in f.attrs.iter().filter(|a| a.path().is_ident("garde")) {
            if let syn::Meta::List(list) = &a.meta {
                garde_reads(list.tokens.clone(), &names, &mut reads);
            }
        }
        reads.remove(&name);
        let deps: Vec<&FieldInfo> = fields.iter().filter(|d| reads.contains(&d.ident.to_string())).collect();
        let group = std::iter::once(name.clone()).chain(deps.iter().map(|d| d.ident.to_string()));
        let own = {
            let (i, t) = (&f.ident, &f.ty);
            let a = f.attrs.iter().filter(|a| a.path().is_ident("serde") || a.path().is_ident("garde"));
            quote!(#(#a)* #i: #t)
        };
        let others = deps.iter().map(|d| {
            let (i, t) = (&d.ident, &d.ty);
            let a = d.attrs.iter().filter(|a| a.path().is_ident("serde"));
            quote!(#(#a)* #i: #t)
        });
        quote! {{
            #[derive(::monotable::__private::serde::Deserialize, ::monotable::__private::garde::Validate)]
            #[serde(crate = "::monotable::__private::serde")]
            #rename_all
            #[garde(allow_unvalidated)]
            #(#context)*
            struct __MonotableCheck { #own, #(#others,)* }
            if partial.touches(#name) {
                if let ::core::result::Result::Err(e) = partial.check::<__MonotableCheck>(&[#(#group),*]) {
                    errors.errors.extend(e.errors);
                }
            }
        }}
    });
    quote! {
        #[allow(unused_variables, dead_code, non_camel_case_types, clippy::needless_borrow)]
        fn validate_partial(
            partial: &::monotable::__private::Partial<'_>,
        ) -> ::core::result::Result<(), ::monotable::ValidationErrors> {
            let mut errors = ::monotable::ValidationErrors::default();
            #(#checks)*
            if errors.errors.is_empty() { ::core::result::Result::Ok(()) } else { ::core::result::Result::Err(errors) }
        }
    }
}

/// Whether a container `#[garde(...)]` is `context(...)` (the only one a check struct copies).
fn is_garde_context(a: &syn::Attribute) -> bool {
    match &a.meta {
        syn::Meta::List(l) => {
            matches!(l.tokens.clone().into_iter().next(), Some(proc_macro2::TokenTree::Ident(i)) if i == "context")
        }
        _ => false,
    }
}

/// Whether a field has a garde rule other than `skip`.
fn has_garde_rules(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("garde")).any(|a| match &a.meta {
        syn::Meta::List(l) => l.tokens.to_string().trim() != "skip",
        _ => false,
    })
}

/// The other fields a garde rule list reads: `matches(x)` and any field named in a rule's
/// expression (`custom(..)`, `length(min = ..)`, …; garde binds every field by name). Rule
/// names (an identifier at the start of a rule) and argument names (`min =`) are not reads.
/// Conservative: a false read only makes the update set both fields together.
pub(crate) fn garde_reads(tokens: TokenStream, names: &[String], out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut rule_start = true;
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(id) => {
                let next_is_assign = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
                let s = id.to_string();
                if !rule_start && !next_is_assign && names.contains(&s) {
                    out.insert(s);
                }
                rule_start = false;
            }
            TokenTree::Group(g) => {
                let inner_rules = matches!(i.checked_sub(1).and_then(|j| trees.get(j)), Some(TokenTree::Ident(id)) if id == "inner");
                if inner_rules {
                    garde_reads(g.stream(), names, out);
                } else {
                    garde_reads_expr(g.stream(), names, out);
                }
                rule_start = false;
            }
            TokenTree::Punct(p) => rule_start = p.as_char() == ',',
            TokenTree::Literal(_) => rule_start = false,
        }
    }
}

/// Inside a rule's arguments: every field name is a read, except `name =` argument keys.
fn garde_reads_expr(tokens: TokenStream, names: &[String], out: &mut BTreeSet<String>) {
    use proc_macro2::TokenTree;
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(id) => {
                let next_is_assign = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '=' && p.spacing() == proc_macro2::Spacing::Alone);
                let s = id.to_string();
                if !next_is_assign && names.contains(&s) {
                    out.insert(s);
                }
            }
            TokenTree::Group(g) => garde_reads_expr(g.stream(), names, out),
            _ => {}
        }
    }
}
