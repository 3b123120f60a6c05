//! A CloudFormation template (AWS::DynamoDB::Table, AWS::SSM::Parameter, AWS::IAM::ManagedPolicy).

use serde_json::{json, Map, Value};

use super::iam::{policy, Arns};
use super::{key_attribute_type, key_attributes, parameter_name, table_name};
use crate::model::{Design, IndexKind, Projection};
use crate::settings::Billing;

fn projection(p: &Projection) -> Value {
    match p {
        Projection::All => json!({"ProjectionType": "ALL"}),
        Projection::KeysOnly => json!({"ProjectionType": "KEYS_ONLY"}),
        Projection::Include(a) => json!({"ProjectionType": "INCLUDE", "NonKeyAttributes": a}),
    }
}

/// The template as JSON.
pub fn cloudformation(d: &Design) -> Value {
    let c = &d.conventions;
    let mut props = Map::new();
    props.insert("TableName".into(), json!({"Fn::Sub": table_name(d, "${Stage}")}));
    let throughput = match d.table.billing {
        Billing::OnDemand => None,
        Billing::Provisioned { read, write } => {
            Some(json!({"ReadCapacityUnits": read, "WriteCapacityUnits": write}))
        }
    };
    match &throughput {
        None => props.insert("BillingMode".into(), json!("PAY_PER_REQUEST")),
        Some(t) => {
            props.insert("BillingMode".into(), json!("PROVISIONED"));
            props.insert("ProvisionedThroughput".into(), t.clone())
        }
    };
    let defs: Vec<Value> = key_attributes(d)
        .iter()
        .map(|a| json!({"AttributeName": a, "AttributeType": key_attribute_type(d, a)}))
        .collect();
    props.insert("AttributeDefinitions".into(), Value::Array(defs));
    props.insert(
        "KeySchema".into(),
        json!([{"AttributeName": c.pk, "KeyType": "HASH"}, {"AttributeName": c.sk, "KeyType": "RANGE"}]),
    );
    for (kind, key) in [(IndexKind::Gsi, "GlobalSecondaryIndexes"), (IndexKind::Lsi, "LocalSecondaryIndexes")]
    {
        let list: Vec<Value> = d
            .indexes
            .iter()
            .filter(|i| i.kind == kind)
            .map(|i| {
                let pk = if kind == IndexKind::Gsi {
                    i.pk.clone().map(|k| k.0).unwrap_or_default()
                } else {
                    vec![c.pk.clone()]
                };
                // A multi-attribute key lists every HASH element, then every RANGE element.
                let elements: Vec<Value> = pk
                    .iter()
                    .map(|a| json!({"AttributeName": a, "KeyType": "HASH"}))
                    .chain(i.sk.names().iter().map(|a| json!({"AttributeName": a, "KeyType": "RANGE"})))
                    .collect();
                let mut index = json!({
                    "IndexName": i.name,
                    "KeySchema": elements,
                    "Projection": projection(&i.projection),
                });
                if let (IndexKind::Gsi, Some(t)) = (kind, &throughput) {
                    index["ProvisionedThroughput"] = t.clone();
                }
                index
            })
            .collect();
        if !list.is_empty() {
            props.insert(key.into(), Value::Array(list));
        }
    }
    if let Some(ttl) = &c.ttl {
        props.insert("TimeToLiveSpecification".into(), json!({"AttributeName": ttl, "Enabled": true}));
    }
    props.insert("PointInTimeRecoverySpecification".into(), json!({"PointInTimeRecoveryEnabled": true}));
    if let Some(view) = d.table.stream {
        props.insert("StreamSpecification".into(), json!({"StreamViewType": view.as_aws()}));
    }
    props.insert("DeletionProtectionEnabled".into(), json!(d.table.deletion_protection));
    if !d.table.tags.is_empty() {
        let tags: Vec<Value> = d.table.tags.iter().map(|(k, v)| json!({"Key": k, "Value": v})).collect();
        props.insert("Tags".into(), Value::Array(tags));
    }
    let table = || json!({"Fn::GetAtt": ["Table", "Arn"]});
    let index = |name: &str| json!({"Fn::Sub": format!("${{Table.Arn}}/index/{name}")});
    let doc = policy(d, &Arns { table: &table, index: &index });
    json!({
        "AWSTemplateFormatVersion": "2010-09-09",
        "Description": format!("monotable design {}/{}/{}: table, name parameter (S19) and least-privilege policy", d.app, d.unit, d.model),
        "Parameters": {"Stage": {"Type": "String", "Default": "dev", "AllowedPattern": "^[a-z0-9-]+$", "Description": "Deployment stage, suffixing every name (S19)"}},
        "Resources": {
            "Table": {"Type": "AWS::DynamoDB::Table", "DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain", "Properties": props},
            "TableNameParameter": {"Type": "AWS::SSM::Parameter", "Properties": {
                "Name": {"Fn::Sub": parameter_name(d, "${Stage}")}, "Type": "String", "Value": {"Ref": "Table"}}},
            "ServicePolicy": {"Type": "AWS::IAM::ManagedPolicy", "Properties": {
                "Description": "Only the actions, table and indexes of the design's access patterns", "PolicyDocument": doc}}
        },
        "Outputs": {
            "TableName": {"Value": {"Ref": "Table"}},
            "ServicePolicyArn": {"Value": {"Ref": "ServicePolicy"}}
        }
    })
}

/// The same template as YAML (CloudFormation reads the long-form intrinsics in YAML too).
pub fn cloudformation_yaml(d: &Design) -> String {
    serde_norway::to_string(&cloudformation(d)).unwrap_or_default()
}
