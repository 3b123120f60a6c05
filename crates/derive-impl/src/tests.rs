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

#[test]
fn partial_validation_reads_are_the_fields_a_rule_names() {
    let names: Vec<String> = ["pin", "email", "min", "limit"].iter().map(|s| s.to_string()).collect();
    let reads = |t: proc_macro2::TokenStream| {
        let mut out = std::collections::BTreeSet::new();
        expand::garde_reads(t, &names, &mut out);
        out.into_iter().collect::<Vec<_>>()
    };
    assert_eq!(reads(quote!(matches(pin))), ["pin"]);
    assert_eq!(reads(quote!(custom(check_against(&self.pin)))), ["pin"]);
    assert_eq!(reads(quote!(length(min = 1, max = limit))), ["limit"]);
    // Rule names and argument names are not reads, even when a field has the same name.
    assert!(reads(quote!(email, length(min = 1))).is_empty());
    assert!(reads(quote!(inner(email))).is_empty());
}

#[test]
fn validate_emits_one_check_struct_per_field_with_rules() {
    let out = expand(quote! {
        #[entity(pk = "U#{id}", sk = "P", validate)]
        #[garde(context(Ctx))]
        struct User {
            #[garde(skip)] id: String,
            #[garde(email)] email: String,
            #[garde(skip)] pin: String,
            #[garde(matches(pin))] pin2: String,
        }
    });
    assert!(out.contains("fn validate_partial"), "{out}");
    assert_eq!(out.matches("struct __MonotableCheck").count(), 2, "{out}");
    assert_eq!(out.matches("# [garde (context (Ctx))]").count(), 2, "the context is copied: {out}");
    assert!(out.contains(r#"check :: < __MonotableCheck > (& ["pin2" , "pin"])"#), "{out}");
    let plain = expand(quote! {
        #[entity(pk = "U#{id}", sk = "P")]
        struct User { #[garde(email)] id: String }
    });
    assert!(!plain.contains("validate_partial"), "only with `validate`: {plain}");
}

#[test]
fn a_field_list_index_emits_its_typed_key_fields_and_the_equivalent_template() {
    let out = expand(quote! {
        #[entity(pk = "ORG#{org_id}", sk = "T#{id}", tenant = org_id,
                 gsi2(pk = [org_id, queue], sk = [priority]))]
        struct Ticket { org_id: String, id: String, queue: Option<String>, priority: u32 }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("MultiKey"), "{out}");
    assert!(out.contains("ScalarType :: N"), "{out}");
    assert!(out.contains("\"{org_id}#{queue}\""), "{out}");
}

#[test]
fn a_version_field_is_an_i64_or_a_u64_and_nothing_else() {
    for ty in [quote!(i64), quote!(u64), quote!(std::primitive::i64)] {
        let out = expand(quote! {
            #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", version = v)]
            struct Record { org_id: String, id: String, v: #ty }
        });
        assert!(!out.contains("compile_error"), "{ty}: {out}");
    }
    for ty in [quote!(String), quote!(Option<i64>), quote!(i32), quote!(u8), quote!(f64), quote!(Version)] {
        let out = expand(quote! {
            #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", version = v)]
            struct Record { org_id: String, id: String, v: #ty }
        });
        assert!(out.contains("the version field `v` has type"), "{ty}: {out}");
    }
}
