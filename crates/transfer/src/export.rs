//! Export from an endpoint: parallel Scan segments, each appending DynamoDB JSON lines to its
//! own part file in the checkpoint directory; when every segment is done the parts are joined
//! into the output file (gzip-compressed when its name ends in `.gz`), and the table's
//! definition is written beside it.
//!
//! Invariant: a segment's checkpoint records its part file's length and the Scan key after
//! the last line in it, saved only after those lines are written. A resumed segment cuts its
//! part back to the recorded length and scans on from the recorded key, so each item is in
//! the output exactly once, whatever point the earlier run stopped at.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use aws_sdk_dynamodb::Client;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::Serialize;
use tokio::task::JoinSet;

use crate::checkpoint::Checkpoint;
use crate::run::{item_count, start, Started};
use crate::scan::Segment;
use crate::wire::{from_sdk, key_from_json, key_to_json};
use crate::{Definition, Options, RateUnit, Report, TransferError};

#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "Item")]
    item: &'a monotable_types::Item,
}

/// The default checkpoint directory of an export to `out`.
pub fn default_checkpoint(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".checkpoint");
    PathBuf::from(name)
}

/// Exports `table` of `client`'s endpoint to `out`, and its definition to `definition`.
pub async fn export(
    client: &Client,
    endpoint: &str,
    table: &str,
    out: &Path,
    definition: &Path,
    options: &Options,
) -> Result<Report, TransferError> {
    let def = Definition::describe(client, table).await?;
    std::fs::write(definition, def.to_json() + "\n")
        .map_err(|e| TransferError::io(definition.display().to_string(), e))?;
    let total = item_count(client, table).await?;
    let Started { checkpoint, run, states, progress, resumed_items } = start(
        "export",
        format!("{endpoint}/{table}"),
        out.display().to_string(),
        default_checkpoint(out),
        options,
        "exported",
        total,
    )?;
    let limiter = options.limiter();

    let mut tasks = JoinSet::new();
    for (n, state) in states.into_iter().enumerate() {
        if state.done {
            continue;
        }
        let segment = Segment {
            client: client.clone(),
            table: table.to_owned(),
            segment: n as u32,
            total: run.segments,
            page_size: options.scan_page_size(),
        };
        let (checkpoint, progress, limiter, backoff) =
            (checkpoint.clone(), progress.clone(), limiter.clone(), options.backoff);
        tasks.spawn(async move {
            let part = checkpoint.part_file(segment.segment);
            let file = OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(false)
                .open(&part)
                .map_err(|e| TransferError::io(part.display().to_string(), e))?;
            // Lines past the checkpointed length were written after the last save: cut them.
            file.set_len(state.bytes).map_err(|e| TransferError::io(part.display().to_string(), e))?;
            let mut file = BufWriter::new(file);
            std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))
                .map_err(|e| TransferError::io(part.display().to_string(), e))?;
            let mut state = state;
            let mut line = Vec::new();
            loop {
                let start = state.last_key.as_ref().map(key_from_json).transpose()?;
                let page = segment.page(start, &backoff).await?;
                let (mut items, mut bytes) = (0u64, 0u64);
                for item in &page.items {
                    line.clear();
                    serde_json::to_writer(&mut line, &Line { item: &from_sdk(item)? })
                        .map_err(|e| TransferError::Data(e.to_string()))?;
                    line.push(b'\n');
                    file.write_all(&line).map_err(|e| TransferError::io(part.display().to_string(), e))?;
                    items += 1;
                    bytes += line.len() as u64;
                }
                file.flush().map_err(|e| TransferError::io(part.display().to_string(), e))?;
                state.items += items;
                state.bytes += bytes;
                state.last_key = page.last_key.as_ref().map(key_to_json).transpose()?;
                state.done = state.last_key.is_none();
                checkpoint.save(segment.segment, &state)?;
                progress.add(items, bytes);
                if let Some((limiter, unit)) = &limiter {
                    let units = match unit {
                        RateUnit::Items => items as f64,
                        // A strongly consistent read costs one unit per 4 KB read.
                        _ => page.capacity.unwrap_or((bytes as f64 / 4096.0).ceil()),
                    };
                    limiter.charge(units).await;
                }
                if state.done {
                    return Ok::<(), TransferError>(());
                }
            }
        });
    }
    while let Some(joined) = tasks.join_next().await {
        joined.map_err(|e| TransferError::Data(format!("export segment failed: {e}")))??;
    }
    progress.finish();
    join_parts(&checkpoint, run.segments, out)?;
    checkpoint.remove()?;
    Ok(Report { items: progress.items(), bytes: progress.bytes(), resumed_items, created_table: false })
}

/// Joins the part files in segment order into `out`, through a temporary file renamed into
/// place, and flushes it to the device.
fn join_parts(checkpoint: &Checkpoint, segments: u32, out: &Path) -> Result<(), TransferError> {
    let what = || out.display().to_string();
    let mut tmp_name = out.as_os_str().to_owned();
    tmp_name.push(".tmp");
    let tmp = PathBuf::from(tmp_name);
    let file = File::create(&tmp).map_err(|e| TransferError::io(what(), e))?;
    let mut writer = BufWriter::new(file);
    let copy_parts = |sink: &mut dyn Write| -> Result<(), TransferError> {
        for s in 0..segments {
            let part = checkpoint.part_file(s);
            let mut f = File::open(&part).map_err(|e| TransferError::io(part.display().to_string(), e))?;
            std::io::copy(&mut f, sink).map_err(|e| TransferError::io(what(), e))?;
        }
        Ok(())
    };
    if out.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz")) {
        let mut gz = GzEncoder::new(&mut writer, Compression::default());
        copy_parts(&mut gz)?;
        gz.finish().map_err(|e| TransferError::io(what(), e))?;
    } else {
        copy_parts(&mut writer)?;
    }
    let file = writer.into_inner().map_err(|e| TransferError::io(what(), e.into_error()))?;
    file.sync_all().map_err(|e| TransferError::io(what(), e))?;
    std::fs::rename(&tmp, out).map_err(|e| TransferError::io(what(), e))
}
