//! The README's "engine, embedded" example, kept character for character between the README
//! markers (`crates/monotable/tests/readme.rs` checks that it is the README's block), so that
//! the example keeps compiling and working.

#[rustfmt::skip]
mod readme {
    // README begin
    use aws_sdk_dynamodb::types::{AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType};

    #[tokio::main]
    async fn main() -> Result<(), Box<dyn std::error::Error>> {
        let client = monotable_embedded::client(); // no socket, no port
        client.create_table().table_name("notes").billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(AttributeDefinition::builder().attribute_name("id").attribute_type(ScalarAttributeType::S).build()?)
            .key_schema(KeySchemaElement::builder().attribute_name("id").key_type(KeyType::Hash).build()?)
            .send().await?;
        client.put_item().table_name("notes").item("id", AttributeValue::S("n1".into())).send().await?;
        let got = client.get_item().table_name("notes").key("id", AttributeValue::S("n1".into())).send().await?;
        assert!(got.item().is_some());
        Ok(())
    }
    // README end

    #[test]
    fn readme_embedded_example_runs() {
        main().expect("the README example succeeds");
    }

    #[test]
    fn each_client_call_is_a_private_database() {
        main().expect("first");
        // A second fresh client does not see the first one's table, so creating it again works.
        main().expect("second");
    }
}
