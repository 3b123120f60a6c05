//! `monotable serve --s3-endpoint URL`: ExportTableToPointInTime and ImportTable on moto's S3
//! server, with the keys and region the AWS credential chain reads from the environment,
//! through the AWS SDK against the spawned binary. The objects are read with boto3.

#[path = "../../s3/tests/support/moto.rs"]
mod moto;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, ExportStatus, ImportStatus, InputFormat,
    KeySchemaElement, KeyType, PointInTimeRecoverySpecification, S3BucketSource, ScalarAttributeType,
    TableCreationParameters,
};
use aws_sdk_dynamodb::Client;

/// A spawned `monotable serve`, stopped when dropped.
struct Served {
    child: Child,
    client: Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_monotable"));
    command
        .args(["serve", "--port", "0", "--console", "off"])
        .args(args)
        .env_remove("MONOTABLE_PORT")
        .env_remove("MONOTABLE_BUCKET_DIR")
        .env_remove("MONOTABLE_S3_ENDPOINT")
        .env_remove("AWS_PROFILE")
        .env("AWS_ACCESS_KEY_ID", moto::KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", moto::SECRET)
        .env("AWS_REGION", "us-east-1")
        .stdin(Stdio::null());
    command
}

fn start_with_s3() -> Served {
    let mut child = serve(&["--s3-endpoint", &moto::moto().endpoint])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("monotable starts");
    let first = BufReader::new(child.stdout.take().expect("piped stdout")).lines().next();
    let banner = first.and_then(Result::ok).unwrap_or_default();
    let endpoint = banner
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no endpoint in the banner: {banner}"))
        .to_owned();
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::from_static("us-east-1"))
        .credentials_provider(Credentials::new("test", "test", None, None, "test"))
        .endpoint_url(endpoint)
        .build();
    Served { child, client: Client::from_conf(config) }
}

fn key_schema() -> (AttributeDefinition, KeySchemaElement) {
    (
        AttributeDefinition::builder()
            .attribute_name("pk")
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap(),
        KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap(),
    )
}

#[tokio::test]
async fn serve_with_s3_endpoint_exports_to_and_imports_from_the_s3_server() {
    let bucket = moto::new_bucket("serve");
    let served = start_with_s3();
    let client = &served.client;
    let (definition, key) = key_schema();
    client
        .create_table()
        .table_name("src")
        .attribute_definitions(definition.clone())
        .key_schema(key.clone())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
    let pitr =
        PointInTimeRecoverySpecification::builder().point_in_time_recovery_enabled(true).build().unwrap();
    client
        .update_continuous_backups()
        .table_name("src")
        .point_in_time_recovery_specification(pitr)
        .send()
        .await
        .unwrap();
    for pk in ["a", "b"] {
        client.put_item().table_name("src").item("pk", AttributeValue::S(pk.into())).send().await.unwrap();
    }
    let out = client
        .export_table_to_point_in_time()
        .table_arn("arn:aws:dynamodb:us-east-1:000000000000:table/src")
        .s3_bucket(&bucket)
        .s3_prefix("exp")
        .send()
        .await
        .unwrap();
    let d = out.export_description().unwrap();
    assert_eq!(d.export_status(), Some(&ExportStatus::Completed), "{:?}", d.failure_message());
    let keys = moto::list(&bucket, "exp/");
    assert!(keys.iter().any(|k| k.ends_with("/manifest-summary.json")), "{keys:?}");

    // The export's data files read back by ImportTable into a new table.
    let data_prefix = keys.iter().find(|k| k.contains("/data/")).expect("a data file").to_owned();
    let creation = TableCreationParameters::builder()
        .table_name("copy")
        .attribute_definitions(definition)
        .key_schema(key)
        .billing_mode(BillingMode::PayPerRequest)
        .build()
        .unwrap();
    let out = client
        .import_table()
        .s3_bucket_source(
            S3BucketSource::builder().s3_bucket(&bucket).s3_key_prefix(data_prefix).build().unwrap(),
        )
        .input_format(InputFormat::DynamodbJson)
        .input_compression_type(aws_sdk_dynamodb::types::InputCompressionType::Gzip)
        .table_creation_parameters(creation)
        .send()
        .await
        .unwrap();
    let d = out.import_table_description().unwrap();
    assert_eq!(d.import_status(), Some(&ImportStatus::Completed), "{:?}", d.failure_message());
    assert_eq!(d.imported_item_count(), 2);
}

#[test]
fn serve_refuses_s3_endpoint_with_bucket_dir_or_a_url_that_is_not_http() {
    let both = serve(&["--s3-endpoint", "aws", "--bucket-dir", "/tmp"]).output().expect("monotable runs");
    assert!(!both.status.success());
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"), "{both:?}");
    let ftp = serve(&["--s3-endpoint", "ftp://127.0.0.1"]).output().expect("monotable runs");
    assert!(!ftp.status.success());
    assert!(
        String::from_utf8_lossy(&ftp.stderr)
            .contains("the S3 endpoint ftp://127.0.0.1 is not an http:// or https:// URL"),
        "{ftp:?}"
    );
}
