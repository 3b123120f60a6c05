//! Hostile requests sent during a run (`--attack SHAPE`): one extra connection sends the
//! shape in a loop for the whole measured phase while the workload's connections measure as
//! usual, so the report shows what a heavy or hostile client costs everyone else.
//!
//! The shapes are the ones that once stalled `monotable serve` for seconds:
//! well-formed bodies far below DynamoDB's 16 MB request limit whose handling was quadratic.
//! Some are valid requests (a large set, a wide item), some are refused by validation after
//! the whole body has been read (unused placeholders); both count, since a server spends its
//! time either way. Their own latencies are reported whatever the answer's status.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use hdrhistogram::Histogram;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::conn::{Conn, RequestSigner};
use crate::endpoint::Endpoint;
use crate::report::Latency;
use crate::workload::{OpKind, PreparedOp};

/// A hostile request shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Attack {
    /// PutItem of one item holding a string set of 40,000 distinct values (0.39 MB).
    StringSet40k,
    /// PutItem of one item holding a string set of 80,000 distinct values (0.79 MB).
    StringSet80k,
    /// Scan with one unused `ExpressionAttributeValues` entry: a set of 80,000 members.
    UnusedValues80k,
    /// GetItem with 80,000 distinct `AttributesToGet`.
    AttributesToGet80k,
    /// GetItem with 100,000 `ExpressionAttributeNames`, one of them used.
    Names100k,
    /// PutItem of an item with as many attributes as fit in 400 KB (45,000).
    WideItem,
}

impl Attack {
    /// Every shape, in report order.
    pub const ALL: [Attack; 6] = [
        Attack::StringSet40k,
        Attack::StringSet80k,
        Attack::UnusedValues80k,
        Attack::AttributesToGet80k,
        Attack::Names100k,
        Attack::WideItem,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Attack::StringSet40k => "string-set-40k",
            Attack::StringSet80k => "string-set-80k",
            Attack::UnusedValues80k => "unused-values-80k",
            Attack::AttributesToGet80k => "attributes-to-get-80k",
            Attack::Names100k => "names-100k",
            Attack::WideItem => "wide-item",
        }
    }

    /// The request this shape sends against `table` (whose keys are `pk`/`sk`, both strings).
    pub(crate) fn request(self, table: &str) -> PreparedOp {
        let key = json!({"pk": {"S": "attack"}, "sk": {"S": "attack"}});
        // Seven-digit members: 40,000 of them make a 0.39 MB body, the smaller recorded stall.
        let strings = |n: usize| (0..n).map(|i| Value::from(format!("{i:07}"))).collect::<Vec<_>>();
        let string_set_item = |n: usize| json!({"TableName": table, "Item": {"pk": {"S": "attack"}, "sk": {"S": "attack"}, "s": {"SS": strings(n)}}});
        match self {
            Attack::StringSet40k => PreparedOp::new(OpKind::Put, &string_set_item(40_000)),
            Attack::StringSet80k => PreparedOp::new(OpKind::Put, &string_set_item(80_000)),
            Attack::UnusedValues80k => PreparedOp::new(
                OpKind::Scan,
                &json!({"TableName": table, "Limit": 1, "FilterExpression": "attribute_exists(pk)",
                        "ExpressionAttributeValues": {":unused": {"SS": strings(80_000)}}}),
            ),
            Attack::AttributesToGet80k => PreparedOp::new(
                OpKind::Get,
                &json!({"TableName": table, "Key": key,
                        "AttributesToGet": (0..80_000).map(|i| format!("a{i}")).collect::<Vec<_>>()}),
            ),
            Attack::Names100k => {
                let names: Map<String, Value> =
                    (0..100_000).map(|i| (format!("#n{i}"), Value::from(format!("a{i}")))).collect();
                PreparedOp::new(
                    OpKind::Get,
                    &json!({"TableName": table, "Key": key, "ProjectionExpression": "#n0",
                            "ExpressionAttributeNames": names}),
                )
            }
            Attack::WideItem => {
                // Each attribute `aNNNNN` = {"N":"1"} costs 6 + 2 bytes of item size: 45,000
                // of them (360 KB) stay below 400 KB with the key.
                let mut item: Map<String, Value> =
                    (0..45_000).map(|i| (format!("a{i:05}"), json!({"N": "1"}))).collect();
                item.insert("pk".into(), json!({"S": "attack"}));
                item.insert("sk".into(), json!({"S": "wide"}));
                PreparedOp::new(OpKind::Put, &json!({"TableName": table, "Item": item}))
            }
        }
    }
}

impl fmt::Display for Attack {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Attack {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Attack::ALL.into_iter().find(|a| a.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Attack::ALL.iter().map(|a| a.name()).collect();
            format!("unknown attack {s:?}: expected one of {}", names.join(", "))
        })
    }
}

/// What the attacking connection did during the measured phase.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackReport {
    pub shape: String,
    /// Size of the request body, in bytes.
    pub body_bytes: usize,
    /// Requests answered (any status).
    pub requests: u64,
    /// Answers by HTTP status.
    pub statuses: BTreeMap<u16, u64>,
    /// Transport failures (the connection is re-opened after each).
    pub transport_errors: u64,
    /// Latency of every answered request, whatever its status.
    pub latency_us: Latency,
}

/// Sends `attack` in a loop on its own connection until `done` is set.
pub(crate) async fn attack_loop(
    attack: Attack,
    endpoint: Endpoint,
    mut signer: RequestSigner,
    table: String,
    done: Arc<AtomicBool>,
) -> AttackReport {
    let op = attack.request(&table);
    #[allow(clippy::expect_used)] // constant bounds that satisfy hdrhistogram's rules
    let mut histogram =
        Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("constant histogram bounds are valid");
    let mut report = AttackReport {
        shape: attack.name().into(),
        body_bytes: op.body.len(),
        requests: 0,
        statuses: BTreeMap::new(),
        transport_errors: 0,
        latency_us: Latency::default(),
    };
    let mut conn: Option<Conn> = None;
    while !done.load(Ordering::Relaxed) {
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match Conn::connect(endpoint.addr).await {
                Ok(c) => conn.insert(c),
                Err(_) => {
                    report.transport_errors += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let started = Instant::now();
        let result = match signer.request(op.kind.target(), &op.body, &op.body_hash) {
            Ok(request) => c.send(request).await,
            Err(e) => Err(e),
        };
        match result {
            Ok(response) => {
                histogram.saturating_record(started.elapsed().as_nanos().min(u64::MAX as u128) as u64);
                report.requests += 1;
                *report.statuses.entry(response.status).or_insert(0) += 1;
            }
            Err(_) => {
                report.transport_errors += 1;
                conn = None;
            }
        }
    }
    report.latency_us = Latency::from_nanos(&histogram);
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shape_parses_from_its_name() {
        for a in Attack::ALL {
            assert_eq!(a.name().parse::<Attack>(), Ok(a));
        }
        assert!("nope".parse::<Attack>().unwrap_err().contains("string-set-80k"));
    }

    #[test]
    fn shapes_have_the_sizes_of_the_recorded_stalls() {
        let size = |a: Attack| a.request("monotable-bench").body.len();
        // bench/results/2026-12-04-20b7f79-hostile-input.md: 0.39 and 0.79 MB for 40k and 80k members.
        assert!((380_000..420_000).contains(&size(Attack::StringSet40k)), "{}", size(Attack::StringSet40k));
        assert!((760_000..840_000).contains(&size(Attack::StringSet80k)), "{}", size(Attack::StringSet80k));
        assert!(size(Attack::UnusedValues80k) > 700_000);
        assert!(size(Attack::AttributesToGet80k) > 600_000);
        assert!(size(Attack::Names100k) > 1_500_000);
        // Everything stays below the server's 16 MiB request limit.
        assert!(Attack::ALL.iter().all(|&a| size(a) < 16 * 1024 * 1024));
    }

    #[test]
    fn the_wide_item_fits_in_400_kb() {
        let op = Attack::WideItem.request("t");
        let body: Value = serde_json::from_slice(&op.body).unwrap();
        let item = body["Item"].as_object().unwrap();
        // DynamoDB's item size: name bytes plus value bytes (a number of one digit: 2 bytes).
        let size: usize =
            item.iter().map(|(k, v)| k.len() + v.get("S").and_then(Value::as_str).map_or(2, str::len)).sum();
        assert!(size < 400 * 1024 && size > 300 * 1024, "{size}");
    }
}
