//! What every run does first: find out how many items to expect, and open its checkpoint and
//! progress (counting what an interrupted run already did).

use std::path::PathBuf;
use std::sync::Arc;

use aws_sdk_dynamodb::Client;

use crate::checkpoint::{Checkpoint, RunInfo, SegmentState};
use crate::client::endpoint_error;
use crate::{Options, Progress, TransferError};

/// The item count DescribeTable reports (approximate on DynamoDB, which refreshes it about
/// every six hours), for the progress bar's total.
pub(crate) async fn item_count(client: &Client, table: &str) -> Result<Option<u64>, TransferError> {
    let described = client
        .describe_table()
        .table_name(table)
        .send()
        .await
        .map_err(|e| endpoint_error("DescribeTable", e))?;
    Ok(described.table().and_then(|t| t.item_count()).map(|n| n.max(0) as u64))
}

/// A run with its checkpoint open.
pub(crate) struct Started {
    pub checkpoint: Checkpoint,
    /// The run as recorded (a resumed run keeps its segment count).
    pub run: RunInfo,
    pub states: Vec<SegmentState>,
    pub progress: Arc<Progress>,
    pub resumed_items: u64,
}

/// Opens the checkpoint of `kind` from `source` to `target` (in `options.checkpoint`, else
/// `default_dir`) and starts its progress towards `total` items.
pub(crate) fn start(
    kind: &str,
    source: String,
    target: String,
    default_dir: PathBuf,
    options: &Options,
    verb: &'static str,
    total: Option<u64>,
) -> Result<Started, TransferError> {
    let run = RunInfo { kind: kind.into(), source, target, segments: options.segments.max(1) };
    let dir = options.checkpoint.clone().unwrap_or(default_dir);
    let (checkpoint, run, states) = Checkpoint::open(&dir, &run, options.resume)?;
    let resumed_items: u64 = states.iter().map(|s| s.items).sum();
    let resumed_bytes: u64 = states.iter().map(|s| s.bytes).sum();
    let progress = Arc::new(Progress::new(verb, options.progress, total, resumed_items, resumed_bytes));
    Ok(Started { checkpoint, run, states, progress, resumed_items })
}
