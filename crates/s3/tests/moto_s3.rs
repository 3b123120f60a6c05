//! ExportTableToPointInTime and ImportTable on a real S3 API: moto's S3 server, through the
//! real DynamoDB SDK against an engine whose object store is `monotable_s3::S3Store`. The
//! objects are put and read back with boto3, not with the client under test.
//!
//! Sources: moto's AWS-verified tests/test_dynamodb/test_dynamodb_export_table.py and
//! test_dynamodb_import_table.py (missing bucket: FAILED with S3NoSuchBucket and no table; a
//! document without the `Item` wrapper: FAILED, ErrorCount 1, the other items imported, the
//! bad one counted as processed); the developer guide "Import format quotas and validation"
//! (S3DataImport.Validation: each error is counted; a malformed object may have the rest of
//! it skipped); "DynamoDB table export output format" (S3DataExport.Output) for the layout.

#[path = "support/moto.rs"]
mod moto;

use std::io::{Read, Write};
use std::sync::Arc;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ExportStatus, ImportStatus, InputCompressionType,
    InputFormat, KeySchemaElement, KeyType, PointInTimeRecoverySpecification, S3BucketSource,
    ScalarAttributeType, TableCreationParameters,
};
use aws_sdk_dynamodb::Client;
use monotable_engine::Engine;
use monotable_s3::{Keys, S3Store};
use moto::{boto3, list, moto, new_bucket, KEY_ID, SECRET};

/// A client over an engine whose buckets are on moto.
fn client() -> Client {
    let keys = Arc::new(|| {
        Ok(Keys {
            access_key_id: KEY_ID.into(),
            secret_access_key: SECRET.into(),
            session_token: None,
            expires: None,
        })
    });
    let store = S3Store::compatible(&moto().endpoint, "us-east-1", keys).expect("an http endpoint");
    let engine = Engine::new();
    engine.set_object_store(Arc::new(store));
    monotable_embedded::client_for(engine)
}

fn arn(table: &str) -> String {
    format!("arn:aws:dynamodb:us-east-1:000000000000:table/{table}")
}

async fn table_with_items(client: &Client, name: &str, count: usize) {
    let creation = creation(name);
    client
        .create_table()
        .table_name(name)
        .set_attribute_definitions(Some(creation.attribute_definitions().to_vec()))
        .set_key_schema(Some(creation.key_schema().to_vec()))
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let spec =
        PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    client
        .update_continuous_backups()
        .table_name(name)
        .point_in_time_recovery_specification(spec)
        .send()
        .await
        .unwrap();
    for i in 0..count {
        client
            .put_item()
            .table_name(name)
            .item("pk", AttributeValue::S(format!("user{i}")))
            .item("n", AttributeValue::N(i.to_string()))
            .send()
            .await
            .unwrap();
    }
}

fn creation(table: &str) -> TableCreationParameters {
    TableCreationParameters::builder()
        .table_name(table)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::S)
                .build()
                .unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .unwrap()
}

async fn import(
    client: &Client,
    bucket: &str,
    prefix: Option<&str>,
    table: &str,
    compression: InputCompressionType,
) -> aws_sdk_dynamodb::types::ImportTableDescription {
    let source = S3BucketSource::builder().s3_bucket(bucket).set_s3_key_prefix(prefix.map(String::from));
    let out = client
        .import_table()
        .s3_bucket_source(source.build().unwrap())
        .input_format(InputFormat::DynamodbJson)
        .input_compression_type(compression)
        .table_creation_parameters(creation(table))
        .send()
        .await
        .unwrap();
    out.import_table_description().unwrap().clone()
}

async fn keys_of(client: &Client, table: &str) -> Vec<String> {
    let items = client.scan().table_name(table).send().await.unwrap().items.unwrap_or_default();
    let mut keys: Vec<String> = items.iter().map(|i| i["pk"].as_s().expect("a string key").clone()).collect();
    keys.sort();
    keys
}

fn gzip(text: &str) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap()
}

#[tokio::test]
async fn an_export_writes_the_manifests_and_data_file_to_the_s3_server() {
    let bucket = new_bucket("export");
    let client = client();
    table_with_items(&client, "src", 3).await;
    let out = client
        .export_table_to_point_in_time()
        .table_arn(arn("src"))
        .s3_bucket(&bucket)
        .s3_prefix("backups")
        .send()
        .await
        .unwrap();
    let d = out.export_description().unwrap();
    assert_eq!(d.export_status(), Some(&ExportStatus::Completed), "{:?}", d.failure_message());
    let id = d.export_arn().unwrap().rsplit('/').next().unwrap().to_string();
    let base = format!("backups/AWSDynamoDB/{id}");

    // S3DataExport.Output: _started, the manifests, and the data files under data/.
    let keys = list(&bucket, "backups/");
    assert_eq!(keys.len(), 4, "{keys:?}");
    for name in ["_started", "manifest-files.json", "manifest-summary.json"] {
        assert!(keys.contains(&format!("{base}/{name}")), "{name} in {keys:?}");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&boto3("get", &bucket, Some(&format!("{base}/manifest-summary.json")), b""))
            .unwrap();
    assert_eq!(summary["itemCount"], 3);
    assert_eq!(summary["s3Bucket"], bucket.as_str());
    assert_eq!(summary["manifestFilesS3Key"], format!("{base}/manifest-files.json"));
    let files = boto3("get", &bucket, Some(&format!("{base}/manifest-files.json")), b"");
    let file: serde_json::Value = serde_json::from_slice(files.trim_ascii_end()).unwrap();
    let data_key = file["dataFileS3Key"].as_str().unwrap();
    assert!(keys.contains(&data_key.to_string()) && data_key.starts_with(&format!("{base}/data/")));
    // The manifest's etag is the MD5 the S3 server computed on receipt.
    let etag = String::from_utf8(boto3("etag", &bucket, Some(data_key), b"")).unwrap();
    assert_eq!(file["etag"], etag.trim());

    let data = boto3("get", &bucket, Some(data_key), b"");
    let mut text = String::new();
    flate2::read::GzDecoder::new(data.as_slice()).read_to_string(&mut text).unwrap();
    let mut rows: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["Item"]["pk"]["S"].to_string())
        .collect();
    rows.sort();
    assert_eq!(rows, ["\"user0\"", "\"user1\"", "\"user2\""]);
}

#[tokio::test]
async fn an_import_reads_the_objects_under_its_prefix_from_the_s3_server() {
    let bucket = new_bucket("import");
    let lines =
        "{\"Item\": {\"pk\": {\"S\": \"a\"}}}\n{\"Item\": {\"pk\": {\"S\": \"b\"}, \"n\": {\"N\": \"2\"}}}\n";
    boto3("put", &bucket, Some("in/part-1.json"), lines.as_bytes());
    boto3("put", &bucket, Some("in/sub/part-2"), b"{\"Item\": {\"pk\": {\"S\": \"c\"}}}");
    // moto test_only_process_file_with_prefix: keys without the prefix are not read.
    boto3("put", &bucket, Some("other.json"), b"{\"Item\": {\"pk\": {\"S\": \"z\"}}}");
    let client = client();
    let d = import(&client, &bucket, Some("in/"), "imported", InputCompressionType::None).await;
    assert_eq!(d.import_status(), Some(&ImportStatus::Completed), "{:?}", d.failure_message());
    assert_eq!((d.processed_item_count(), d.imported_item_count(), d.error_count()), (3, 3, 0));
    assert!(d.processed_size_bytes().unwrap_or(0) > 0);
    assert_eq!(keys_of(&client, "imported").await, ["a", "b", "c"]);
}

#[tokio::test]
async fn jobs_against_a_bucket_the_s3_server_lacks_fail_with_s3_no_such_bucket() {
    // moto test_export_to_missing_s3_bucket and test_import_from_missing_s3_table (both
    // AWS-verified).
    let client = client();
    table_with_items(&client, "src", 1).await;
    let missing = format!("missing-{}", std::process::id());
    let out = client
        .export_table_to_point_in_time()
        .table_arn(arn("src"))
        .s3_bucket(&missing)
        .send()
        .await
        .unwrap();
    let d = out.export_description().unwrap();
    assert_eq!(d.export_status(), Some(&ExportStatus::Failed));
    assert_eq!(
        (d.failure_code(), d.failure_message()),
        (Some("S3NoSuchBucket"), Some("The specified bucket does not exist"))
    );
    let d = import(&client, &missing, None, "fresh", InputCompressionType::None).await;
    assert_eq!(d.import_status(), Some(&ImportStatus::Failed));
    assert_eq!(d.failure_code(), Some("S3NoSuchBucket"));
    assert!(!client.list_tables().send().await.unwrap().table_names().contains(&"fresh".to_string()));
}

#[tokio::test]
async fn an_import_with_bad_files_counts_each_error_and_keeps_the_good_items() {
    let bucket = new_bucket("badfiles");
    boto3("put", &bucket, Some("good.json.gz"), &gzip("{\"Item\": {\"pk\": {\"S\": \"a\"}}}\n"));
    // Not gzip at all: the object is one error and nothing of it is read.
    boto3("put", &bucket, Some("not-gzip.json.gz"), b"{\"Item\": {\"pk\": {\"S\": \"x\"}}}\n");
    // A good line, then a line that is not JSON: the rest of the object is skipped
    // (S3DataImport.Validation), the good item before it imported.
    let broken =
        "{\"Item\": {\"pk\": {\"S\": \"b\"}}}\n{\"Item\": not json}\n{\"Item\": {\"pk\": {\"S\": \"y\"}}}\n";
    boto3("put", &bucket, Some("truncated.json.gz"), &gzip(broken));
    // A document without the Item wrapper (moto test_some_successfull_files_and_some_with_unknown_data).
    boto3("put", &bucket, Some("unwrapped.json.gz"), &gzip("{\"pk\": {\"S\": \"z\"}}"));
    let client = client();
    let d = import(&client, &bucket, None, "partly", InputCompressionType::Gzip).await;
    // moto's AWS-verified test: an import with errors ends FAILED, the good items in the table.
    assert_eq!(d.import_status(), Some(&ImportStatus::Failed));
    assert_eq!(d.error_count(), 3, "{:?}", d.failure_message());
    assert_eq!((d.processed_item_count(), d.imported_item_count()), (4, 2));
    assert!(
        d.failure_message().is_some_and(|m| m.starts_with("not-gzip.json.gz: ")),
        "{:?}",
        d.failure_message()
    );
    assert_eq!(keys_of(&client, "partly").await, ["a", "b"]);
    // DescribeImport reports the same counts.
    let described = client.describe_import().import_arn(d.import_arn().unwrap()).send().await.unwrap();
    assert_eq!(described.import_table_description().unwrap().error_count(), 3);
}
