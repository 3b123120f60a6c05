//! Resource-based policies through the real SDK in process: Put/Get/DeleteResourcePolicy and
//! CreateTable's `ResourcePolicy`, each message asserted with its source.
//!
//! Sources: API reference API_PutResourcePolicy ("If you specify an ExpectedRevisionId that
//! doesn't match the current policy's RevisionId, the PolicyNotFoundException will be
//! returned"; "To conditionally attach a policy when no policy exists for the resource,
//! specify NO_POLICY"; "The maximum size ... is 20 KB"); moto's AWS-verified tests
//! (tests/test_dynamodb/test_dynamodb_resource_policy.py) for the revision messages; the
//! ack-api-quirks DynamoDB findings verified against DynamoDB on 2026-10-09 (DDB-TABLE-205,
//! -207, -209, -211, -212, -356), cited per case.

mod common;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
use aws_sdk_dynamodb::Client;
use common::hash_table;

const ARN: &str = "arn:aws:dynamodb:us-east-1:000000000000:table/guarded";

fn policy(action: &str) -> String {
    format!(
        r#"{{"Version":"2012-10-17","Statement":[{{"Sid":"a","Effect":"Allow","Principal":{{"AWS":"arn:aws:iam::111122223333:root"}},"Action":"{action}","Resource":"{ARN}"}}]}}"#
    )
}

async fn create(client: &Client, resource_policy: Option<String>) -> Result<(), aws_sdk_dynamodb::Error> {
    hash_table(client, "guarded")
        .stream_specification(
            StreamSpecification::builder()
                .stream_enabled(true)
                .stream_view_type(StreamViewType::NewImage)
                .build()
                .unwrap(),
        )
        .set_resource_policy(resource_policy)
        .send()
        .await?;
    Ok(())
}

async fn client_with_table() -> Client {
    let client = monotable_embedded::client();
    create(&client, None).await.expect("create table");
    client
}

fn error(e: aws_sdk_dynamodb::Error) -> (String, String) {
    (e.code().unwrap_or_default().to_string(), e.message().unwrap_or_default().to_string())
}

async fn put(client: &Client, doc: &str, expected: Option<&str>) -> Result<String, (String, String)> {
    client
        .put_resource_policy()
        .resource_arn(ARN)
        .policy(doc)
        .set_expected_revision_id(expected.map(str::to_string))
        .send()
        .await
        .map(|o| o.revision_id().unwrap_or_default().to_string())
        .map_err(|e| error(e.into()))
}

#[tokio::test]
async fn a_put_policy_is_read_back_with_its_revision_id() {
    let client = client_with_table().await;
    let doc = policy("dynamodb:GetItem");
    let revision = put(&client, &doc, None).await.expect("put");
    // DDB-TABLE-207: "RevisionId is the epoch-ms change time" (13 digits).
    assert_eq!(revision.len(), 13, "{revision}");
    let got = client.get_resource_policy().resource_arn(ARN).send().await.expect("get");
    assert_eq!(got.policy(), Some(doc.as_str()));
    assert_eq!(got.revision_id(), Some(revision.as_str()));
}

#[tokio::test]
async fn an_equivalent_document_keeps_the_revision_and_a_different_one_gets_a_later_one() {
    // moto test_put_resource_policy_multiple_times (AWS-verified); DDB-TABLE-207: whitespace and
    // key order do not make a new revision.
    let client = client_with_table().await;
    let first = put(&client, &policy("dynamodb:GetItem"), None).await.unwrap();
    let spaced: String = serde_json::to_string_pretty(
        &serde_json::from_str::<serde_json::Value>(&policy("dynamodb:GetItem")).unwrap(),
    )
    .unwrap();
    assert_eq!(put(&client, &spaced, None).await.unwrap(), first);
    let second = put(&client, &policy("dynamodb:PutItem"), None).await.unwrap();
    assert!(second.parse::<u64>().unwrap() > first.parse::<u64>().unwrap());
}

#[tokio::test]
async fn expected_revision_ids_guard_put_and_delete() {
    let client = client_with_table().await;
    let name = "guarded";
    let expected_mismatch = |e: &str, current: &str| {
        (
            "PolicyNotFoundException".to_string(),
            format!("Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id {e}, but the policy associated to target table {name} has revision id {current}."),
        )
    };
    // NO_POLICY on a table without one attaches it (moto test_put_resource_policy_against_norevision).
    let first = put(&client, &policy("dynamodb:GetItem"), Some("NO_POLICY")).await.unwrap();
    // NO_POLICY when one exists (moto ..._against_norevision_when_revision_exists).
    assert_eq!(
        put(&client, &policy("dynamodb:Query"), Some("NO_POLICY")).await.unwrap_err(),
        (
            "PolicyNotFoundException".to_string(),
            format!("Resource-based policy not found for the provided ResourceArn: Requested policy update expecting none to be present for table {name}, but a policy exists with revision id {first}.")
        )
    );
    let second = put(&client, &policy("dynamodb:PutItem"), Some(&first)).await.unwrap();
    // A stale revision (moto ..._against_previous_revision; DDB-TABLE-209).
    assert_eq!(
        put(&client, &policy("dynamodb:Scan"), Some(&first)).await.unwrap_err(),
        expected_mismatch(&first, &second)
    );
    let e = client
        .delete_resource_policy()
        .resource_arn(ARN)
        .expected_revision_id("unknown")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error(e.into()), expected_mismatch("unknown", &second));
    // The current revision deletes, answering with the removed policy's id (DDB-TABLE-209).
    let deleted =
        client.delete_resource_policy().resource_arn(ARN).expected_revision_id(&second).send().await.unwrap();
    assert_eq!(deleted.revision_id(), Some(second.as_str()));
    // An expected revision when no policy is attached (DDB-TABLE-205: "... but table X has no
    // associated").
    assert_eq!(
        put(&client, &policy("dynamodb:Scan"), Some("123456789")).await.unwrap_err(),
        (
            "PolicyNotFoundException".to_string(),
            format!("Resource-based policy not found for the provided ResourceArn: Requested update for policy with revision id 123456789, but table {name} has no associated policy.")
        )
    );
}

#[tokio::test]
async fn without_a_policy_get_is_policy_not_found_and_delete_is_an_empty_success() {
    // DDB-TABLE-205 and moto test_get_resource_policy_from_resource_without.
    let client = client_with_table().await;
    let e = client.get_resource_policy().resource_arn(ARN).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        (
            "PolicyNotFoundException".to_string(),
            format!("Resource-based policy not found for the provided ResourceArn: {ARN}")
        )
    );
    for _ in 0..2 {
        let out = client.delete_resource_policy().resource_arn(ARN).send().await.expect("idempotent delete");
        assert_eq!(out.revision_id(), None);
    }
}

#[tokio::test]
async fn resource_arns_other_than_a_table_or_its_stream_are_refused() {
    // DDB-TABLE-212 (ARN forms) and moto test_get_resource_policy_from_unknown_resource.
    let client = client_with_table().await;
    let index = format!("{ARN}/index/byThing");
    let backup = format!("{ARN}/backup/0170");
    let cases: Vec<(String, &str, String)> = vec![
        ("guarded".into(), "ValidationException", "One or more parameter values were invalid: ARNs must start with 'arn:': guarded".into()),
        (format!("{ARN}x"), "ResourceNotFoundException", "Requested resource not found: Table: guardedx not found".into()),
        (index.clone(), "ValidationException", format!("One or more parameter values were invalid: Invalid resource arn provided, only table or stream is accepted. Provided resource arn: {index}")),
        (backup.clone(), "ValidationException", format!("One or more parameter values were invalid: Provided Arn is not a DynamoDB resource arn: {backup}")),
        (format!("{ARN}/stream/2000-01-01T00:00:00.000"), "ResourceNotFoundException", "Requested resource not found: Stream: 2000-01-01T00:00:00.000 not found for Table: guarded".into()),
    ];
    for (arn, code, message) in cases {
        let e = client.get_resource_policy().resource_arn(&arn).send().await.unwrap_err();
        assert_eq!(error(e.into()), (code.to_string(), message), "{arn}");
    }
}

#[tokio::test]
async fn the_stream_has_a_policy_slot_of_its_own() {
    // DDB-TABLE-213: "The stream ARN is an independent policy slot (own RevisionId)";
    // Get(table ARN) then is PolicyNotFoundException.
    let client = client_with_table().await;
    let d = client.describe_table().table_name("guarded").send().await.unwrap();
    let stream = d.table().and_then(|t| t.latest_stream_arn()).expect("stream arn").to_string();
    let doc = policy("dynamodb:GetRecords").replace(ARN, &stream);
    client.put_resource_policy().resource_arn(&stream).policy(&doc).send().await.expect("put on stream");
    let got = client.get_resource_policy().resource_arn(&stream).send().await.expect("get stream policy");
    assert_eq!(got.policy(), Some(doc.as_str()));
    let e = client.get_resource_policy().resource_arn(ARN).send().await.unwrap_err();
    assert_eq!(error(e.into()).0, "PolicyNotFoundException");
}

#[tokio::test]
async fn policy_documents_are_checked_as_dynamodb_checks_them() {
    // DDB-TABLE-211 (size, JSON, empty Statement, missing Resource) and DDB-TABLE-356 (Sids,
    // unbounded access).
    let client = client_with_table().await;
    let invalid = |m: &str| {
        ("ValidationException".to_string(), format!("One or more parameter values were invalid: {m}"))
    };
    let padded = format!("{}{}", policy("dynamodb:GetItem"), " ".repeat(20 * 1024));
    let statement = |extra: &str| {
        format!(
            r#"{{"Version":"2012-10-17","Statement":[{{"Effect":"Allow","Principal":{{"AWS":"arn:aws:iam::111122223333:root"}},"Action":"dynamodb:GetItem"{extra}}}]}}"#
        )
    };
    let dup = format!(
        r#"{{"Version":"2012-10-17","Statement":[{s},{s}]}}"#,
        s = format!(
            r#"{{"Sid":"same","Effect":"Allow","Principal":{{"AWS":"arn:aws:iam::111122223333:root"}},"Action":"dynamodb:GetItem","Resource":"{ARN}"}}"#
        )
    );
    let cases: Vec<(String, (String, String))> = vec![
        (padded, invalid("Maximum policy size of 20480 bytes exceeded")),
        ("{not json".into(), invalid("Invalid policy document: This policy contains invalid Json")),
        ("".into(), invalid("Invalid policy document: This policy contains invalid Json")),
        (r#"{"Version":"2012-10-17","Statement":[]}"#.into(), invalid("Invalid policy document: Could not parse the policy: Statement is empty!")),
        (statement(""), invalid("Invalid policy document: Missing required field Resource")),
        (dup, invalid("Invalid policy document: The Statement Ids in the policy are not unique")),
        (
            statement(&format!(r#","Resource":"{ARN}""#)).replace(r#"{"AWS":"arn:aws:iam::111122223333:root"}"#, r#""*""#),
            ("ValidationException".to_string(), "Resource-based policy grants unbounded access in one or more elements. Please revise the policy to ensure least-privilege form of access".to_string()),
        ),
    ];
    for (doc, expected) in cases {
        assert_eq!(put(&client, &doc, None).await.unwrap_err(), expected, "{doc:.80}");
    }
    let e = client.get_resource_policy().resource_arn(ARN).send().await.unwrap_err();
    assert_eq!(error(e.into()).0, "PolicyNotFoundException", "a refused document is not stored");
}

#[tokio::test]
async fn create_table_attaches_its_resource_policy() {
    let client = monotable_embedded::client();
    let doc = policy("dynamodb:GetItem");
    create(&client, Some(doc.clone())).await.expect("create with policy");
    let got = client.get_resource_policy().resource_arn(ARN).send().await.expect("get");
    assert_eq!(got.policy(), Some(doc.as_str()));
    // A bad document fails the whole CreateTable and creates nothing.
    let other = monotable_embedded::client();
    let e = create(&other, Some("{not json".into())).await.unwrap_err();
    assert_eq!(
        error(e),
        (
            "ValidationException".to_string(),
            "One or more parameter values were invalid: Invalid policy document: This policy contains invalid Json".to_string()
        )
    );
    assert!(other.list_tables().send().await.unwrap().table_names().is_empty());
}

#[tokio::test]
async fn a_policy_survives_a_restart_of_a_durable_engine_and_goes_with_its_table() {
    // Stored in the catalog with the table: a new engine over the same storage reads it back.
    let storage: std::sync::Arc<dyn monotable_engine::Storage> =
        std::sync::Arc::new(monotable_engine::MemoryStorage::new());
    let engine = monotable_engine::Engine::with_storage(storage.clone()).unwrap();
    let client = monotable_embedded::client_for(engine);
    create(&client, None).await.unwrap();
    let revision = put(&client, &policy("dynamodb:GetItem"), None).await.unwrap();
    let reopened = monotable_embedded::client_for(monotable_engine::Engine::with_storage(storage).unwrap());
    let got = reopened.get_resource_policy().resource_arn(ARN).send().await.expect("get after reopen");
    assert_eq!(got.revision_id(), Some(revision.as_str()));
    reopened.delete_table().table_name("guarded").send().await.unwrap();
    let e = reopened.get_resource_policy().resource_arn(ARN).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        (
            "ResourceNotFoundException".to_string(),
            "Requested resource not found: Table: guarded not found".to_string()
        )
    );
}
