//! Creating the benchmark table and loading its items before the measured phase.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::conn::{error_kind, Conn, RequestSigner, Response};
use crate::endpoint::Endpoint;
use crate::workload::DataModel;
use crate::{BenchError, SigningConfig};

const TARGET_PREFIX: &str = "DynamoDB_20120810.";

/// How long table state changes may take before setup gives up.
const TABLE_WAIT: Duration = Duration::from_secs(60);

/// Retries of one `BatchWriteItem` whose items come back unprocessed.
const MAX_BATCH_RETRIES: u32 = 20;

/// What the setup phase did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SetupReport {
    pub items_loaded: u64,
    pub load_secs: f64,
}

const CREATE_TABLE: &str = "DynamoDB_20120810.CreateTable";
const DELETE_TABLE: &str = "DynamoDB_20120810.DeleteTable";
const DESCRIBE_TABLE: &str = "DynamoDB_20120810.DescribeTable";
const BATCH_WRITE_ITEM: &str = "DynamoDB_20120810.BatchWriteItem";

fn refused(target: &'static str, response: &Response) -> BenchError {
    BenchError::SetupRequest {
        operation: target.strip_prefix(TARGET_PREFIX).unwrap_or(target),
        status: response.status,
        body: String::from_utf8_lossy(&response.body).chars().take(500).collect(),
    }
}

/// The table's status, or `None` when it does not exist.
async fn table_status(
    conn: &mut Conn,
    signer: &mut RequestSigner,
    model: &DataModel,
) -> Result<Option<String>, BenchError> {
    let response = conn.call(signer, DESCRIBE_TABLE, &model.table_name_body()).await?;
    if response.status == 200 {
        let v: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
        // Emulators that omit TableStatus are treated as ACTIVE.
        let status = v["Table"]["TableStatus"].as_str().unwrap_or("ACTIVE").to_owned();
        return Ok(Some(status));
    }
    if error_kind(response.status, &response.body) == "ResourceNotFoundException" {
        return Ok(None);
    }
    Err(refused(DESCRIBE_TABLE, &response))
}

/// Polls until `done(status)` holds, at most [`TABLE_WAIT`].
async fn wait_for(
    conn: &mut Conn,
    signer: &mut RequestSigner,
    model: &DataModel,
    what: &str,
    done: impl Fn(Option<&str>) -> bool,
) -> Result<(), BenchError> {
    let start = Instant::now();
    loop {
        let status = table_status(conn, signer, model).await?;
        if done(status.as_deref()) {
            return Ok(());
        }
        if start.elapsed() > TABLE_WAIT {
            return Err(BenchError::Timeout(TABLE_WAIT, format!("table {} to be {what}", model.table)));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Drops any previous table of the same name and creates a fresh one, waiting until ACTIVE.
pub(crate) async fn recreate_table(
    endpoint: &Endpoint,
    signing: &SigningConfig,
    model: &DataModel,
) -> Result<(), BenchError> {
    let mut conn = Conn::connect(endpoint.addr).await?;
    let mut signer = RequestSigner::new(endpoint, signing)?;
    if table_status(&mut conn, &mut signer, model).await?.is_some() {
        wait_for(&mut conn, &mut signer, model, "deletable", |s| s != Some("CREATING")).await?;
        let response = conn.call(&mut signer, DELETE_TABLE, &model.table_name_body()).await?;
        if response.status != 200
            && error_kind(response.status, &response.body) != "ResourceNotFoundException"
        {
            return Err(refused(DELETE_TABLE, &response));
        }
        wait_for(&mut conn, &mut signer, model, "deleted", |s| s.is_none()).await?;
    }
    let response = conn.call(&mut signer, CREATE_TABLE, &model.create_table_body()).await?;
    if response.status != 200 {
        return Err(refused(CREATE_TABLE, &response));
    }
    wait_for(&mut conn, &mut signer, model, "ACTIVE", |s| s == Some("ACTIVE")).await
}

/// Writes one batch, re-sending unprocessed items with a growing pause.
async fn write_batch(conn: &mut Conn, signer: &mut RequestSigner, body: &Value) -> Result<(), BenchError> {
    let mut body = body.clone();
    for attempt in 0..=MAX_BATCH_RETRIES {
        let response = conn.call(signer, BATCH_WRITE_ITEM, &body).await?;
        if response.status != 200 {
            let kind = error_kind(response.status, &response.body);
            let retryable =
                kind.contains("Throughput") || kind.contains("Throttling") || response.status >= 500;
            if retryable && attempt < MAX_BATCH_RETRIES {
                tokio::time::sleep(Duration::from_millis(5 << attempt.min(6))).await;
                continue;
            }
            return Err(refused(BATCH_WRITE_ITEM, &response));
        }
        let v: Value = serde_json::from_slice(&response.body).unwrap_or(Value::Null);
        match v.get("UnprocessedItems") {
            Some(Value::Object(m)) if !m.is_empty() => {
                body = serde_json::json!({ "RequestItems": Value::Object(m.clone()) });
                tokio::time::sleep(Duration::from_millis(5 << attempt.min(6))).await;
            }
            _ => return Ok(()),
        }
    }
    Err(BenchError::Timeout(Duration::ZERO, format!("unprocessed items after {MAX_BATCH_RETRIES} retries")))
}

/// Loads every item of `model` over `connections` parallel connections.
pub(crate) async fn load(
    endpoint: &Endpoint,
    signing: &SigningConfig,
    model: &DataModel,
    connections: usize,
) -> Result<SetupReport, BenchError> {
    let start = Instant::now();
    let bodies = Arc::new(model.load_bodies());
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..connections.clamp(1, bodies.len().max(1)) {
        let (bodies, next, endpoint, signing) =
            (bodies.clone(), next.clone(), endpoint.clone(), signing.clone());
        tasks.push(tokio::spawn(async move {
            let mut conn = Conn::connect(endpoint.addr).await?;
            let mut signer = RequestSigner::new(&endpoint, &signing)?;
            while let Some(body) = bodies.get(next.fetch_add(1, Ordering::Relaxed)) {
                write_batch(&mut conn, &mut signer, body).await?;
            }
            Ok::<(), BenchError>(())
        }));
    }
    for task in tasks {
        task.await.map_err(|e| BenchError::Task(e.to_string()))??;
    }
    Ok(SetupReport { items_loaded: model.items, load_secs: start.elapsed().as_secs_f64() })
}
