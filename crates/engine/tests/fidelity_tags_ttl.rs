//! Tags and time to live as today's DynamoDB validates them. Requests go in as the JSON
//! DynamoDB receives, so members the typed SDK builders cannot leave out (a tag without its
//! key or value) are covered too.
//!
//! Source for every text here unless a case says otherwise: ack-api-quirks' DynamoDB finding
//! DDB-TABLE-457, a catalogue of DynamoDB's answers to degenerate requests, verified against
//! the service on 2026-10-09.

mod common;

use common::*;
use serde_json::json;

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/tbl";

#[test]
fn tag_resource_refuses_tags_without_a_key_or_value() {
    let e = engine_with_table();
    let cases = [
        (json!([{}]), "The Tag Key provided is invalid, Key: null"),
        (json!([{"Value": "v"}]), "The Tag Key provided is invalid, Key: null"),
        (json!([{"Key": "k"}]), "The Tag Value provided is invalid, Value: null"),
        (json!([{"Key": "a", "Value": "1"}, {"Key": "k"}]), "The Tag Value provided is invalid, Value: null"),
    ];
    for (tags, want) in cases {
        let (kind, msg) = err(e.tag_resource(req(json!({"ResourceArn": ARN, "Tags": tags.clone()}))));
        assert_eq!((kind.as_str(), msg.as_str()), ("ValidationException", want), "{tags}");
    }
    // Nothing of a refused request is kept.
    let listed = e.list_tags_of_resource(req(json!({"ResourceArn": ARN}))).expect("list tags");
    assert_eq!(js(&listed)["Tags"], json!([]));
}

#[test]
fn create_table_refuses_a_tag_without_a_value() {
    let e = engine_with_table();
    let (_, msg) = err(e.create_table(req(json!({
        "TableName": "tagged",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "BillingMode": "PAY_PER_REQUEST",
        "Tags": [{"Key": "k"}]
    }))));
    assert_eq!(msg, "The Tag Value provided is invalid, Value: null");
}

#[test]
fn untag_resource_refuses_an_empty_key() {
    let e = engine_with_table();
    let (_, msg) = err(e.untag_resource(req(json!({"ResourceArn": ARN, "TagKeys": ["a", ""]}))));
    assert_eq!(msg, "The Tag Key provided is invalid, Key: ");
    let (_, msg) = err(e.untag_resource(req(json!({"ResourceArn": ARN, "TagKeys": []}))));
    assert_eq!(msg, "Atleast one Tag Key needs to be provided as Input.");
}

#[test]
fn more_than_fifty_tags_are_refused_and_leave_the_tags_unchanged() {
    // Source: "The maximum number of tags per resource is 50" (Developer Guide, Tagging
    // restrictions in DynamoDB); the refusal is a ValidationException with this text
    // (ack-api-quirks DDB-TABLE-108, verified 2026-10-08), never LimitExceededException.
    let e = engine_with_table();
    let fifty: Vec<_> = (0..50).map(|i| json!({"Key": format!("k{i}"), "Value": "v"})).collect();
    e.tag_resource(req(json!({"ResourceArn": ARN, "Tags": fifty}))).expect("fifty tags");
    let (kind, msg) =
        err(e.tag_resource(req(json!({"ResourceArn": ARN, "Tags": [{"Key": "k50", "Value": "v"}]}))));
    assert_eq!(kind, "ValidationException");
    assert_eq!(msg, "Number of Tags exceed the current limit for the provided ResourceArn");
    let listed = e.list_tags_of_resource(req(json!({"ResourceArn": ARN}))).expect("list tags");
    assert_eq!(js(&listed)["Tags"].as_array().map(Vec::len), Some(50));
    // Replacing the value of an existing key does not add a tag.
    e.tag_resource(req(json!({"ResourceArn": ARN, "Tags": [{"Key": "k0", "Value": "w"}]}))).expect("retag");
}

#[test]
fn update_time_to_live_constraints_name_the_attribute_first() {
    let e = engine_with_table();
    let long = "a".repeat(256);
    let cases = [
        (json!({}), "2 validation errors detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null; Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null".to_string()),
        (json!({"Enabled": true}), "1 validation error detected: Value null at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must not be null".to_string()),
        (json!({"AttributeName": "ttl"}), "1 validation error detected: Value null at 'timeToLiveSpecification.enabled' failed to satisfy constraint: Member must not be null".to_string()),
        (json!({"AttributeName": "", "Enabled": true}), "1 validation error detected: Value '' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length greater than or equal to 1".to_string()),
        // The 255 upper bound: API_TimeToLiveSpecification, AttributeName "Length Constraints:
        // Minimum length of 1. Maximum length of 255."
        (json!({"AttributeName": long, "Enabled": true}), format!("1 validation error detected: Value '{long}' at 'timeToLiveSpecification.attributeName' failed to satisfy constraint: Member must have length less than or equal to 255")),
    ];
    for (spec, want) in cases {
        let (_, msg) = err(
            e.update_time_to_live(req(json!({"TableName": "tbl", "TimeToLiveSpecification": spec.clone()})))
        );
        assert_eq!(msg, want, "{spec}");
    }
}

#[test]
fn time_to_live_on_another_attribute_is_refused_while_enabled() {
    // Source: ack-api-quirks' recording of DynamoDB: "UpdateTimeToLive(Enabled=true, other attr)
    // -> ValidationException 'TimeToLive is active on a different AttributeName: current
    // AttributeName is ttl_a'", checked before "TimeToLive is already enabled"; disabling
    // under another name is refused the same way.
    let e = engine_with_table();
    let ttl = |name: &str, enabled: bool| {
        e.update_time_to_live(req(json!({"TableName": "tbl",
            "TimeToLiveSpecification": {"AttributeName": name, "Enabled": enabled}})))
    };
    let (_, msg) = err(ttl("ttl_a", false));
    assert_eq!(msg, "TimeToLive is already disabled");
    ttl("ttl_a", true).expect("enable");
    let different = "TimeToLive is active on a different AttributeName: current AttributeName is ttl_a";
    assert_eq!(err(ttl("ttl_b", true)).1, different);
    assert_eq!(err(ttl("ttl_b", false)).1, different);
    assert_eq!(err(ttl("ttl_a", true)).1, "TimeToLive is already enabled");
    ttl("ttl_a", false).expect("disable under its own name");
    ttl("ttl_b", true).expect("enable under another name once disabled");
}
