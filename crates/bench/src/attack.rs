//! Hostile requests sent during a run (`--attack SHAPE`): one extra connection sends the
//! shape in a loop for the whole measured phase while the workload's connections measure as
//! usual, so the report shows what a heavy or hostile client costs everyone else.
//!
//! The shapes are the ones that once stalled `monotable serve` for seconds:
//! well-formed bodies far below DynamoDB's 16 MB request limit whose handling was quadratic.
//! Some are valid requests (a large set, a wide item), some are refused by validation after
//! the whole body has been read (unused placeholders); both count, since a server spends its
//! time either way. Their own latencies are reported whatever the answer's status.
//!
//! The later shapes are the ways a client could still hurt the others once those were fixed:
//! bodies held or trickled on many connections (`hostile`), a small gzip body that inflates
//! to 16 MiB, a web page's cross-origin request, a condition that is cheap to send and dear to
//! evaluate, and a Query over deleted items (which costs the most on a data directory). Beside
//! every shape a probe opens a new connection every 100 ms (`hostile::new_connections`).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use hdrhistogram::Histogram;
use http::header::{HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::conn::{Conn, RequestSigner};
use crate::endpoint::Endpoint;
use crate::hostile::{self, Shape};
use crate::report::Latency;
use crate::sigv4::payload_hash;
use crate::workload::{OpKind, PreparedOp};
use crate::BenchError;

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
    /// 40 connections each sending all but one byte of a 16 MiB body and holding it.
    HeldBodies,
    /// 500 connections each trickling a 1 MiB body at one byte a second.
    SlowBodies,
    /// Ten connections sending a 17 KB gzip PutItem body that inflates past 16 MiB.
    GzipBomb,
    /// A Scan with `Origin: https://evil.example`, as a web page's script sends it.
    CrossOrigin,
    /// Twenty connections sending a DeleteItem whose condition calls `contains` 150 times on
    /// a list of 40,000 numbers (put before the run), never true.
    CostlyCondition,
    /// A Query of a partition whose 20,000 items were deleted before the run.
    Tombstones,
}

impl Attack {
    /// Every shape, in report order.
    pub const ALL: [Attack; 12] = [
        Attack::StringSet40k,
        Attack::StringSet80k,
        Attack::UnusedValues80k,
        Attack::AttributesToGet80k,
        Attack::Names100k,
        Attack::WideItem,
        Attack::HeldBodies,
        Attack::SlowBodies,
        Attack::GzipBomb,
        Attack::CrossOrigin,
        Attack::CostlyCondition,
        Attack::Tombstones,
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
            Attack::HeldBodies => "held-bodies",
            Attack::SlowBodies => "slow-bodies",
            Attack::GzipBomb => "gzip-bomb",
            Attack::CrossOrigin => "cross-origin",
            Attack::CostlyCondition => "costly-condition",
            Attack::Tombstones => "tombstones",
        }
    }

    /// The transport attack this shape is, if it is one (it then sends no requests).
    fn transport(self) -> Option<Shape> {
        match self {
            Attack::HeldBodies => Some(Shape::Held { connections: 40 }),
            Attack::SlowBodies => {
                Some(Shape::Slow { connections: 500, every: std::time::Duration::from_secs(1) })
            }
            _ => None,
        }
    }

    /// How many connections send the request at once.
    fn connections(self) -> usize {
        match self {
            Attack::GzipBomb => 10,
            Attack::CostlyCondition => 20,
            _ => 1,
        }
    }

    /// A header the request carries beside the signed ones.
    fn extra_header(self) -> Option<(HeaderName, HeaderValue)> {
        match self {
            Attack::GzipBomb => Some((http::header::CONTENT_ENCODING, HeaderValue::from_static("gzip"))),
            Attack::CrossOrigin => {
                Some((http::header::ORIGIN, HeaderValue::from_static("https://evil.example")))
            }
            _ => None,
        }
    }

    /// Requests sent once, before the measured phase, to make what the shape needs.
    pub(crate) fn setup(self, table: &str) -> Vec<PreparedOp> {
        match self {
            Attack::CostlyCondition => {
                let list: Vec<Value> = (0..COSTLY_LIST).map(|i| json!({"N": i.to_string()})).collect();
                let item = json!({"pk": {"S": "attack"}, "sk": {"S": "costly"}, "l": {"L": list}});
                vec![PreparedOp::new(OpKind::Put, &json!({"TableName": table, "Item": item}))]
            }
            Attack::Tombstones => {
                let batch = |requests: Vec<Value>| {
                    PreparedOp::new(OpKind::BatchWrite, &json!({"RequestItems": {table: requests}}))
                };
                let key = |i: usize| json!({"pk": {"S": "tombstones"}, "sk": {"S": format!("{i:06}")}});
                let chunks = (0..TOMBSTONES).step_by(25).map(|start| start..(start + 25).min(TOMBSTONES));
                let puts = chunks
                    .clone()
                    .map(|c| batch(c.map(|i| json!({"PutRequest": {"Item": key(i)}})).collect()));
                let deletes =
                    chunks.map(|c| batch(c.map(|i| json!({"DeleteRequest": {"Key": key(i)}})).collect()));
                puts.chain(deletes).collect()
            }
            _ => Vec::new(),
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
            Attack::GzipBomb => {
                use std::io::Write;
                let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
                let head = format!(
                    r#"{{"TableName":"{table}","Item":{{"pk":{{"S":"attack"}},"sk":{{"S":"bomb"}},"s":{{"S":""#
                );
                // Writes to a Vec cannot fail.
                let _ = encoder.write_all(head.as_bytes());
                let _ = encoder.write_all(&vec![b'x'; 17 << 20]);
                let body = Bytes::from(encoder.finish().unwrap_or_default());
                let body_hash = payload_hash(&body);
                PreparedOp { kind: OpKind::Put, body, body_hash }
            }
            Attack::CrossOrigin => PreparedOp::new(OpKind::Scan, &json!({"TableName": table, "Limit": 1})),
            Attack::CostlyCondition => {
                let condition = vec!["contains(l, :v)"; 150].join(" OR ");
                PreparedOp::new(
                    OpKind::Delete,
                    &json!({"TableName": table, "Key": {"pk": {"S": "attack"}, "sk": {"S": "costly"}},
                            "ConditionExpression": condition, "ExpressionAttributeValues": {":v": {"N": "-1"}}}),
                )
            }
            Attack::Tombstones => PreparedOp::new(
                OpKind::Query,
                &json!({"TableName": table, "KeyConditionExpression": "pk = :p",
                        "ExpressionAttributeValues": {":p": {"S": "tombstones"}}}),
            ),
            // Transport shapes send no request; this one is never sent.
            Attack::HeldBodies | Attack::SlowBodies => PreparedOp::new(OpKind::ListTables, &json!({})),
        }
    }
}

/// The list `costly-condition` searches: 40,000 numbers, as in the recorded stall.
const COSTLY_LIST: usize = 40_000;

/// The deleted items `tombstones` Queries over.
const TOMBSTONES: usize = 20_000;

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
    /// New connections opened beside the attack, one every 100 ms, each answering `GET /`.
    pub new_connections: NewConnections,
}

impl AttackReport {
    /// A report of `attack` with bodies of `body_bytes` and nothing counted yet.
    fn empty(attack: Attack, body_bytes: usize) -> AttackReport {
        AttackReport {
            shape: attack.name().into(),
            body_bytes,
            requests: 0,
            statuses: BTreeMap::new(),
            transport_errors: 0,
            latency_us: Latency::default(),
            new_connections: NewConnections::default(),
        }
    }
}

/// What a client opening a new connection during the attack waited for.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NewConnections {
    pub answered: u64,
    /// Connections refused, closed or not answered within 10 s.
    pub failed: u64,
    /// From connect to the status line of `GET /`.
    pub latency_us: Latency,
}

/// Sends `attack`'s setup requests (before the measured phase); fails on any answer but 200.
pub(crate) async fn prepare(
    attack: Attack,
    endpoint: &Endpoint,
    signer: &mut RequestSigner,
    table: &str,
) -> Result<(), BenchError> {
    let ops = attack.setup(table);
    if ops.is_empty() {
        return Ok(());
    }
    let mut conn = Conn::connect(endpoint.addr).await?;
    for op in ops {
        let response = conn.send(signer.request(op.kind.target(), &op.body, &op.body_hash)?).await?;
        if response.status != 200 {
            return Err(BenchError::SetupRequest {
                operation: op.kind.target(),
                status: response.status,
                body: String::from_utf8_lossy(&response.body).into_owned(),
            });
        }
    }
    Ok(())
}

/// Runs `attack` until `done` is set, with the probe of new connections beside it. Fails
/// when the attacker's runtime cannot be built or its task panics: nothing was measured.
pub(crate) async fn attack_loop(
    attack: Attack,
    endpoint: Endpoint,
    signer: RequestSigner,
    table: String,
    done: Arc<AtomicBool>,
) -> Result<AttackReport, BenchError> {
    let probe = tokio::spawn(hostile::new_connections(
        endpoint.addr,
        std::time::Duration::from_millis(100),
        done.clone(),
    ));
    // The attacker is another client: it runs on a runtime and thread of its own, so that its
    // work (writing forty 16 MiB bodies, say) delays the server, not the measuring connections.
    let attacker = tokio::task::spawn_blocking(move || {
        let runtime = crate::run::runtime(1)?;
        Ok::<_, BenchError>(runtime.block_on(attack_only(attack, endpoint, signer, table, done)))
    });
    let mut report = attacker.await.map_err(|e| BenchError::Task(e.to_string()))??;
    if let Ok((h, failed)) = probe.await {
        report.new_connections =
            NewConnections { answered: h.len(), failed, latency_us: Latency::from_nanos(&h) };
    }
    Ok(report)
}

/// The attack itself, until `done` is set.
async fn attack_only(
    attack: Attack,
    endpoint: Endpoint,
    signer: RequestSigner,
    table: String,
    done: Arc<AtomicBool>,
) -> AttackReport {
    match attack.transport() {
        Some(shape) => {
            let rounds = hostile::run(shape, endpoint.addr, done).await;
            AttackReport {
                requests: rounds.opened,
                transport_errors: rounds.closed_by_server,
                ..AttackReport::empty(attack, hostile::declared_bytes(shape))
            }
        }
        None => {
            let op = Arc::new(attack.request(&table));
            let loops: Vec<_> = (0..attack.connections())
                .map(|_| {
                    tokio::spawn(request_loop(
                        attack,
                        op.clone(),
                        endpoint.clone(),
                        signer.sharing(),
                        done.clone(),
                    ))
                })
                .collect();
            let mut histogram = histogram();
            let mut report = AttackReport::empty(attack, op.body.len());
            for task in loops {
                let Ok((h, part)) = task.await else { continue };
                // Both histograms share bounds, so adding cannot overflow them.
                let _ = histogram.add(&h);
                report.requests += part.requests;
                report.transport_errors += part.transport_errors;
                for (status, n) in part.statuses {
                    *report.statuses.entry(status).or_insert(0) += n;
                }
            }
            report.latency_us = Latency::from_nanos(&histogram);
            report
        }
    }
}

fn histogram() -> Histogram<u64> {
    #[allow(clippy::expect_used)] // constant bounds that satisfy hdrhistogram's rules
    Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).expect("constant histogram bounds are valid")
}

/// What one connection of a request shape did.
#[derive(Default)]
struct Part {
    requests: u64,
    statuses: BTreeMap<u16, u64>,
    transport_errors: u64,
}

/// Sends `op` in a loop on its own connection until `done` is set.
async fn request_loop(
    attack: Attack,
    op: Arc<PreparedOp>,
    endpoint: Endpoint,
    mut signer: RequestSigner,
    done: Arc<AtomicBool>,
) -> (Histogram<u64>, Part) {
    let mut histogram = histogram();
    let mut part = Part::default();
    let mut conn: Option<Conn> = None;
    while !done.load(Ordering::Relaxed) {
        let c = match conn.as_mut() {
            Some(c) => c,
            None => match Conn::connect(endpoint.addr).await {
                Ok(c) => conn.insert(c),
                Err(_) => {
                    part.transport_errors += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            },
        };
        let started = Instant::now();
        let result = match signer.request(op.kind.target(), &op.body, &op.body_hash) {
            Ok(mut request) => {
                if let Some((name, value)) = attack.extra_header() {
                    request.headers_mut().insert(name, value);
                }
                c.send(request).await
            }
            Err(e) => Err(e),
        };
        match result {
            Ok(response) => {
                histogram.saturating_record(started.elapsed().as_nanos().min(u64::MAX as u128) as u64);
                part.requests += 1;
                *part.statuses.entry(response.status).or_insert(0) += 1;
            }
            Err(_) => {
                part.transport_errors += 1;
                conn = None;
            }
        }
    }
    (histogram, part)
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
        // The issue's recorded shapes: a bomb of about 16 KB; a condition far below 4 KB.
        assert!((10_000..40_000).contains(&size(Attack::GzipBomb)), "{}", size(Attack::GzipBomb));
        assert!(size(Attack::CostlyCondition) < 4096);
    }

    #[test]
    fn the_gzip_bomb_inflates_past_16_mib_and_the_setups_make_what_their_shapes_read() {
        use std::io::Read;
        let op = Attack::GzipBomb.request("t");
        let mut inflated = Vec::new();
        flate2::read::GzDecoder::new(&op.body[..]).read_to_end(&mut inflated).unwrap();
        assert!(inflated.len() > 16 << 20 && inflated.starts_with(br#"{"TableName":"t""#));
        assert_eq!(Attack::Tombstones.setup("t").len(), 2 * TOMBSTONES / 25);
        assert_eq!(Attack::CostlyCondition.setup("t").len(), 1);
        assert!(Attack::WideItem.setup("t").is_empty());
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
