//! The table, its data and the pre-built request bodies of each workload.
//!
//! Every body is built once, before the clock starts, with `serde_json` at setup time; the
//! measured loop only picks a body, signs it and sends it. Keys are laid out so that every
//! workload touches data the load phase wrote:
//!
//! * item `i` (in `0..items`) has `pk = p{i / partition_size}` and `sk = s{i % partition_size}`,
//!   so a partition holds `partition_size` items (25 by default: a Query returns 25 items);
//! * each item carries the GSI key `gsi1pk = g{i % 64}`, `gsi1sk = sk`, a number `n` and a
//!   `payload` string padded so that the item's DynamoDB size is `item_size` bytes.

use std::fmt;
use std::str::FromStr;

use bytes::Bytes;
use serde_json::{json, Value};

use crate::rng::SplitMix64;
use crate::sigv4::payload_hash;

/// DynamoDB's item size limit, in bytes.
pub const MAX_ITEM_SIZE: usize = 400 * 1024;

/// Items per `BatchWriteItem`, DynamoDB's limit.
pub(crate) const BATCH_SIZE: usize = 25;

/// Number of distinct GSI partition keys the items are spread over.
const GSI_PARTITIONS: u64 = 64;

/// What the measured requests do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Workload {
    /// `PutItem` overwriting random loaded items (the table size stays constant).
    Put,
    /// `GetItem` of random loaded items.
    Get,
    /// `UpdateItem` of random loaded items: `SET v = :v ADD n :one`.
    Update,
    /// `Query` of one random partition (`partition_size` items).
    Query,
    /// 60% get, 20% put, 10% update, 10% query, chosen by the seeded generator.
    Mixed,
    /// `TransactWriteItems` of 4 actions on one partition: 2 Puts, 1 Update, 1 ConditionCheck.
    Transact,
}

impl Workload {
    /// Every workload, in report order.
    pub const ALL: [Workload; 6] = [
        Workload::Put,
        Workload::Get,
        Workload::Update,
        Workload::Query,
        Workload::Mixed,
        Workload::Transact,
    ];

    /// The lower-case name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Put => "put",
            Workload::Get => "get",
            Workload::Update => "update",
            Workload::Query => "query",
            Workload::Mixed => "mixed",
            Workload::Transact => "transact",
        }
    }
}

impl fmt::Display for Workload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Workload {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Workload::ALL.into_iter().find(|w| w.name().eq_ignore_ascii_case(s)).ok_or_else(|| {
            let names: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
            format!("unknown workload {s:?}; expected one of {}", names.join(", "))
        })
    }
}

/// The DynamoDB operation of one request, for result checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpKind {
    Put,
    Get,
    Update,
    Query,
    Transact,
    /// Only sent by `--attack` shapes.
    Scan,
    Delete,
    BatchWrite,
    ListTables,
}

impl OpKind {
    /// The `X-Amz-Target` header value.
    pub(crate) fn target(self) -> &'static str {
        match self {
            OpKind::Put => "DynamoDB_20120810.PutItem",
            OpKind::Get => "DynamoDB_20120810.GetItem",
            OpKind::Update => "DynamoDB_20120810.UpdateItem",
            OpKind::Query => "DynamoDB_20120810.Query",
            OpKind::Transact => "DynamoDB_20120810.TransactWriteItems",
            OpKind::Scan => "DynamoDB_20120810.Scan",
            OpKind::Delete => "DynamoDB_20120810.DeleteItem",
            OpKind::BatchWrite => "DynamoDB_20120810.BatchWriteItem",
            OpKind::ListTables => "DynamoDB_20120810.ListTables",
        }
    }

    /// True when a successful (HTTP 200) response body found nothing: a GetItem without
    /// `Item` or a Query with `"Count":0`. Such answers are fast for the wrong reason, so they
    /// are counted in the report.
    pub(crate) fn is_empty_result(self, body: &[u8]) -> bool {
        match self {
            OpKind::Get => !contains(body, b"\"Item\""),
            OpKind::Query => contains(body, b"\"Count\":0,") || contains(body, b"\"Count\":0}"),
            _ => false,
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    // Responses are JSON, hence UTF-8: `str::contains` searches with SIMD, where a window
    // comparison per byte cost microseconds on a 25-item Query answer.
    match (std::str::from_utf8(haystack), std::str::from_utf8(needle)) {
        (Ok(h), Ok(n)) => h.contains(n),
        _ => haystack.windows(needle.len()).any(|w| w == needle),
    }
}

/// One pre-built request: its operation, body and the body's SigV4 payload hash.
#[derive(Debug, Clone)]
pub(crate) struct PreparedOp {
    pub kind: OpKind,
    pub body: Bytes,
    pub body_hash: String,
}

impl PreparedOp {
    pub(crate) fn new(kind: OpKind, body: &Value) -> Self {
        let bytes = Bytes::from(body.to_string());
        let body_hash = payload_hash(&bytes);
        Self { kind, body: bytes, body_hash }
    }
}

/// The shape of the benchmark table and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataModel {
    pub table: String,
    /// Items loaded before the measured phase.
    pub items: u64,
    /// Target DynamoDB item size in bytes.
    pub item_size: usize,
    /// Items per partition key (the size of a Query result).
    pub partition_size: u64,
    /// A DynamoDB stream on the table, with this `StreamViewType` (`None`: no stream).
    pub stream: Option<String>,
}

impl DataModel {
    /// Checks the limits the key layout relies on.
    pub fn validate(&self) -> Result<(), String> {
        if self.table.len() < 3 || self.table.len() > 255 {
            return Err("the table name must be 3 to 255 characters long".into());
        }
        if self.partition_size < 4 {
            return Err("--partition-size must be at least 4 (a transaction touches 4 items)".into());
        }
        if self.items < self.partition_size {
            return Err(format!("--items must be at least the partition size ({})", self.partition_size));
        }
        if let Some(view) = &self.stream {
            if !["KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"].contains(&view.as_str()) {
                return Err("--stream must be KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES".into());
            }
        }
        if self.item_size > MAX_ITEM_SIZE {
            return Err(format!("--item-size must be at most {MAX_ITEM_SIZE} bytes (DynamoDB's item limit)"));
        }
        Ok(())
    }

    /// Partitions whose `partition_size` items were all loaded.
    fn full_partitions(&self) -> u64 {
        (self.items / self.partition_size).max(1)
    }

    pub(crate) fn key(&self, i: u64) -> (String, String) {
        (format!("p{:06}", i / self.partition_size), format!("s{:04}", i % self.partition_size))
    }

    fn key_json(&self, i: u64) -> Value {
        let (pk, sk) = self.key(i);
        json!({"pk": {"S": pk}, "sk": {"S": sk}})
    }

    /// The full item `i`; `n` is its counter value.
    pub(crate) fn item(&self, i: u64, n: u64) -> Value {
        let (pk, sk) = self.key(i);
        let gsi1pk = format!("g{:02}", i % GSI_PARTITIONS);
        let n_text = n.to_string();
        // DynamoDB's item size: attribute name bytes plus value bytes (a number counts about
        // one byte per two digits plus one; the text length is a close enough upper bound).
        let fixed = "pk".len()
            + pk.len()
            + "sk".len()
            + sk.len()
            + "gsi1pk".len()
            + gsi1pk.len()
            + "gsi1sk".len()
            + sk.len()
            + "n".len()
            + n_text.len()
            + "payload".len();
        let pad = self.item_size.saturating_sub(fixed).max(1);
        json!({
            "pk": {"S": pk},
            "sk": {"S": sk.clone()},
            "gsi1pk": {"S": gsi1pk},
            "gsi1sk": {"S": sk},
            "n": {"N": n_text},
            "payload": {"S": "x".repeat(pad)},
        })
    }

    /// The `CreateTable` body: pk/sk strings, on-demand billing and one GSI (`gsi1`).
    pub(crate) fn create_table_body(&self) -> Value {
        let mut body = json!({
            "TableName": self.table,
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
                {"AttributeName": "gsi1pk", "AttributeType": "S"},
                {"AttributeName": "gsi1sk", "AttributeType": "S"},
            ],
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"},
            ],
            "GlobalSecondaryIndexes": [{
                "IndexName": "gsi1",
                "KeySchema": [
                    {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                    {"AttributeName": "gsi1sk", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }],
            "BillingMode": "PAY_PER_REQUEST",
        });
        if let Some(view) = &self.stream {
            body["StreamSpecification"] = json!({"StreamEnabled": true, "StreamViewType": view});
        }
        body
    }

    pub(crate) fn table_name_body(&self) -> Value {
        json!({"TableName": self.table})
    }

    /// `BatchWriteItem` bodies that load items `0..items`, 25 per body.
    pub(crate) fn load_bodies(&self) -> Vec<Value> {
        let mut bodies = Vec::new();
        let mut start = 0;
        while start < self.items {
            let end = (start + BATCH_SIZE as u64).min(self.items);
            let puts: Vec<Value> =
                (start..end).map(|i| json!({"PutRequest": {"Item": self.item(i, 0)}})).collect();
            bodies.push(json!({"RequestItems": {self.table.clone(): puts}}));
            start = end;
        }
        bodies
    }

    fn put(&self, rng: &mut SplitMix64) -> PreparedOp {
        let i = rng.below(self.items);
        let body = json!({"TableName": self.table, "Item": self.item(i, rng.below(1_000_000))});
        PreparedOp::new(OpKind::Put, &body)
    }

    fn get(&self, rng: &mut SplitMix64) -> PreparedOp {
        let body = json!({"TableName": self.table, "Key": self.key_json(rng.below(self.items))});
        PreparedOp::new(OpKind::Get, &body)
    }

    fn update(&self, rng: &mut SplitMix64) -> PreparedOp {
        let body = json!({
            "TableName": self.table,
            "Key": self.key_json(rng.below(self.items)),
            "UpdateExpression": "SET v = :v ADD n :one",
            "ExpressionAttributeValues": {":v": {"S": format!("u{}", rng.below(1_000_000))}, ":one": {"N": "1"}},
        });
        PreparedOp::new(OpKind::Update, &body)
    }

    fn query(&self, rng: &mut SplitMix64) -> PreparedOp {
        let (pk, _) = self.key(rng.below(self.full_partitions()) * self.partition_size);
        let body = json!({
            "TableName": self.table,
            "KeyConditionExpression": "pk = :p",
            "ExpressionAttributeValues": {":p": {"S": pk}},
        });
        PreparedOp::new(OpKind::Query, &body)
    }

    /// Four distinct items of one fully loaded partition: Put, Put, Update, ConditionCheck.
    fn transact(&self, rng: &mut SplitMix64) -> PreparedOp {
        let base = rng.below(self.full_partitions()) * self.partition_size;
        let offset = rng.below(self.partition_size);
        let item = |k: u64| base + (offset + k) % self.partition_size;
        let body = json!({"TransactItems": [
            {"Put": {"TableName": self.table, "Item": self.item(item(0), rng.below(1_000_000))}},
            {"Put": {"TableName": self.table, "Item": self.item(item(1), rng.below(1_000_000))}},
            {"Update": {
                "TableName": self.table,
                "Key": self.key_json(item(2)),
                "UpdateExpression": "ADD n :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}},
            }},
            {"ConditionCheck": {
                "TableName": self.table,
                "Key": self.key_json(item(3)),
                "ConditionExpression": "attribute_exists(pk)",
            }},
        ]});
        PreparedOp::new(OpKind::Transact, &body)
    }

    /// `count` request bodies of `workload`, chosen by a generator seeded with `seed`.
    pub(crate) fn build_ops(&self, workload: Workload, count: usize, seed: u64) -> Vec<PreparedOp> {
        let mut rng = SplitMix64::new(seed);
        (0..count.max(1))
            .map(|_| match workload {
                Workload::Put => self.put(&mut rng),
                Workload::Get => self.get(&mut rng),
                Workload::Update => self.update(&mut rng),
                Workload::Query => self.query(&mut rng),
                Workload::Transact => self.transact(&mut rng),
                Workload::Mixed => match rng.below(100) {
                    0..=59 => self.get(&mut rng),
                    60..=79 => self.put(&mut rng),
                    80..=89 => self.update(&mut rng),
                    _ => self.query(&mut rng),
                },
            })
            .collect()
    }
}

/// The DynamoDB size of an item in its wire JSON: attribute names plus string/number values.
#[cfg(test)]
fn dynamodb_size(item: &Value) -> usize {
    item.as_object()
        .map(|m| {
            m.iter()
                .map(|(name, v)| {
                    let value = v.as_object().and_then(|t| t.values().next()).and_then(Value::as_str);
                    name.len() + value.map_or(0, str::len)
                })
                .sum()
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> DataModel {
        DataModel { table: "bench".into(), items: 100, item_size: 1024, partition_size: 25, stream: None }
    }

    fn parse(op: &PreparedOp) -> Value {
        serde_json::from_slice(&op.body).unwrap()
    }

    #[test]
    fn workload_names_round_trip_and_unknown_names_list_the_choices() {
        for w in Workload::ALL {
            assert_eq!(w.name().parse::<Workload>().unwrap(), w);
        }
        assert_eq!("GET".parse::<Workload>().unwrap(), Workload::Get);
        let err = "scan".parse::<Workload>().unwrap_err();
        assert!(err.contains("put, get, update, query, mixed, transact"), "{err}");
    }

    #[test]
    fn items_have_the_requested_size() {
        let m = model();
        assert_eq!(dynamodb_size(&m.item(7, 123)), 1024);
        let small = DataModel { item_size: 10, ..model() };
        assert!(dynamodb_size(&small.item(7, 0)) < 100);
    }

    #[test]
    fn keys_group_partition_size_items_per_partition() {
        let m = model();
        assert_eq!(m.key(0), ("p000000".to_string(), "s0000".to_string()));
        assert_eq!(m.key(24), ("p000000".to_string(), "s0024".to_string()));
        assert_eq!(m.key(25), ("p000001".to_string(), "s0000".to_string()));
    }

    #[test]
    fn load_bodies_cover_every_item_in_batches_of_25() {
        let m = DataModel { items: 60, ..model() };
        let bodies = m.load_bodies();
        let sizes: Vec<usize> =
            bodies.iter().map(|b| b["RequestItems"]["bench"].as_array().unwrap().len()).collect();
        assert_eq!(sizes, vec![25, 25, 10]);
        assert_eq!(bodies[2]["RequestItems"]["bench"][9]["PutRequest"]["Item"]["sk"]["S"], "s0009");
    }

    #[test]
    fn create_table_has_string_keys_and_one_gsi() {
        let body = model().create_table_body();
        assert_eq!(body["KeySchema"][0]["AttributeName"], "pk");
        assert_eq!(body["GlobalSecondaryIndexes"].as_array().unwrap().len(), 1);
        assert_eq!(body["BillingMode"], "PAY_PER_REQUEST");
    }

    #[test]
    fn a_stream_option_enables_a_stream_of_that_view_type() {
        assert!(model().create_table_body().get("StreamSpecification").is_none());
        let m = DataModel { stream: Some("NEW_AND_OLD_IMAGES".into()), ..model() };
        assert!(m.validate().is_ok());
        let body = m.create_table_body();
        assert_eq!(
            body["StreamSpecification"],
            json!({"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"})
        );
        assert!(DataModel { stream: Some("ALL".into()), ..model() }.validate().is_err());
    }

    #[test]
    fn ops_are_reproducible_for_a_seed_and_differ_across_seeds() {
        let m = model();
        let a: Vec<Bytes> = m.build_ops(Workload::Mixed, 50, 1).into_iter().map(|o| o.body).collect();
        let b: Vec<Bytes> = m.build_ops(Workload::Mixed, 50, 1).into_iter().map(|o| o.body).collect();
        let c: Vec<Bytes> = m.build_ops(Workload::Mixed, 50, 2).into_iter().map(|o| o.body).collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn get_and_update_target_loaded_keys() {
        let m = model();
        for op in m.build_ops(Workload::Get, 20, 3).iter().chain(&m.build_ops(Workload::Update, 20, 3)) {
            let v = parse(op);
            let pk = v["Key"]["pk"]["S"].as_str().unwrap();
            assert!(pk.as_bytes()[1..].iter().all(u8::is_ascii_digit));
            assert!(pk[1..].parse::<u64>().unwrap() < 4);
        }
        let update = parse(&m.build_ops(Workload::Update, 1, 3)[0]);
        assert_eq!(update["UpdateExpression"], "SET v = :v ADD n :one");
    }

    #[test]
    fn query_selects_one_full_partition() {
        let m = DataModel { items: 60, ..model() };
        for op in m.build_ops(Workload::Query, 30, 9) {
            let v = parse(&op);
            let p = v["ExpressionAttributeValues"][":p"]["S"].as_str().unwrap();
            assert!(p == "p000000" || p == "p000001", "{p}");
        }
    }

    #[test]
    fn transactions_touch_four_distinct_items_of_one_partition() {
        let m = model();
        for op in m.build_ops(Workload::Transact, 30, 5) {
            let v = parse(&op);
            let actions = v["TransactItems"].as_array().unwrap();
            let keys: Vec<(String, String)> = actions
                .iter()
                .map(|a| {
                    let inner = a.as_object().unwrap().values().next().unwrap();
                    let key = if inner.get("Item").is_some() { &inner["Item"] } else { &inner["Key"] };
                    (key["pk"]["S"].as_str().unwrap().into(), key["sk"]["S"].as_str().unwrap().into())
                })
                .collect();
            assert!(keys.iter().all(|k| k.0 == keys[0].0));
            let mut sks: Vec<&String> = keys.iter().map(|k| &k.1).collect();
            sks.sort();
            sks.dedup();
            assert_eq!(sks.len(), 4);
        }
    }

    #[test]
    fn mixed_contains_every_single_item_operation() {
        let kinds: Vec<OpKind> = model().build_ops(Workload::Mixed, 500, 11).iter().map(|o| o.kind).collect();
        for k in [OpKind::Get, OpKind::Put, OpKind::Update, OpKind::Query] {
            assert!(kinds.contains(&k), "{k:?} missing");
        }
    }

    #[test]
    fn empty_results_are_recognised() {
        assert!(OpKind::Get.is_empty_result(b"{}"));
        assert!(!OpKind::Get.is_empty_result(br#"{"Item":{"pk":{"S":"a"}}}"#));
        assert!(OpKind::Query.is_empty_result(br#"{"Count":0,"Items":[],"ScannedCount":0}"#));
        assert!(!OpKind::Query.is_empty_result(br#"{"Count":25,"Items":[]}"#));
        assert!(!OpKind::Put.is_empty_result(b"{}"));
    }

    #[test]
    fn validation_refuses_layouts_the_workloads_cannot_use() {
        assert!(model().validate().is_ok());
        assert!(DataModel { items: 3, ..model() }.validate().is_err());
        assert!(DataModel { partition_size: 2, ..model() }.validate().is_err());
        assert!(DataModel { item_size: MAX_ITEM_SIZE + 1, ..model() }.validate().is_err());
        assert!(DataModel { table: "ab".into(), ..model() }.validate().is_err());
    }
}
