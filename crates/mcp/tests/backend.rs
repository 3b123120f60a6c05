//! The embedded engine over a data directory: a read-only server reads a copy and leaves the
//! directory byte for byte as it was.

use std::collections::BTreeMap;
use std::path::Path;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, KeySchemaElement, KeyType, ScalarAttributeType,
};
use monotable_mcp::backend;

/// Every file under `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(
                    path.strip_prefix(dir).unwrap().display().to_string(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_data_dir_is_read_from_a_copy_and_never_written() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path().join("data");
    {
        let writable = backend::data_dir(&dir, true).unwrap();
        let client = &writable.client;
        client
            .create_table()
            .table_name("items")
            .attribute_definitions(
                AttributeDefinition::builder()
                    .attribute_name("pk")
                    .attribute_type(ScalarAttributeType::S)
                    .build()
                    .unwrap(),
            )
            .key_schema(
                KeySchemaElement::builder().attribute_name("pk").key_type(KeyType::Hash).build().unwrap(),
            )
            .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
            .send()
            .await
            .unwrap();
        client.put_item().table_name("items").item("pk", AttributeValue::S("a".into())).send().await.unwrap();
    }
    let before = files(&dir);
    let read_only = backend::data_dir(&dir, false).unwrap();
    let got =
        read_only.client.get_item().table_name("items").key("pk", AttributeValue::S("a".into())).send().await;
    assert!(got.unwrap().item().is_some(), "the copy holds the directory's items");
    // Even a write the server would never send lands in the copy, not in the directory.
    read_only
        .client
        .put_item()
        .table_name("items")
        .item("pk", AttributeValue::S("b".into()))
        .send()
        .await
        .unwrap();
    drop(read_only);
    assert_eq!(files(&dir), before);
    assert!(backend::data_dir(&scratch.path().join("missing"), false)
        .unwrap_err()
        .contains("no data directory"));
}
