//! Import into an endpoint: DynamoDB JSON lines (plain or gzip) written with BatchWriteItem
//! by parallel writers.
//!
//! Pass one reads every line and checks it is `{"Item": {...}}` with the table's key
//! attributes; if any is not, nothing is written. Pass two cuts the lines into batches of 25
//! (batch `b` is lines `25b+1 ..= 25b+25`, the same on every run) and deals batch `b` to
//! writer `b mod W`. Invariant: each writer writes its batches in order and records in its
//! checkpoint how many it has finished, after they are acknowledged; a resumed run skips
//! exactly those, so no line is written twice and none is left out.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::Client;
use flate2::read::GzDecoder;
use monotable_types::Item;
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use crate::client::endpoint_error;
use crate::run::{start, Started};
use crate::wire::to_sdk;
use crate::write::{Writer, BATCH_SIZE};
use crate::{Definition, Options, Report, TransferError};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(rename = "Item")]
    item: Item,
}

/// The default checkpoint directory of an import of `input`.
pub fn default_checkpoint(input: &Path) -> PathBuf {
    let mut name = input.as_os_str().to_owned();
    name.push(".import-checkpoint");
    PathBuf::from(name)
}

fn open_lines(input: &Path) -> Result<impl Iterator<Item = std::io::Result<String>>, TransferError> {
    let file = File::open(input).map_err(|e| TransferError::io(input.display().to_string(), e))?;
    let reader: Box<dyn Read + Send> = if input.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        Box::new(GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    Ok(BufReader::with_capacity(1 << 16, reader).lines())
}

/// Parses one line; blank lines are skipped (`None`).
fn parse(text: &str, keys: &[String]) -> Result<Option<Item>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let line: Line = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if let Some(missing) = keys.iter().find(|k| !line.item.contains_key(*k)) {
        return Err(format!("the item lacks the key attribute {missing:?}"));
    }
    Ok(Some(line.item))
}

/// The key attribute names of `table`, or `None` if it does not exist.
async fn key_attributes(client: &Client, table: &str) -> Result<Option<Vec<String>>, TransferError> {
    match client.describe_table().table_name(table).send().await {
        Ok(out) => Ok(Some(
            out.table()
                .map(|t| t.key_schema().iter().map(|k| k.attribute_name().to_owned()).collect())
                .unwrap_or_default(),
        )),
        Err(e) if e.code() == Some("ResourceNotFoundException") => Ok(None),
        Err(e) => Err(endpoint_error("DescribeTable", e)),
    }
}

/// Imports `input` into `table` of `client`'s endpoint, creating the table from `definition`
/// when it does not exist.
pub async fn import(
    client: &Client,
    endpoint: &str,
    table: &str,
    input: &Path,
    definition: Option<&Definition>,
    options: &Options,
) -> Result<Report, TransferError> {
    let mut created_table = false;
    let keys = match key_attributes(client, table).await? {
        Some(keys) => keys,
        None => {
            let def = definition.ok_or_else(|| {
                TransferError::Definition(format!(
                    "table {table} does not exist; give its definition file to create it"
                ))
            })?;
            def.create(client, table).await?;
            created_table = true;
            def.key_attributes()
        }
    };

    // Pass one: every line must be an item of the table before anything is written.
    let (mut count, mut bad, mut first_bad) = (0u64, 0u64, None);
    for (n, text) in open_lines(input)?.enumerate() {
        let text = text.map_err(|e| TransferError::io(input.display().to_string(), e))?;
        match parse(&text, &keys) {
            Ok(Some(_)) => count += 1,
            Ok(None) => {}
            Err(reason) => {
                bad += 1;
                first_bad.get_or_insert((n as u64 + 1, reason));
            }
        }
    }
    if let Some((line, reason)) = first_bad {
        return Err(TransferError::BadLines { count: bad, line, reason });
    }

    let Started { checkpoint, run, states, progress, resumed_items } = start(
        "import",
        input.display().to_string(),
        format!("{endpoint}/{table}"),
        default_checkpoint(input),
        options,
        "imported",
        Some(count),
    )?;
    let writers = run.segments as u64;
    let done_batches: Vec<u64> = states.iter().map(|s| s.batches).collect();
    let writer = Writer {
        client: client.clone(),
        table: table.to_owned(),
        backoff: options.backoff,
        limit: options.limiter(),
    };

    let mut tasks = JoinSet::new();
    let mut senders = Vec::new();
    for (w, state) in states.into_iter().enumerate() {
        let (tx, mut rx) = mpsc::channel::<(u64, Vec<Item>, u64)>(4);
        senders.push(tx);
        let (writer, checkpoint, progress) = (writer.clone(), checkpoint.clone(), progress.clone());
        tasks.spawn(async move {
            let mut state = state;
            while let Some((batch, items, bytes)) = rx.recv().await {
                let n = items.len() as u64;
                writer.put(items.iter().map(to_sdk).collect()).await?;
                state.batches = batch / writers + 1;
                state.items += n;
                state.bytes += bytes;
                checkpoint.save(w as u32, &state)?;
                progress.add(n, bytes);
            }
            Ok::<(), TransferError>(())
        });
    }

    // Pass two: read on a blocking thread, deal batches to the writers.
    let input_owned = input.to_owned();
    let reader = tokio::task::spawn_blocking(move || -> Result<(), TransferError> {
        let mut batch = Vec::with_capacity(BATCH_SIZE);
        let (mut bytes, mut index) = (0u64, 0u64);
        let send = |index: u64, batch: Vec<Item>, bytes: u64| -> bool {
            let w = (index % writers) as usize;
            // A batch its writer finished in an earlier run is skipped.
            index / writers < done_batches[w] || senders[w].blocking_send((index, batch, bytes)).is_ok()
        };
        for text in open_lines(&input_owned)? {
            let text = text.map_err(|e| TransferError::io(input_owned.display().to_string(), e))?;
            if let Some(item) = parse(&text, &keys).map_err(TransferError::Data)? {
                batch.push(item);
                bytes += text.len() as u64 + 1;
            }
            if batch.len() == BATCH_SIZE {
                if !send(index, std::mem::take(&mut batch), bytes) {
                    return Ok(()); // A writer stopped; its error is reported below.
                }
                index += 1;
                bytes = 0;
            }
        }
        if !batch.is_empty() {
            send(index, batch, bytes);
        }
        Ok(())
    });
    let read = reader.await.map_err(|e| TransferError::Data(format!("reading the input failed: {e}")))?;
    while let Some(joined) = tasks.join_next().await {
        joined.map_err(|e| TransferError::Data(format!("import writer failed: {e}")))??;
    }
    read?;
    progress.finish();
    checkpoint.remove()?;
    Ok(Report { items: progress.items(), bytes: progress.bytes(), resumed_items, created_table })
}
