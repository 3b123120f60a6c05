//! Export: Scan pages of a table written as DynamoDB JSON lines.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::Compression;

use indicatif::ProgressBar;
use monotable_engine::{Engine, ScanInput};
use monotable_types::Item;
use serde::Serialize;

use super::TransferError;

/// What an export wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExportReport {
    /// Items (lines) written.
    pub items: u64,
    /// Bytes written.
    pub bytes: u64,
}

#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "Item")]
    item: &'a Item,
}

/// Writes every item of `table` to `out`, one `{"Item": ...}` line each, a Scan page at a
/// time (memory holds one page, at most 1 MB of items). `progress` advances by one per item.
pub fn export_table(
    engine: &Engine,
    table: &str,
    out: &mut dyn Write,
    progress: &ProgressBar,
) -> Result<ExportReport, TransferError> {
    let mut report = ExportReport::default();
    let mut start = None;
    let mut line = Vec::new();
    loop {
        let page = engine.scan(ScanInput {
            table_name: Some(table.to_owned()),
            exclusive_start_key: start,
            consistent_read: Some(true),
            ..ScanInput::default()
        })?;
        for item in page.items.unwrap_or_default() {
            line.clear();
            serde_json::to_writer(&mut line, &Line { item: &item })
                .map_err(|e| TransferError::io("export output", e.into()))?;
            line.push(b'\n');
            out.write_all(&line).map_err(|e| TransferError::io("export output", e))?;
            report.items += 1;
            report.bytes += line.len() as u64;
            progress.inc(1);
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    out.flush().map_err(|e| TransferError::io("export output", e))?;
    Ok(report)
}

/// Exports `table` to the file at `path` (gzip-compressed when its name ends in `.gz`, like
/// DynamoDB's export to S3), flushing it to the device before returning.
pub fn export_to_path(
    engine: &Engine,
    table: &str,
    path: &Path,
    progress: &ProgressBar,
) -> Result<ExportReport, TransferError> {
    let what = || path.display().to_string();
    let file = File::create(path).map_err(|e| TransferError::io(what(), e))?;
    let mut out = BufWriter::new(file);
    let report = if super::is_gzip(path) {
        let mut gz = GzEncoder::new(&mut out, Compression::default());
        let report = export_table(engine, table, &mut gz, progress)?;
        gz.finish().map_err(|e| TransferError::io(what(), e))?;
        report
    } else {
        export_table(engine, table, &mut out, progress)?
    };
    let file = out.into_inner().map_err(|e| TransferError::io(what(), e.into_error()))?;
    file.sync_all().map_err(|e| TransferError::io(what(), e))?;
    Ok(report)
}
