//! Copy between endpoints: parallel Scan segments of the source, each page written to the
//! target with BatchWriteItem before the segment moves on.
//!
//! Invariant: a segment saves the Scan key after a page only once every item of the page is
//! acknowledged by the target. A resumed segment scans on from that key, so every item is
//! written at least once; an item written twice (its page was in flight when the run stopped)
//! is the same put of the same item, so the target ends with exactly the source's items.

use std::path::PathBuf;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::Client;
use tokio::task::JoinSet;

use crate::client::endpoint_error;
use crate::run::{item_count, start, Started};
use crate::scan::Segment;
use crate::wire::{key_from_json, key_to_json, sdk_item_size};
use crate::write::{Writer, BATCH_SIZE};
use crate::{Definition, Options, RateUnit, Report, TransferError};

/// One side of a copy: an endpoint (URL, or `aws`) and a table.
#[derive(Debug, Clone)]
pub struct TableRef {
    /// The client of the endpoint.
    pub client: Client,
    /// The endpoint as the user named it (for checkpoints and messages).
    pub endpoint: String,
    /// The table.
    pub table: String,
}

/// The default checkpoint directory of a copy from table `from` to table `to`, in the working
/// directory.
pub fn default_checkpoint(from: &str, to: &str) -> PathBuf {
    let clean = |s: &str| {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>()
    };
    PathBuf::from(format!(".monotable-copy-{}-to-{}.checkpoint", clean(from), clean(to)))
}

/// Copies every item of `from` into `to`, creating `to` from `from`'s definition when it does
/// not exist.
pub async fn copy(from: &TableRef, to: &TableRef, options: &Options) -> Result<Report, TransferError> {
    let mut created_table = false;
    match to.client.describe_table().table_name(&to.table).send().await {
        Ok(_) => {}
        Err(e) if e.code() == Some("ResourceNotFoundException") => {
            Definition::describe(&from.client, &from.table).await?.create(&to.client, &to.table).await?;
            created_table = true;
        }
        Err(e) => return Err(endpoint_error("DescribeTable", e)),
    }
    let total = item_count(&from.client, &from.table).await?;
    let Started { checkpoint, run, states, progress, resumed_items } = start(
        "copy",
        format!("{}/{}", from.endpoint, from.table),
        format!("{}/{}", to.endpoint, to.table),
        default_checkpoint(&from.table, &to.table),
        options,
        "copied",
        total,
    )?;
    let limit = options.limiter();
    let writer = Writer {
        client: to.client.clone(),
        table: to.table.clone(),
        backoff: options.backoff,
        limit: limit.clone(),
    };

    let mut tasks = JoinSet::new();
    for (n, state) in states.into_iter().enumerate() {
        if state.done {
            continue;
        }
        let segment = Segment {
            client: from.client.clone(),
            table: from.table.clone(),
            segment: n as u32,
            total: run.segments,
            page_size: options.scan_page_size(),
        };
        let (checkpoint, progress, writer, backoff) =
            (checkpoint.clone(), progress.clone(), writer.clone(), options.backoff);
        let read_limit = limit.clone().filter(|(_, unit)| *unit == RateUnit::CapacityUnits);
        tasks.spawn(async move {
            let mut state = state;
            loop {
                let start = state.last_key.as_ref().map(key_from_json).transpose()?;
                let page = segment.page(start, &backoff).await?;
                let items = page.items.len() as u64;
                let bytes: u64 = page.items.iter().map(|i| sdk_item_size(i) as u64).sum();
                if let Some((limiter, _)) = &read_limit {
                    limiter.charge(page.capacity.unwrap_or((bytes as f64 / 4096.0).ceil())).await;
                }
                let mut rest = page.items;
                while !rest.is_empty() {
                    let tail = rest.split_off(rest.len().min(BATCH_SIZE));
                    writer.put(std::mem::replace(&mut rest, tail)).await?;
                }
                state.items += items;
                state.bytes += bytes;
                state.last_key = page.last_key.as_ref().map(key_to_json).transpose()?;
                state.done = state.last_key.is_none();
                checkpoint.save(segment.segment, &state)?;
                progress.add(items, bytes);
                if state.done {
                    return Ok::<(), TransferError>(());
                }
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.map_err(|e| TransferError::Data(format!("copy segment failed: {e}")))??;
    }
    progress.finish();
    checkpoint.remove()?;
    Ok(Report { items: progress.items(), bytes: progress.bytes(), resumed_items, created_table })
}
