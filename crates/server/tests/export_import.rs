//! ExportTableToPointInTime / DescribeExport / ListExports and ImportTable / DescribeImport /
//! ListImports against a local bucket directory, through the real SDK in process.
//!
//! Sources: moto's AWS-verified tests (tests/test_dynamodb/test_dynamodb_export_table.py and
//! test_dynamodb_import_table.py), cited per test; the developer guide "DynamoDB table export
//! output format" (S3DataExport.Output) for the layout and the manifest fields.

mod common;

use std::io::Read;
use std::path::PathBuf;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, ExportFormat, ExportStatus, ImportStatus, InputCompressionType,
    InputFormat, KeySchemaElement, KeyType, PointInTimeRecoverySpecification, S3BucketSource,
    ScalarAttributeType, TableCreationParameters,
};
use aws_sdk_dynamodb::{Client, Error};
use common::hash_table;
use monotable_engine::Engine;

/// A bucket root directory, removed when the test ends.
struct Root(PathBuf);

impl Drop for Root {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl std::ops::Deref for Root {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

/// A client over an engine whose bucket root is a fresh directory holding bucket `bkt`.
fn client_with_bucket() -> (Client, Root) {
    let root = std::env::temp_dir().join(format!("monotable-test-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(root.join("bkt")).unwrap();
    let engine = Engine::new();
    engine.set_bucket_root(&root);
    (monotable_embedded::client_for(engine), Root(root))
}

fn arn(table: &str) -> String {
    format!("arn:aws:dynamodb:us-east-1:000000000000:table/{table}")
}

async fn table_with_items(client: &Client, pitr: bool) {
    hash_table(client, "src").send().await.unwrap();
    if pitr {
        let spec =
            PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
        client
            .update_continuous_backups()
            .table_name("src")
            .point_in_time_recovery_specification(spec)
            .send()
            .await
            .unwrap();
    }
    for (pk, extra) in [("user1", None), ("user2", Some("bar")), ("user3", Some("baz"))] {
        let mut put = client
            .put_item()
            .table_name("src")
            .item("pk", aws_sdk_dynamodb::types::AttributeValue::S(pk.into()));
        put = match extra {
            Some(v) => put.item("foo", aws_sdk_dynamodb::types::AttributeValue::S(v.into())),
            None => {
                put.item("binaryfoo", aws_sdk_dynamodb::types::AttributeValue::B(Blob::new(b"bar".to_vec())))
            }
        };
        put.send().await.unwrap();
    }
}

fn error(e: Error) -> (String, String) {
    (e.code().unwrap_or_default().to_string(), e.message().unwrap_or_default().to_string())
}

#[tokio::test]
async fn an_export_needs_the_table_and_point_in_time_recovery() {
    // moto test_export_from_missing_table and test_export_point_in_time_recovery_not_enabled.
    let (client, _root) = client_with_bucket();
    let export = |table: String| {
        client.export_table_to_point_in_time().table_arn(table).s3_bucket("bkt").s3_prefix("prefix")
    };
    let e = export(arn("nothere")).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        ("TableNotFoundException".into(), format!("Table not found: {}", arn("nothere")))
    );
    table_with_items(&client, false).await;
    let e = export(arn("src")).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        (
            "PointInTimeRecoveryUnavailableException".into(),
            "Point in time recovery is not enabled for table 'src'".into()
        )
    );
}

#[tokio::test]
async fn an_export_writes_dynamodbs_layout_and_is_described_and_listed() {
    let (client, root) = client_with_bucket();
    table_with_items(&client, true).await;
    let out = client
        .export_table_to_point_in_time()
        .table_arn(arn("src"))
        .s3_bucket("bkt")
        .s3_prefix("prefix")
        .export_format(ExportFormat::DynamodbJson)
        .send()
        .await
        .unwrap();
    let d = out.export_description().unwrap();
    // The job runs within the request: it is COMPLETED at once (DynamoDB says IN_PROGRESS).
    assert_eq!(d.export_status(), Some(&ExportStatus::Completed));
    assert_eq!(d.item_count(), Some(3));
    let export_arn = d.export_arn().unwrap().to_string();
    let id = export_arn.rsplit('/').next().unwrap().to_string();
    assert!(export_arn.starts_with(&format!("{}/export/", arn("src"))));
    // ExportId: 14 digits, a dash, 8 hex digits (S3DataExport.Output: 01234567890123-a1b2c3d4).
    assert!(id.len() == 23 && id.as_bytes()[14] == b'-', "{id}");
    assert_eq!(d.export_manifest(), Some(format!("prefix/AWSDynamoDB/{id}/manifest-summary.json").as_str()));

    let dir = root.join("bkt/prefix/AWSDynamoDB").join(&id);
    assert!(dir.join("_started").is_file());
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest-summary.json")).unwrap()).unwrap();
    assert_eq!(summary["version"], "2020-06-30");
    assert_eq!(summary["exportArn"], export_arn);
    assert_eq!(summary["itemCount"], 3);
    assert_eq!(summary["outputFormat"], "DYNAMODB_JSON");
    assert_eq!(summary["manifestFilesS3Key"], format!("prefix/AWSDynamoDB/{id}/manifest-files.json"));
    let files = std::fs::read_to_string(dir.join("manifest-files.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(files.trim_end()).unwrap();
    assert_eq!(file["itemCount"], 3);
    let data = std::fs::read(root.join("bkt").join(file["dataFileS3Key"].as_str().unwrap())).unwrap();
    assert_eq!(file["etag"], format!("{:x}", md5_of(&data)));
    let mut text = String::new();
    flate2::read::GzDecoder::new(data.as_slice()).read_to_string(&mut text).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // moto test_export_table: the rows are DynamoDB JSON with binary in base64.
    assert!(rows.contains(&serde_json::json!({"Item": {"pk": {"S": "user1"}, "binaryfoo": {"B": "YmFy"}}})));
    assert!(rows.contains(&serde_json::json!({"Item": {"pk": {"S": "user2"}, "foo": {"S": "bar"}}})));
    assert_eq!(rows.len(), 3);

    let described = client.describe_export().export_arn(&export_arn).send().await.unwrap();
    assert_eq!(described.export_description().unwrap().item_count(), Some(3));
    // moto test_list_exports: summaries of ExportArn, ExportStatus and ExportType.
    let listed = client.list_exports().table_arn(arn("src")).send().await.unwrap();
    let summary = &listed.export_summaries()[0];
    assert_eq!(
        (
            summary.export_arn(),
            summary.export_status().map(|s| s.as_str()),
            summary.export_type().map(|t| t.as_str())
        ),
        (Some(export_arn.as_str()), Some("COMPLETED"), Some("FULL_EXPORT"))
    );
}

fn md5_of(data: &[u8]) -> md5::Digest {
    md5::compute(data)
}

#[tokio::test]
async fn jobs_against_a_missing_bucket_fail_with_s3_no_such_bucket() {
    // moto test_export_to_missing_s3_bucket and test_import_from_missing_s3_table.
    let (client, _root) = client_with_bucket();
    table_with_items(&client, true).await;
    let out = client
        .export_table_to_point_in_time()
        .table_arn(arn("src"))
        .s3_bucket("nobucket")
        .send()
        .await
        .unwrap();
    let d = out.export_description().unwrap();
    assert_eq!(d.export_status(), Some(&ExportStatus::Failed));
    assert_eq!(
        (d.failure_code(), d.failure_message()),
        (Some("S3NoSuchBucket"), Some("The specified bucket does not exist"))
    );
    let out = import(&client, "nobucket", None, "fresh", InputCompressionType::None).await.unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Failed));
    assert_eq!(d.failure_code(), Some("S3NoSuchBucket"));
    assert!(d.table_arn().unwrap().ends_with(":table/fresh"));
    assert!(!client.list_tables().send().await.unwrap().table_names().contains(&"fresh".to_string()));
}

fn creation(table: &str) -> TableCreationParameters {
    creation_billed(table, BillingMode::PayPerRequest)
}

fn creation_billed(table: &str, billing: BillingMode) -> TableCreationParameters {
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
        .billing_mode(billing)
        .build()
        .unwrap()
}

/// An ImportTable request reading `prefix` of `bucket` as `format` into a new table.
fn import_request(
    client: &Client,
    bucket: &str,
    prefix: Option<&str>,
    format: InputFormat,
    params: TableCreationParameters,
) -> aws_sdk_dynamodb::operation::import_table::builders::ImportTableFluentBuilder {
    let source =
        S3BucketSource::builder().s3_bucket(bucket).set_s3_key_prefix(prefix.map(str::to_string)).build();
    client
        .import_table()
        .s3_bucket_source(source.unwrap())
        .input_format(format)
        .table_creation_parameters(params)
}

fn validation(message: &str) -> (String, String) {
    ("ValidationException".into(), message.into())
}

async fn import(
    client: &Client,
    bucket: &str,
    prefix: Option<&str>,
    table: &str,
    compression: InputCompressionType,
) -> Result<aws_sdk_dynamodb::operation::import_table::ImportTableOutput, Error> {
    let request = import_request(client, bucket, prefix, InputFormat::DynamodbJson, creation(table));
    Ok(request.input_compression_type(compression).send().await?)
}

async fn keys(client: &Client, table: &str) -> Vec<String> {
    let items = client.scan().table_name(table).send().await.unwrap();
    let mut keys: Vec<String> = items.items().iter().map(|i| i["pk"].as_s().unwrap().clone()).collect();
    keys.sort();
    keys
}

#[tokio::test]
async fn an_export_imports_back_into_a_new_table() {
    let (client, _root) = client_with_bucket();
    table_with_items(&client, true).await;
    let out = client
        .export_table_to_point_in_time()
        .table_arn(arn("src"))
        .s3_bucket("bkt")
        .s3_prefix("p")
        .send()
        .await
        .unwrap();
    let id = out.export_description().unwrap().export_arn().unwrap().rsplit('/').next().unwrap().to_string();
    let data_prefix = format!("p/AWSDynamoDB/{id}/data/");
    let out = import(&client, "bkt", Some(&data_prefix), "copy", InputCompressionType::Gzip).await.unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Completed));
    assert_eq!((d.processed_item_count(), d.imported_item_count(), d.error_count()), (3, 3, 0));
    assert_eq!(keys(&client, "copy").await, ["user1", "user2", "user3"]);
    let import_arn = d.import_arn().unwrap().to_string();
    let described = client.describe_import().import_arn(&import_arn).send().await.unwrap();
    assert_eq!(described.import_table_description().unwrap().imported_item_count(), 3);
    let listed = client.list_imports().table_arn(arn("copy")).send().await.unwrap();
    assert_eq!(listed.import_summary_list()[0].import_arn(), Some(import_arn.as_str()));
}

#[tokio::test]
async fn an_import_reads_every_object_under_its_prefix_and_counts_bad_documents() {
    let (client, root) = client_with_bucket();
    let bucket = root.join("bkt");
    let item = |pk: &str| serde_json::json!({"Item": {"pk": {"S": pk}, "data": {"S": "x"}}}).to_string();
    // moto test_import_table_single_file_with_multiple_items: documents may follow each other
    // without a newline; test_import_table_multiple_files: any object name.
    std::fs::write(bucket.join("yes.json"), format!("{}\n{}{}", item("msg1"), item("msg2"), item("msg3")))
        .unwrap();
    std::fs::write(bucket.join("yes_without_extension"), item("msg4")).unwrap();
    // test_only_process_file_with_prefix: objects outside the prefix are not read.
    std::fs::write(bucket.join("no.json"), item("never")).unwrap();
    let out = import(&client, "bkt", Some("yes"), "good", InputCompressionType::None).await.unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Completed));
    assert_eq!((d.processed_item_count(), d.imported_item_count(), d.error_count()), (4, 4, 0));
    assert!(d.processed_size_bytes().unwrap() > 0);
    assert_eq!(keys(&client, "good").await, ["msg1", "msg2", "msg3", "msg4"]);

    // test_some_successfull_files_and_some_with_unknown_data: a document without the Item
    // wrapper is an error; the import FAILS with the good item imported.
    std::fs::create_dir(bucket.join("mixed")).unwrap();
    std::fs::write(bucket.join("mixed/a.json"), item("ok")).unwrap();
    std::fs::write(bucket.join("mixed/b"), serde_json::json!({"pk": {"S": "bad"}}).to_string()).unwrap();
    let out = import(&client, "bkt", Some("mixed/"), "mixed", InputCompressionType::None).await.unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Failed));
    assert_eq!((d.processed_item_count(), d.imported_item_count(), d.error_count()), (2, 1, 1));
    assert_eq!(keys(&client, "mixed").await, ["ok"]);

    // test_import_from_empty_s3_bucket: nothing to read still creates the table.
    let out = import(&client, "bkt", Some("empty/"), "empty", InputCompressionType::None).await.unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Completed));
    assert_eq!(
        (d.processed_item_count(), d.imported_item_count(), d.processed_size_bytes()),
        (0, 0, Some(0))
    );
    assert!(keys(&client, "empty").await.is_empty());
}

#[tokio::test]
async fn an_import_validates_its_table_like_create_table() {
    let (client, _root) = client_with_bucket();
    // moto test_import_has_regular_validation (AWS-verified text).
    let params = creation_billed("tbl1", BillingMode::Provisioned);
    let e = import_request(&client, "bkt", None, InputFormat::DynamodbJson, params).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        validation("One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED")
    );
    assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
    // An existing table is refused as CreateTable refuses it.
    hash_table(&client, "taken").send().await.unwrap();
    let e = import(&client, "bkt", None, "taken", InputCompressionType::None).await.unwrap_err();
    assert_eq!(error(e), ("ResourceInUseException".into(), "Table already exists: taken".into()));
}

#[tokio::test]
async fn a_csv_import_types_key_columns_and_reads_the_rest_as_strings() {
    // Developer guide, "Amazon S3 import formats for DynamoDB": the first line is the header
    // unless HeaderList is given; "all columns other than the hash range and keys of your base
    // table and secondary indexes are imported as DynamoDB strings"; quotes are escaped by
    // doubling them.
    let (client, root) = client_with_bucket();
    let bucket = root.join("bkt");
    std::fs::create_dir(bucket.join("csv")).unwrap();
    std::fs::write(bucket.join("csv/a.csv"), "pk,count,title\n1,10,\"\"\"quoted\"\"\"\n2,20,plain\n3,30\n")
        .unwrap();
    let params = TableCreationParameters::builder()
        .table_name("people")
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("pk")
                .attribute_type(ScalarAttributeType::N)
                .build()
                .unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .unwrap();
    let out = import_request(&client, "bkt", Some("csv/"), InputFormat::Csv, params).send().await.unwrap();
    let d = out.import_table_description().unwrap();
    // The third record has two fields for a three-column header: an error, the others imported.
    assert_eq!((d.processed_item_count(), d.imported_item_count(), d.error_count()), (3, 2, 1));
    let got = client
        .get_item()
        .table_name("people")
        .key("pk", aws_sdk_dynamodb::types::AttributeValue::N("1".into()))
        .send()
        .await
        .unwrap();
    let item = got.item().unwrap();
    assert_eq!(item["count"], aws_sdk_dynamodb::types::AttributeValue::S("10".into()));
    assert_eq!(item["title"], aws_sdk_dynamodb::types::AttributeValue::S("\"quoted\"".into()));
}

#[tokio::test]
async fn a_csv_delimiter_outside_dynamodbs_set_is_refused() {
    // API_CsvOptions: Delimiter "Pattern: [,;:|\t ]".
    let (client, _root) = client_with_bucket();
    let options = aws_sdk_dynamodb::types::InputFormatOptions::builder()
        .csv(aws_sdk_dynamodb::types::CsvOptions::builder().delimiter("#").build())
        .build();
    let request = import_request(&client, "bkt", None, InputFormat::Csv, creation("people"));
    let e = request.input_format_options(options).send().await.unwrap_err();
    // The constraint text is the shape of every pattern constraint, with the API's pattern.
    assert_eq!(
        error(e.into()),
        validation("1 validation error detected: Value '#' at 'inputFormatOptions.csv.delimiter' failed to satisfy constraint: Member must satisfy regular expression pattern: [,;:|\\t ]")
    );
}

#[tokio::test]
async fn export_requests_are_validated_as_dynamodb_validates_them() {
    // ScyllaDB test/alternator/test_export.py (run against DynamoDB): the exportFormat text with
    // DynamoDB's enum order; "Export Time is invalid" for a time before the table existed. The
    // s3Bucket pattern is API_ExportTableToPointInTime's, in the shape of every pattern error.
    let (client, _root) = client_with_bucket();
    table_with_items(&client, true).await;
    let export = || client.export_table_to_point_in_time().table_arn(arn("src")).s3_bucket("bkt");
    let e = export().export_format(ExportFormat::from("QWERTY")).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        validation("1 validation error detected: Value 'QWERTY' at 'exportFormat' failed to satisfy constraint: Member must satisfy enum value set: [ION, DYNAMODB_JSON]")
    );
    let e = export().s3_bucket("").send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        validation("1 validation error detected: Value '' at 's3Bucket' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$")
    );
    let week_ago = aws_sdk_dynamodb::primitives::DateTime::from_secs(
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64
            - 7 * 86_400,
    );
    let e = export().export_time(week_ago).send().await.unwrap_err();
    assert_eq!(error(e.into()), ("InvalidExportTimeException".into(), "Export Time is invalid".into()));
}
