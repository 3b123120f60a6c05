//! Test support: `monotable serve` instances on 127.0.0.1:0 in process, tables filled
//! through the engine, and the engine's own view of a table as sorted export lines.

#![allow(dead_code)]

use std::net::SocketAddr;

use monotable_engine::{Engine, ScanInput};
use monotable_server::Service;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A running server over an in-memory engine; dropping it stops the server.
pub struct Serve {
    pub engine: Engine,
    pub addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Serve {
    pub async fn start() -> Serve {
        let engine = Engine::new();
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local address");
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(monotable_server::serve(listener, Service::new(engine.clone()), async move {
            let _ = stopped.await;
        }));
        Serve { engine, addr, _stop: stop }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Creates `table` (pk S, sk N, one GSI on `name`).
    pub fn create_table(&self, table: &str) {
        let input = serde_json::from_value(json!({
            "TableName": table,
            "AttributeDefinitions": [
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "N"},
                {"AttributeName": "name", "AttributeType": "S"}
            ],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "GlobalSecondaryIndexes": [{
                "IndexName": "byName",
                "KeySchema": [{"AttributeName": "name", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}
            }],
            "BillingMode": "PAY_PER_REQUEST"
        }))
        .expect("CreateTable input");
        self.engine.create_table(input).expect("CreateTable");
    }

    /// Puts items `range` of [`item`] into `table` through the engine.
    pub fn fill(&self, table: &str, range: std::ops::Range<u64>) {
        let ids: Vec<u64> = range.collect();
        for chunk in ids.chunks(25) {
            let requests: Vec<Value> =
                chunk.iter().map(|i| json!({"PutRequest": {"Item": item(*i, 0)}})).collect();
            let input = serde_json::from_value(json!({"RequestItems": {table: requests}}))
                .expect("BatchWriteItem input");
            let out = self.engine.batch_write_item(input).expect("BatchWriteItem");
            assert!(out.unprocessed_items.unwrap_or_default().is_empty());
        }
    }

    /// Every item of `table`, as sorted export lines (`{"Item":{...}}`), read by the engine.
    pub fn lines(&self, table: &str) -> Vec<String> {
        let mut lines = Vec::new();
        let mut start = None;
        loop {
            let page = self
                .engine
                .scan(ScanInput {
                    table_name: Some(table.to_owned()),
                    exclusive_start_key: start,
                    consistent_read: Some(true),
                    ..ScanInput::default()
                })
                .expect("Scan");
            for item in page.items.unwrap_or_default() {
                lines.push(serde_json::to_string(&json!({"Item": item})).expect("line"));
            }
            start = page.last_evaluated_key;
            if start.is_none() {
                break;
            }
        }
        lines.sort();
        lines
    }
}

/// Item `i` (version `v`): every attribute type DynamoDB has.
pub fn item(i: u64, v: u64) -> Value {
    json!({
        "pk": {"S": format!("p{}", i / 10)},
        "sk": {"N": (i % 10).to_string()},
        "name": {"S": format!("name-{}", i % 97)},
        "n": {"N": format!("{}.5", i * 3 + v)},
        "tags": {"SS": ["a", format!("t{}", i % 7)]},
        "nums": {"NS": ["1", format!("{}", i + 2)]},
        "bin": {"B": "AAECAw=="},
        "bins": {"BS": ["AQ==", "Ag=="]},
        "flag": {"BOOL": i.is_multiple_of(2)},
        "nothing": {"NULL": true},
        "list": {"L": [{"S": "x"}, {"N": v.to_string()}]},
        "map": {"M": {"nested": {"M": {"deep": {"S": format!("d{i}")}}}, "version": {"N": v.to_string()}}}
    })
}

/// The lines of an export file, sorted (gunzipped when the name ends in `.gz`).
pub fn file_lines(path: &std::path::Path) -> Vec<String> {
    use std::io::Read;
    let mut text = String::new();
    let file = std::fs::File::open(path).expect("export file");
    if path.extension().is_some_and(|e| e == "gz") {
        flate2_read(file, &mut text);
    } else {
        std::io::BufReader::new(file).read_to_string(&mut text).expect("read export");
    }
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

fn flate2_read(file: std::fs::File, text: &mut String) {
    use std::io::Read;
    flate2::read::GzDecoder::new(file).read_to_string(text).expect("gunzip export");
}

/// A content digest of sorted lines (FNV-1a over the bytes), for messages.
pub fn digest(lines: &[String]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in lines.iter().flat_map(|l| l.bytes().chain(std::iter::once(b'\n'))) {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    h
}
