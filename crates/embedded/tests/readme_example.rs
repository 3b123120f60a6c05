//! The README's "engine, embedded" example (the same code, formatted), so that it keeps
//! compiling and working.

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};

async fn readme_main() -> Result<(), Box<dyn std::error::Error>> {
    let client = monotable_embedded::client(); // no socket, no port
    client
        .create_table()
        .table_name("notes")
        .billing_mode(BillingMode::PayPerRequest)
        .attribute_definitions(
            AttributeDefinition::builder()
                .attribute_name("id")
                .attribute_type(ScalarAttributeType::S)
                .build()?,
        )
        .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build()?)
        .send()
        .await?;
    client.put_item().table_name("notes").item("id", AttributeValue::S("n1".into())).send().await?;
    let got = client.get_item().table_name("notes").key("id", AttributeValue::S("n1".into())).send().await?;
    assert!(got.item().is_some());
    Ok(())
}

#[tokio::test]
async fn readme_embedded_example_runs() {
    readme_main().await.expect("the README example succeeds");
}

#[tokio::test]
async fn each_client_call_is_a_private_database() {
    readme_main().await.expect("first");
    // A second fresh client does not see the first one's table, so creating it again works.
    readme_main().await.expect("second");
}
