//! Unit tests of the derive logic, run on token streams.

use super::*;
use quote::quote;

fn expand(tokens: proc_macro2::TokenStream) -> String {
    derive_entity(tokens).to_string()
}

#[test]
fn unknown_field_in_template_is_a_compile_error_naming_it() {
    let out = expand(quote! {
        #[entity(pk = "ORG#{org}", sk = "RECORD#{id}")]
        struct Record { org_id: String, id: String }
    });
    assert!(out.contains("compile_error"), "{out}");
    assert!(out.contains("unknown field `org` in key template"), "{out}");
}

#[test]
fn placeholder_must_be_followed_by_the_delimiter() {
    assert!(parse_template("A{x}B").is_err());
    assert!(parse_template("A#{x}#B").is_ok());
    assert!(parse_template("A#{x}").is_ok());
}

#[test]
fn template_syntax_errors_are_reported() {
    assert!(parse_template("ORG#{org").unwrap_err().contains("unclosed"));
    assert!(parse_template("ORG#}").unwrap_err().contains("unmatched"));
    assert!(parse_template("ORG#{}").unwrap_err().contains("not a field name"));
    assert!(parse_template("").is_err());
}

#[test]
fn template_parses_into_literals_and_fields() {
    assert_eq!(
        parse_template("ORG#{org_id}#RECORD#{id}").unwrap(),
        vec![
            Segment::Lit("ORG#".into()),
            Segment::Field("org_id".into()),
            Segment::Lit("#RECORD#".into()),
            Segment::Field("id".into())
        ]
    );
}

#[test]
fn tenant_must_appear_in_the_partition_key() {
    let out = expand(quote! {
        #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = id)]
        struct Record { org_id: String, id: String }
    });
    assert!(out.contains("must appear in the pk template"), "{out}");
}

#[test]
fn key_struct_omits_the_tenant_field() {
    let out = expand(quote! {
        #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, gsi1(pk = "STATUS#{status}"))]
        pub struct Record { org_id: String, id: String, status: String }
    });
    assert!(!out.contains("compile_error"), "{out}");
    let key = out.split("struct RecordKey").nth(1).and_then(|s| s.split('}').next()).unwrap_or_default();
    assert!(key.contains("pub id"), "{key}");
    assert!(!key.contains("org_id"), "{key}");
    assert!(!key.contains("status"), "{key}");
}

#[test]
fn serde_rename_all_changes_attribute_names() {
    let out = expand(quote! {
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        #[entity(pk = "U#{user_id}", sk = "PROFILE")]
        struct User { user_id: String, #[serde(rename = "mail", default)] email_address: String, display_name: String }
    });
    assert!(out.contains("\"userId\""), "{out}");
    assert!(out.contains("\"mail\""), "{out}");
    assert!(out.contains("\"displayName\""), "{out}");
}

#[test]
fn unknown_entity_option_is_refused() {
    let out = expand(quote! {
        #[entity(pk = "U#{id}", sk = "P", colour = "red")]
        struct User { id: String }
    });
    assert!(out.contains("unknown entity attribute"), "{out}");
}

#[test]
fn generic_entities_are_refused() {
    let out = expand(quote! {
        #[entity(pk = "U#{id}", sk = "P")]
        struct User<T> { id: T }
    });
    assert!(out.contains("cannot be generic"), "{out}");
}

#[test]
fn collection_needs_single_field_variants() {
    let out = derive_collection(quote! { enum Items { A { x: u8 } } }).to_string();
    assert!(out.contains("exactly one entity"), "{out}");
    let ok = derive_collection(quote! { enum Items { A(A), B(B) } }).to_string();
    assert!(ok.contains("impl :: monotable :: Collection for Items"), "{ok}");
}
