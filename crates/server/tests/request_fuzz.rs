//! A structure-aware fuzzer over request bodies, for every operation the server speaks.
//!
//! Bodies are built from DynamoDB's own member names with values of the right shape most of
//! the time (attribute values of every type and nesting, expressions from DynamoDB's tokens,
//! batches, transactions, key schemas) and of the wrong shape some of the time; a share of
//! them is then damaged at the byte level (truncated, a byte replaced). Each one runs against
//! a table with a GSI, an LSI, a stream and items, so that the requests reach the engine's
//! real paths. Every answer must be a well-formed response below 500, never a panic, and cost
//! bounded CPU time per byte of request.
//!
//! The body also travels in the ways a hostile client sends it: compressed (`gzip` or
//! `deflate`, sometimes with the compressed bytes damaged, sometimes with a coding DynamoDB
//! does not know), and with a web page's `Origin` (a loopback one, one the service allows, or
//! a foreign one). A foreign origin is refused with 403 whatever the body; an unknown coding or
//! a compressed body that does not decode is DynamoDB's HTTP 500 and nothing else.
//!
//! `cargo test` runs a bounded number of cases (`MONOTABLE_FUZZ_CASES`, default 4,000 — a few
//! seconds in a debug build); set it higher for a longer local run. `MONOTABLE_FUZZ_SHOW=1`
//! prints every error answer, to see where generated requests stop.

mod common;

use std::time::Duration;

use std::io::Write;

use common::{handle_in_process, handle_in_process_with, thread_cpu};

use monotable_engine::Engine;
use monotable_server::{Operation, Service};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Map, Value};

/// The origin the fixture's service allows besides the loopback ones.
const ALLOWED_ORIGIN: &str = "http://app.test:5173";

/// CPU time a request may take regardless of its size (debug build, shared machine).
const BASE_BUDGET: Duration = Duration::from_millis(250);
/// CPU time a request may take per byte of its body, beyond [`BASE_BUDGET`].
const PER_BYTE_BUDGET: Duration = Duration::from_micros(100);

/// A fresh engine with the fixture table `tbl`: keys `pk`/`sk`, GSI `gsi1`, LSI `lsi1`, a
/// NEW_AND_OLD_IMAGES stream and a dozen items.
fn fixture() -> Service {
    let service = Service::new(Engine::new()).with_allowed_origins([ALLOWED_ORIGIN.to_owned()]);
    let create = json!({
        "TableName": "tbl",
        "AttributeDefinitions": [
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "gsi1pk", "AttributeType": "S"},
            {"AttributeName": "n", "AttributeType": "N"}
        ],
        "KeySchema": [
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"}
        ],
        "GlobalSecondaryIndexes": [{
            "IndexName": "gsi1",
            "KeySchema": [
                {"AttributeName": "gsi1pk", "KeyType": "HASH"},
                {"AttributeName": "sk", "KeyType": "RANGE"}
            ],
            "Projection": {"ProjectionType": "ALL"}
        }],
        "LocalSecondaryIndexes": [{
            "IndexName": "lsi1",
            "KeySchema": [
                {"AttributeName": "pk", "KeyType": "HASH"},
                {"AttributeName": "n", "KeyType": "RANGE"}
            ],
            "Projection": {"ProjectionType": "KEYS_ONLY"}
        }],
        "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        "BillingMode": "PAY_PER_REQUEST"
    });
    let (status, body) =
        handle_in_process(&service, "DynamoDB_20120810.CreateTable", create.to_string().as_bytes());
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&body));
    for i in 0..12 {
        let item = json!({"TableName": "tbl", "Item": {
            "pk": {"S": format!("p{}", i % 3)}, "sk": {"S": format!("s{i}")},
            "gsi1pk": {"S": format!("g{}", i % 2)}, "n": {"N": i.to_string()},
            "a": {"L": [{"S": "x"}, {"M": {"b": {"NS": ["1", "2"]}}}]}, "s": {"SS": ["x", "y"]}
        }});
        let (status, _) =
            handle_in_process(&service, "DynamoDB_20120810.PutItem", item.to_string().as_bytes());
        assert_eq!(status, 200);
    }
    service
}

// ---- strategies: names, attribute values, expressions ----

const NAMES: &[&str] = &["pk", "sk", "gsi1pk", "n", "a", "s", "b", "missing", "#n", "a.b", ""];
const TABLES: &[&str] = &["tbl", "missing", "", "arn:aws:dynamodb:us-east-1:123456789012:table/tbl", "t!"];
const INDEXES: &[&str] = &["gsi1", "lsi1", "nope", ""];
const TOKENS: &[&str] = &[
    "pk",
    "sk",
    "n",
    "a",
    "a.b",
    "a[0]",
    "a[1].b",
    "#n",
    "#m",
    ":v",
    ":w",
    ":missing",
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "AND",
    "OR",
    "NOT",
    "(",
    ")",
    ",",
    "BETWEEN",
    "IN",
    "begins_with(",
    "attribute_exists(",
    "attribute_not_exists(",
    "attribute_type(",
    "contains(",
    "size(",
    "SET",
    "REMOVE",
    "ADD",
    "DELETE",
    "+",
    "-",
    "if_not_exists(",
    "list_append(",
    "[",
    "]",
    ".",
    "0",
    "-1",
    "99999999999999999999",
    "'x'",
    "\"",
    "date",
    "#",
    ":",
];
const ENUMS: &[&str] = &[
    "ALL_OLD",
    "ALL_NEW",
    "UPDATED_OLD",
    "UPDATED_NEW",
    "NONE",
    "TOTAL",
    "INDEXES",
    "SIZE",
    "ALL_ATTRIBUTES",
    "ALL_PROJECTED_ATTRIBUTES",
    "COUNT",
    "SPECIFIC_ATTRIBUTES",
    "AND",
    "OR",
    "EQ",
    "BEGINS_WITH",
    "BETWEEN",
    "IN",
    "NULL",
    "NOT_NULL",
    "CONTAINS",
    "PAY_PER_REQUEST",
    "PROVISIONED",
    "TRIM_HORIZON",
    "LATEST",
    "AT_SEQUENCE_NUMBER",
    "AFTER_SEQUENCE_NUMBER",
    "bogus",
    "",
];

/// A table name: the fixture's most of the time.
fn table() -> impl Strategy<Value = String> {
    prop_oneof![6 => Just("tbl".to_owned()), 1 => pick(TABLES)]
}

fn pick(list: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(list).prop_map(str::to_owned)
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![4 => pick(NAMES), 1 => "[a-zA-Z#:.\\[\\]0-9]{0,12}"]
}

fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (-1_000_000i64..1_000_000).prop_map(|n| n.to_string()),
        1 => pick(&["0", "-0", "1e125", "1e126", "1E-130", "9.9999999999999999999999999999999999999E+125",
               "123456789012345678901234567890123456789", "0.1", "NaN", "", " 1", "1e", "-"]),
    ]
}

/// Base64 text: valid most of the time.
fn base64() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(&["", "AA==", "AQID", "YWJj", "/w==", "AAAAAAAA"][..]).prop_map(str::to_owned),
        1 => "[A-Za-z0-9+/=]{0,8}",
    ]
}

/// A DynamoDB attribute value, nested up to `depth` levels, sometimes malformed.
fn attr(depth: u32) -> impl Strategy<Value = Value> {
    let good = prop_oneof![
        "[ -~]{0,8}".prop_map(|s| json!({"S": s})),
        number_text().prop_map(|n| json!({"N": n})),
        base64().prop_map(|b| json!({"B": b})),
        any::<bool>().prop_map(|b| json!({"BOOL": b})),
        Just(json!({"NULL": true})),
        prop::collection::vec("[a-c]{0,2}", 0..4).prop_map(|v| json!({"SS": v})),
        prop::collection::vec(number_text(), 0..4).prop_map(|v| json!({"NS": v})),
        prop::collection::vec(base64(), 0..3).prop_map(|v| json!({"BS": v})),
    ];
    // Malformed: no type, two types, a wrong inner type, an unknown type, NULL false.
    let bad = prop::sample::select(vec![
        json!({}),
        json!({"S": "a", "N": "1"}),
        json!({"S": 1}),
        json!({"X": "1"}),
        json!("bare"),
        json!({"NULL": false}),
    ]);
    let leaf = prop_oneof![12 => good, 1 => bad];
    leaf.prop_recursive(depth, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| json!({"L": v})),
            prop::collection::btree_map(name(), inner, 0..4).prop_map(|m| json!({"M": m})),
        ]
    })
}

fn attr_map() -> impl Strategy<Value = Value> {
    prop::collection::btree_map(name(), attr(3), 0..5).prop_map(|m| json!(m))
}

/// A key of the fixture table most of the time, anything else otherwise.
fn key() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0..4u8, 0..14u8).prop_map(|(p, s)| json!({"pk": {"S": format!("p{p}")}, "sk": {"S": format!("s{s}")}})),
        1 => attr_map(),
    ]
}

fn item() -> impl Strategy<Value = Value> {
    (key(), attr_map()).prop_map(|(k, extra)| {
        let mut m = extra.as_object().cloned().unwrap_or_default();
        if let Some(k) = k.as_object() {
            m.extend(k.clone());
        }
        Value::Object(m)
    })
}

/// Well-formed expressions over the fixture's attributes and the placeholders `:v`, `:w`, `#n`.
const EXPRESSIONS: &[&str] = &[
    "attribute_exists(pk)",
    "attribute_not_exists(pk)",
    "n > :v",
    "n BETWEEN :v AND :w",
    "begins_with(sk, :v)",
    "contains(s, :v)",
    "size(a) > :v",
    "a[1].b = :v OR NOT n = :w",
    "pk = :v",
    "pk = :v AND sk > :w",
    "pk = :v AND begins_with(sk, :w)",
    "#n = :v",
    "n IN (:v, :w)",
    "SET a = :v",
    "SET n = n + :v",
    "SET #n = if_not_exists(#n, :v)",
    "SET a = list_append(a, :v)",
    "REMOVE s",
    "REMOVE a[0]",
    "ADD n :v",
    "ADD s :v",
    "DELETE s :v",
    "SET x = :v REMOVE s",
    "pk, sk",
    "a[0], a[1].b, #n",
    "n",
];

fn expression() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => pick(EXPRESSIONS).prop_map(Value::from),
        6 => prop::collection::vec(pick(TOKENS), 0..16).prop_map(|t| json!(t.join(" "))),
        1 => "[ -~]{0,40}".prop_map(Value::from),
        1 => Just(json!(5)),
    ]
}

fn small_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        "[ -~]{0,10}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            prop::collection::btree_map("[A-Za-z]{1,6}", inner, 0..3).prop_map(|m| json!(m)),
        ]
    })
}

fn integer() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-2i64..30).prop_map(Value::from),
        prop::sample::select(&[0i64, 1, 100, 101, 1_000_000, i64::MAX, i64::MIN][..]).prop_map(Value::from),
    ]
}

fn key_schema() -> impl Strategy<Value = Value> {
    prop::collection::vec((name(), pick(&["HASH", "RANGE", "OTHER"])), 0..4).prop_map(|v| {
        json!(v.into_iter().map(|(n, t)| json!({"AttributeName": n, "KeyType": t})).collect::<Vec<_>>())
    })
}

fn definitions() -> impl Strategy<Value = Value> {
    prop::collection::vec((name(), pick(&["S", "N", "B", "BOOL"])), 0..4).prop_map(|v| {
        json!(v.into_iter().map(|(n, t)| json!({"AttributeName": n, "AttributeType": t})).collect::<Vec<_>>())
    })
}

fn index_list() -> impl Strategy<Value = Value> {
    prop::collection::vec((pick(INDEXES), key_schema(), pick(&["ALL", "KEYS_ONLY", "INCLUDE", "X"])), 0..3)
        .prop_map(|v| {
            json!(v
                .into_iter()
                .map(|(n, k, p)| json!({"IndexName": n, "KeySchema": k, "Projection": {"ProjectionType": p}}))
                .collect::<Vec<_>>())
        })
}

/// One element of `TransactItems`.
fn transact_item() -> impl Strategy<Value = Value> {
    let action = pick(&["Put", "Update", "Delete", "ConditionCheck", "Get", "Bogus"]);
    (action, pick(TABLES), key(), item(), expression(), expression(), attr_map()).prop_map(
        |(action, table, key, item, update, condition, values)| {
            let body = match action.as_str() {
                "Put" => json!({"TableName": table, "Item": item, "ConditionExpression": condition}),
                "Update" => json!({"TableName": table, "Key": key, "UpdateExpression": update,
                                   "ExpressionAttributeValues": values}),
                "Get" => json!({"TableName": table, "Key": key}),
                _ => json!({"TableName": table, "Key": key, "ConditionExpression": condition}),
            };
            json!({ action: body })
        },
    )
}

fn request_items() -> impl Strategy<Value = Value> {
    let write = prop_oneof![
        item().prop_map(|i| json!({"PutRequest": {"Item": i}})),
        key().prop_map(|k| json!({"DeleteRequest": {"Key": k}})),
        Just(json!({})),
    ];
    prop_oneof![
        prop::collection::btree_map(pick(TABLES), prop::collection::vec(write, 0..30), 0..3)
            .prop_map(|m| json!(m)),
        prop::collection::btree_map(
            pick(TABLES),
            (prop::collection::vec(key(), 0..5), expression())
                .prop_map(|(keys, p)| json!({"Keys": keys, "ProjectionExpression": p})),
            0..3
        )
        .prop_map(|m| json!(m)),
    ]
}

/// A value for the member `member`, of the right shape most of the time.
fn member_value(member: &'static str, clean: bool) -> BoxedStrategy<Value> {
    let right: BoxedStrategy<Value> = match member {
        "TableName" => table().prop_map(Value::from).boxed(),
        "IndexName" => pick(INDEXES).prop_map(Value::from).boxed(),
        "Key" | "ExclusiveStartKey" => key().boxed(),
        "Item" => item().boxed(),
        "ExpressionAttributeValues" => {
            prop::collection::btree_map(pick(&[":v", ":w", ":x", "v"]), attr(2), 0..4)
                .prop_map(|m| json!(m))
                .boxed()
        }
        "ExpressionAttributeNames" => {
            prop::collection::btree_map(pick(&["#n", "#m", "n", "#"]), name(), 0..3)
                .prop_map(|m| json!(m))
                .boxed()
        }
        "KeyConditionExpression"
        | "FilterExpression"
        | "ConditionExpression"
        | "UpdateExpression"
        | "ProjectionExpression" => expression().boxed(),
        "AttributesToGet" => prop::collection::vec(name(), 0..4).prop_map(|v| json!(v)).boxed(),
        "Limit" | "Segment" | "TotalSegments" => integer().boxed(),
        "ConsistentRead" | "ScanIndexForward" => any::<bool>().prop_map(Value::from).boxed(),
        "RequestItems" => request_items().boxed(),
        "TransactItems" => prop::collection::vec(transact_item(), 0..5).prop_map(Value::from).boxed(),
        "KeySchema" => key_schema().boxed(),
        "AttributeDefinitions" => definitions().boxed(),
        "GlobalSecondaryIndexes" | "LocalSecondaryIndexes" => index_list().boxed(),
        "KeyConditions" | "QueryFilter" | "ScanFilter" | "Expected" => prop::collection::btree_map(
            name(),
            (pick(ENUMS), prop::collection::vec(attr(1), 0..3))
                .prop_map(|(op, list)| json!({"ComparisonOperator": op, "AttributeValueList": list})),
            0..3,
        )
        .prop_map(|m| json!(m))
        .boxed(),
        "ClientRequestToken" => "[ -~]{0,40}".prop_map(Value::from).boxed(),
        "StreamArn" | "ShardIterator" | "ResourceArn" => "[ -~]{0,60}".prop_map(Value::from).boxed(),
        _ => pick(ENUMS).prop_map(Value::from).boxed(),
    };
    if clean {
        return right;
    }
    prop_oneof![30 => right, 1 => small_json()].boxed()
}

const MEMBERS: &[&str] = &[
    "TableName",
    "IndexName",
    "Key",
    "Item",
    "ExclusiveStartKey",
    "ExpressionAttributeValues",
    "ExpressionAttributeNames",
    "KeyConditionExpression",
    "FilterExpression",
    "ConditionExpression",
    "UpdateExpression",
    "ProjectionExpression",
    "AttributesToGet",
    "Limit",
    "Segment",
    "TotalSegments",
    "ConsistentRead",
    "ScanIndexForward",
    "RequestItems",
    "TransactItems",
    "KeySchema",
    "AttributeDefinitions",
    "GlobalSecondaryIndexes",
    "LocalSecondaryIndexes",
    "KeyConditions",
    "QueryFilter",
    "ScanFilter",
    "Expected",
    "ClientRequestToken",
    "StreamArn",
    "ShardIterator",
    "ResourceArn",
    "ReturnValues",
    "ReturnConsumedCapacity",
    "ReturnItemCollectionMetrics",
    "Select",
    "ConditionalOperator",
    "BillingMode",
    "ShardIteratorType",
    "ReturnValuesOnConditionCheckFailure",
    "Unknown",
];

/// The members an operation reads, for the operations whose requests have many: a body for
/// them carries each of these with even odds, so that generated requests often get past
/// validation and reach the engine.
fn relevant(op: Operation) -> &'static [&'static str] {
    // The first member of each list is the one the operation requires.
    const READ: &[&str] = &["Key", "ProjectionExpression", "ExpressionAttributeNames", "ConsistentRead"];
    match op.name() {
        "GetItem" => READ,
        "PutItem" => &[
            "Item",
            "ConditionExpression",
            "ExpressionAttributeNames",
            "ExpressionAttributeValues",
            "ReturnValues",
        ],
        "UpdateItem" => &[
            "Key",
            "UpdateExpression",
            "ConditionExpression",
            "ExpressionAttributeNames",
            "ExpressionAttributeValues",
            "ReturnValues",
        ],
        "DeleteItem" => &["Key", "ConditionExpression", "ExpressionAttributeValues", "ReturnValues"],
        "Query" => &[
            "IndexName",
            "KeyConditionExpression",
            "FilterExpression",
            "ProjectionExpression",
            "ExpressionAttributeNames",
            "ExpressionAttributeValues",
            "Limit",
            "ScanIndexForward",
            "ExclusiveStartKey",
            "Select",
        ],
        "Scan" => &[
            "IndexName",
            "FilterExpression",
            "ProjectionExpression",
            "ExpressionAttributeValues",
            "Limit",
            "Segment",
            "TotalSegments",
            "ExclusiveStartKey",
            "Select",
        ],
        "BatchWriteItem" | "BatchGetItem" => &["RequestItems", "ReturnConsumedCapacity"],
        "TransactWriteItems" | "TransactGetItems" => {
            &["TransactItems", "ClientRequestToken", "ReturnConsumedCapacity"]
        }
        "CreateTable" => &[
            "KeySchema",
            "AttributeDefinitions",
            "GlobalSecondaryIndexes",
            "LocalSecondaryIndexes",
            "BillingMode",
        ],
        "UpdateTable" => &["AttributeDefinitions", "GlobalSecondaryIndexes", "BillingMode"],
        _ => &[],
    }
}

/// A request body for `op`: half of the time a clean one (the fixture table, members of the
/// operation's own of the right JSON shape), otherwise the table name most of the time, each
/// member the operation reads, and a few members of any operation.
fn body(op: Operation) -> impl Strategy<Value = Value> {
    prop_oneof![clean_body(op), messy_body(op)]
}

fn clean_body(op: Operation) -> impl Strategy<Value = Value> {
    let own: Vec<BoxedStrategy<Option<(&'static str, Value)>>> = relevant(op)
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let member = member_value(m, true).prop_map(move |v| (m, v));
            if i == 0 {
                member.prop_map(Some).boxed()
            } else {
                prop::option::weighted(0.2, member).boxed()
            }
        })
        .collect();
    own.prop_map(|own| {
        let mut object = Map::new();
        object.insert("TableName".into(), Value::from("tbl"));
        for (m, v) in own.into_iter().flatten() {
            object.insert(m.into(), v);
        }
        Value::Object(object)
    })
}

fn messy_body(op: Operation) -> impl Strategy<Value = Value> {
    let own: Vec<BoxedStrategy<Option<(&'static str, Value)>>> = relevant(op)
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let odds = if i == 0 { 0.9 } else { 0.4 };
            prop::option::weighted(odds, member_value(m, false).prop_map(move |v| (m, v))).boxed()
        })
        .collect();
    let others = prop::collection::vec(
        prop::sample::select(MEMBERS).prop_flat_map(|m| member_value(m, false).prop_map(move |v| (m, v))),
        0..2,
    );
    (prop::bool::weighted(0.9), table(), own, others).prop_map(|(with_table, table, own, others)| {
        let mut object = Map::new();
        if with_table {
            object.insert("TableName".into(), Value::from(table));
        }
        for (m, v) in own.into_iter().flatten().chain(others) {
            object.insert(m.into(), v);
        }
        Value::Object(object)
    })
}

/// Byte-level damage to a well-formed body: none most of the time.
#[derive(Debug, Clone)]
enum Damage {
    None,
    Truncate(prop::sample::Index),
    Replace(prop::sample::Index, u8),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        16 => Just(Damage::None),
        1 => any::<prop::sample::Index>().prop_map(Damage::Truncate),
        1 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Damage::Replace(i, b)),
    ]
}

fn apply(damage: &Damage, mut bytes: Vec<u8>) -> Vec<u8> {
    match damage {
        Damage::None => {}
        Damage::Truncate(at) if !bytes.is_empty() => bytes.truncate(at.index(bytes.len())),
        Damage::Replace(at, b) if !bytes.is_empty() => {
            let i = at.index(bytes.len());
            bytes[i] = *b;
        }
        _ => {}
    }
    bytes
}

/// How a body travels: its coding, and the page it comes from.
#[derive(Debug, Clone)]
struct Wire {
    coding: Coding,
    origin: Option<&'static str>,
}

#[derive(Debug, Clone)]
enum Coding {
    Identity,
    Gzip,
    Deflate,
    /// Compressed, then one compressed byte replaced.
    Corrupt(prop::sample::Index, u8),
    /// A coding DynamoDB does not know, sent over the plain body.
    Unknown,
}

fn wire() -> impl Strategy<Value = Wire> {
    let coding = prop_oneof![
        12 => Just(Coding::Identity),
        2 => Just(Coding::Gzip),
        2 => Just(Coding::Deflate),
        1 => (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Coding::Corrupt(i, b)),
        1 => Just(Coding::Unknown),
    ];
    let origin = prop_oneof![
        12 => Just(None),
        1 => Just(Some("http://localhost:3000")),
        1 => Just(Some(ALLOWED_ORIGIN)),
        2 => Just(Some("https://evil.example")),
    ];
    (coding, origin).prop_map(|(coding, origin)| Wire { coding, origin })
}

/// `bytes` as the wire sends them, with the `Content-Encoding` that says how.
fn encode(coding: &Coding, bytes: &[u8]) -> (Vec<u8>, Option<&'static str>) {
    let gzip = |bytes: &[u8]| {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        encoder.write_all(bytes).and_then(|()| encoder.finish()).expect("gzip into memory")
    };
    match coding {
        Coding::Identity => (bytes.to_vec(), None),
        Coding::Gzip => (gzip(bytes), Some("gzip")),
        Coding::Deflate => {
            let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            let compressed =
                encoder.write_all(bytes).and_then(|()| encoder.finish()).expect("zlib into memory");
            (compressed, Some("deflate"))
        }
        Coding::Corrupt(at, b) => {
            let mut compressed = gzip(bytes);
            let i = at.index(compressed.len());
            compressed[i] = *b;
            (compressed, Some("gzip"))
        }
        Coding::Unknown => (bytes.to_vec(), Some("br")),
    }
}

/// How the answers of a run were distributed: successes per operation and errors per type.
#[derive(Default)]
struct Tally {
    ok: std::collections::BTreeMap<&'static str, u32>,
    errors: std::collections::BTreeMap<String, u32>,
}

fn check_one(
    service: &Service,
    op: Operation,
    body: &Value,
    damage: &Damage,
    wire: &Wire,
    tally: &mut Tally,
) -> Result<(), TestCaseError> {
    let bytes = apply(damage, body.to_string().into_bytes());
    let (sent, coding) = encode(&wire.coding, &bytes);
    let mut headers = Vec::new();
    headers.extend(coding.map(|c| ("content-encoding", c)));
    headers.extend(wire.origin.map(|o| ("origin", o)));
    let target = format!("{}{}", op.target_prefix(), op.name());
    let started = thread_cpu();
    let (status, response) = handle_in_process_with(service, &target, &sent, &headers);
    let spent = thread_cpu() - started;
    let text = String::from_utf8_lossy(&response);
    if wire.origin == Some("https://evil.example") {
        prop_assert!(
            status == 403 && text.contains("AccessDeniedException"),
            "{target} from a foreign origin answered {status}: {text}"
        );
        return Ok(());
    }
    // DynamoDB answers a body it cannot decode with HTTP 500 (`encoding`); a damaged gzip
    // stream may still decode (a replaced byte in the header's unused fields).
    let undecodable = matches!(wire.coding, Coding::Unknown | Coding::Corrupt(..));
    prop_assert!(
        status < 500 || (undecodable && status == 500 && text.contains("could not be decoded")),
        "{target} answered {status} ({:?}): {text}\nrequest: {}",
        wire.coding,
        String::from_utf8_lossy(&bytes)
    );
    if status == 500 {
        *tally.errors.entry("undecodable body".to_owned()).or_default() += 1;
        return Ok(());
    }
    let parsed: Value = serde_json::from_slice(&response)
        .map_err(|e| TestCaseError::fail(format!("{target}: response is not JSON ({e}): {text}")))?;
    if status == 200 {
        *tally.ok.entry(op.name()).or_default() += 1;
    } else {
        let kind = parsed["__type"].as_str().unwrap_or_default();
        prop_assert!(kind.contains('#'), "{target}: error without a namespaced __type: {text}");
        let short = kind.rsplit('#').next().unwrap_or(kind).to_owned();
        if std::env::var_os("MONOTABLE_FUZZ_SHOW").is_some() && short != "ResourceNotFoundException" {
            eprintln!(
                "{}: {kind} {}",
                op.name(),
                parsed["message"].as_str().or(parsed["Message"].as_str()).unwrap_or_default()
            );
        }
        *tally.errors.entry(short).or_default() += 1;
    }
    let budget = BASE_BUDGET + PER_BYTE_BUDGET * bytes.len() as u32;
    prop_assert!(spent <= budget, "{target}: {spent:?} of CPU for {} bytes (budget {budget:?})", bytes.len());
    Ok(())
}

#[test]
fn no_request_body_makes_any_operation_panic_fail_or_stall() {
    let cases = std::env::var("MONOTABLE_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4_000);
    let mut runner = TestRunner::new(Config { cases, failure_persistence: None, ..Config::default() });
    // Half the cases go to the data plane, where requests carry the most structure.
    let data_plane: Vec<Operation> =
        Operation::ALL.iter().copied().filter(|&op| !relevant(op).is_empty()).collect();
    let operation = prop_oneof![prop::sample::select(data_plane), prop::sample::select(Operation::ALL)];
    let strategy = operation.prop_flat_map(|op| (Just(op), body(op), damage(), wire()));
    // One fixture for a run of cases: requests change it (that is part of the fuzzing), and a
    // new one is made every 50 cases so that a deleted table does not end the coverage.
    let fixture_cell = std::cell::RefCell::new((fixture(), 0u32, Tally::default()));
    let result = runner.run(&strategy, |(op, body, damage, wire)| {
        let mut guard = fixture_cell.borrow_mut();
        let cell = &mut *guard;
        cell.1 += 1;
        if cell.1 % 50 == 0 {
            cell.0 = fixture();
        }
        check_one(&cell.0, op, &body, &damage, &wire, &mut cell.2)
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    // The generator must reach the engine, not only the validators: a fair share of cases
    // succeeds, over many operations, and every one of these common error types occurs.
    let (_, _, tally) = fixture_cell.into_inner();
    let succeeded: u32 = tally.ok.values().sum();
    eprintln!("succeeded: {succeeded} of {cases} {:?}\nerrors: {:?}", tally.ok, tally.errors);
    assert!(succeeded * 20 >= cases, "fewer than 5% of the cases succeeded: {:?}", tally.ok);
    assert!(tally.ok.len() >= 10, "successes reached only {:?}", tally.ok.keys());
    for kind in
        ["ValidationException", "ResourceNotFoundException", "SerializationException", "undecodable body"]
    {
        assert!(tally.errors.contains_key(kind), "no {kind} in {:?}", tally.errors);
    }
}
