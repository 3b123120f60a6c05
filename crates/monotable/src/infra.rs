//! The table's definition generated from the same model the code uses (S22): a
//! CloudFormation resource for infrastructure as code, and a `CreateTable` for local
//! development on the embedded engine or `monotable serve` (S21).

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType, Projection,
    ProjectionType, ScalarAttributeType, TableStatus,
};
use serde_json::{json, Value};

use crate::error::{backend, code_of, Error};
use crate::schema::ScalarType;
use crate::table::Table;

/// One KeySchema element: attribute name, its type, HASH or RANGE.
type KeyElement = (String, ScalarType, KeyType);

impl Table {
    /// An `AWS::DynamoDB::Table` CloudFormation resource: keys, declared GSIs (projecting
    /// all attributes), the TTL attribute and on-demand billing. `TableName` is left to the
    /// stack (stage-suffixed, S19).
    pub fn cloudformation_resource(&self) -> Value {
        let conv = &self.inner.conv;
        let mut gsis = Vec::new();
        for (g, key) in self.gsi_keys() {
            let elements: Vec<Value> = key
                .iter()
                .map(|(a, _, kind)| json!({"AttributeName": a, "KeyType": kind.as_str()}))
                .collect();
            gsis.push(json!({
                "IndexName": conv.index_name(g),
                "KeySchema": elements,
                "Projection": {"ProjectionType": "ALL"}
            }));
        }
        let defs: Vec<Value> = self
            .key_attributes()
            .iter()
            .map(|(a, t)| json!({"AttributeName": a, "AttributeType": t.as_str()}))
            .collect();
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
        let def = |n: &str, t: ScalarType| {
            let t = match t {
                ScalarType::N => ScalarAttributeType::N,
                _ => ScalarAttributeType::S,
            };
            AttributeDefinition::builder().attribute_name(n).attribute_type(t).build()
        };
        let key = |n: &str, t: KeyType| KeySchemaElement::builder().attribute_name(n).key_type(t).build();
        let built = |e: aws_sdk_dynamodb::error::BuildError| Error::Config(format!("table definition: {e}"));
        let mut req = self
            .inner
            .client
            .create_table()
            .table_name(&self.inner.name)
            .billing_mode(BillingMode::PayPerRequest)
            .key_schema(key(&conv.pk, KeyType::Hash).map_err(built)?)
            .key_schema(key(&conv.sk, KeyType::Range).map_err(built)?);
        for (a, t) in self.key_attributes() {
            req = req.attribute_definitions(def(&a, t).map_err(built)?);
        }
        for (g, elements) in self.gsi_keys() {
            let mut index = GlobalSecondaryIndex::builder()
                .index_name(conv.index_name(g))
                .projection(Projection::builder().projection_type(ProjectionType::All).build());
            for (a, _, kind) in elements {
                index = index.key_schema(key(&a, kind).map_err(built)?);
            }
            req = req.global_secondary_indexes(index.build().map_err(built)?);
        }
        match req.send().await {
            Ok(_) => {}
            Err(e) if code_of(&e) == Some("ResourceInUseException") => {}
            Err(e) => return Err(backend("CreateTable", e)),
        }
        self.wait_until_active().await
    }

    /// Each declared GSI's KeySchema: `(attribute, type, key type)`, HASH elements first. A
    /// template index has `gsiNpk`/`gsiNsk` (S); a multi-attribute one the fields' own
    /// attributes, up to four of each kind, in key order.
    fn gsi_keys(&self) -> Vec<(&str, Vec<KeyElement>)> {
        let conv = &self.inner.conv;
        let multi = self.multi_keys();
        let gsi = |g: &str| match multi.get(g) {
            Some(m) => {
                m.pk.iter()
                    .map(|f| (f.attr.to_string(), f.ty, KeyType::Hash))
                    .chain(m.sk.iter().map(|f| (f.attr.to_string(), f.ty, KeyType::Range)))
                    .collect()
            }
            None => vec![
                (conv.index_pk(g), ScalarType::S, KeyType::Hash),
                (conv.index_sk(g), ScalarType::S, KeyType::Range),
            ],
        };
        self.inner.gsis.iter().map(|g| (g.as_str(), gsi(g))).collect()
    }

    /// The AttributeDefinitions: every key attribute of the table and its GSIs, once, typed.
    fn key_attributes(&self) -> Vec<(String, ScalarType)> {
        let conv = &self.inner.conv;
        let mut out = vec![(conv.pk.clone(), ScalarType::S), (conv.sk.clone(), ScalarType::S)];
        for (_, elements) in self.gsi_keys() {
            for (a, t, _) in elements {
                if !out.iter().any(|(o, _)| *o == a) {
                    out.push((a, t));
                }
            }
        }
        out
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
