//! The table's definition generated from the same model the code uses (S22): a
//! CloudFormation resource for infrastructure as code, and a `CreateTable` for local
//! development on the embedded engine or `monotable serve` (S21).

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TableStatus,
};
use serde_json::{json, Value};

use crate::error::{backend, code_of, Error};
use crate::table::Table;

impl Table {
    /// An `AWS::DynamoDB::Table` CloudFormation resource: keys, declared GSIs (projecting
    /// all attributes), the TTL attribute and on-demand billing. `TableName` is left to the
    /// stack (stage-suffixed, S19).
    pub fn cloudformation_resource(&self) -> Value {
        let conv = &self.inner.conv;
        let mut attrs = vec![conv.pk.clone(), conv.sk.clone()];
        let mut gsis = Vec::new();
        for g in &self.inner.gsis {
            attrs.push(conv.index_pk(g));
            attrs.push(conv.index_sk(g));
            gsis.push(json!({
                "IndexName": conv.index_name(g),
                "KeySchema": [
                    {"AttributeName": conv.index_pk(g), "KeyType": "HASH"},
                    {"AttributeName": conv.index_sk(g), "KeyType": "RANGE"}
                ],
                "Projection": {"ProjectionType": "ALL"}
            }));
        }
        let defs: Vec<Value> =
            attrs.iter().map(|a| json!({"AttributeName": a, "AttributeType": "S"})).collect();
        let mut props = json!({
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": defs,
            "KeySchema": [
                {"AttributeName": conv.pk, "KeyType": "HASH"},
                {"AttributeName": conv.sk, "KeyType": "RANGE"}
            ],
            "TimeToLiveSpecification": {"AttributeName": conv.ttl, "Enabled": true}
        });
        if !gsis.is_empty() {
            props["GlobalSecondaryIndexes"] = Value::Array(gsis);
        }
        json!({"Type": "AWS::DynamoDB::Table", "Properties": props})
    }

    /// Creates the table (keys and declared GSIs) if it does not exist, and returns once it is
    /// ACTIVE. For local development and tests; deployed tables come from
    /// [`Table::cloudformation_resource`].
    pub async fn create_for_development(&self) -> Result<(), Error> {
        let conv = &self.inner.conv;
        let def = |n: &str| {
            AttributeDefinition::builder().attribute_name(n).attribute_type(ScalarAttributeType::S).build()
        };
        let key = |n: &str, t: KeyType| KeySchemaElement::builder().attribute_name(n).key_type(t).build();
        let built = |e: aws_sdk_dynamodb::error::BuildError| Error::Config(format!("table definition: {e}"));
        let mut req = self
            .inner
            .client
            .create_table()
            .table_name(&self.inner.name)
            .billing_mode(BillingMode::PayPerRequest)
            .attribute_definitions(def(&conv.pk).map_err(built)?)
            .attribute_definitions(def(&conv.sk).map_err(built)?)
            .key_schema(key(&conv.pk, KeyType::Hash).map_err(built)?)
            .key_schema(key(&conv.sk, KeyType::Range).map_err(built)?);
        for g in &self.inner.gsis {
            let (pk, sk) = (conv.index_pk(g), conv.index_sk(g));
            req = req
                .attribute_definitions(def(&pk).map_err(built)?)
                .attribute_definitions(def(&sk).map_err(built)?);
            let index = GlobalSecondaryIndex::builder()
                .index_name(conv.index_name(g))
                .key_schema(key(&pk, KeyType::Hash).map_err(built)?)
                .key_schema(key(&sk, KeyType::Range).map_err(built)?)
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .map_err(built)?;
            req = req.global_secondary_indexes(index);
        }
        match req.send().await {
            Ok(_) => {}
            Err(e) if code_of(&e) == Some("ResourceInUseException") => {}
            Err(e) => return Err(backend("CreateTable", e)),
        }
        self.wait_until_active().await
    }

    /// Polls DescribeTable until the table is ACTIVE. CreateTable is asynchronous: "DynamoDB
    /// immediately returns a response with a TableStatus of CREATING ... You can perform read
    /// and write operations only on an ACTIVE table" (API reference, CreateTable). The
    /// embedded engine and `monotable serve` create tables ACTIVE; dynalite, like DynamoDB,
    /// does not, and a write sent at once fails with ResourceNotFoundException there.
    async fn wait_until_active(&self) -> Result<(), Error> {
        let mut pause = std::time::Duration::from_millis(20);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(600);
        loop {
            let out = self
                .inner
                .client
                .describe_table()
                .table_name(&self.inner.name)
                .send()
                .await
                .map_err(|e| backend("DescribeTable", e))?;
            if out.table().and_then(|t| t.table_status()) == Some(&TableStatus::Active) {
                return Ok(());
            }
            if std::time::Instant::now() >= deadline {
                return Err(Error::Config(format!(
                    "table {} did not become ACTIVE within 10 minutes",
                    self.inner.name
                )));
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(std::time::Duration::from_secs(2));
        }
    }
}
