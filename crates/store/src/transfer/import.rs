//! Import: DynamoDB JSON lines into a table, in two streaming passes over the file.
//!
//! Pass one parses and checks every line (the `{"Item": ...}` shape, the key attributes and
//! the types of every key attribute of the table and its indexes) and, if any line is bad,
//! reports them all with line numbers and imports nothing. Pass two writes the items with
//! BatchWriteItem, 25 at a time. If the engine refuses a batch in pass two, the error says
//! how many items are already in the table ([`TransferError::Partial`]).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::GzDecoder;
use indicatif::ProgressBar;
use monotable_engine::{
    BatchWriteItemInput, DescribeTableInput, Engine, ErrorKind, PutRequest, WriteRequest,
};
use monotable_types::{AttributeType, Item};
use serde::Deserialize;

use super::{TableDefinition, TransferError};

/// BatchWriteItem's limit on requests per call.
const BATCH: usize = 25;

/// How to import.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImportOptions {
    /// The target table; defaults to the definition's table name.
    pub table: Option<String>,
    /// At most this many bad lines are kept for the report (all are counted).
    pub max_bad_lines: usize,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions { table: None, max_bad_lines: 100 }
    }
}

/// A line that is not an item of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// 1-based line number.
    pub line: u64,
    /// What is wrong with it.
    pub reason: String,
}

/// What an import did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportReport {
    /// Items written.
    pub items: u64,
    /// The table was created from the definition.
    pub created_table: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    #[serde(rename = "Item")]
    item: Item,
}

/// The key attributes an item must have and the declared types of key attributes.
struct Shape {
    keys: Vec<String>,
    types: HashMap<String, AttributeType>,
}

impl Shape {
    fn from_parts(keys: Vec<String>, defs: &[(Option<String>, Option<String>)]) -> Shape {
        let types = defs
            .iter()
            .filter_map(|(n, t)| Some((n.clone()?, AttributeType::parse(t.as_deref()?)?)))
            .collect();
        Shape { keys, types }
    }

    fn check(&self, item: &Item) -> Result<(), String> {
        for k in &self.keys {
            if !item.contains_key(k) {
                return Err(format!("missing key attribute {k}"));
            }
        }
        for (name, ty) in &self.types {
            if let Some(v) = item.get(name) {
                if v.attribute_type() != *ty {
                    return Err(format!("key attribute {name} must be of type {ty:?}"));
                }
            }
        }
        Ok(())
    }

    fn key_of(&self, item: &Item) -> String {
        let key: Item = self.keys.iter().filter_map(|k| Some((k.clone(), item.get(k)?.clone()))).collect();
        serde_json::to_string(&key).unwrap_or_default()
    }
}

/// A callback given a line number and the line's bytes.
type LineFn<'a> = dyn FnMut(u64, &[u8]) -> Result<(), TransferError> + 'a;

/// A reader that advances a progress bar by the bytes it reads (of the file, before any
/// decompression).
struct Progressed<'a, R> {
    inner: R,
    progress: &'a ProgressBar,
}

impl<R: Read> Read for Progressed<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.inc(n as u64);
        Ok(n)
    }
}

/// Reads the lines of `path` (gzip-compressed when its name ends in `.gz`, as DynamoDB's
/// export to S3 writes them), calling `f(line number, bytes)` for each non-blank line.
fn for_each_line(path: &Path, progress: &ProgressBar, f: &mut LineFn<'_>) -> Result<(), TransferError> {
    let what = || path.display().to_string();
    let file = File::open(path).map_err(|e| TransferError::io(what(), e))?;
    let raw = Progressed { inner: file, progress };
    let source: Box<dyn Read + '_> =
        if super::is_gzip(path) { Box::new(GzDecoder::new(raw)) } else { Box::new(raw) };
    let mut reader = BufReader::with_capacity(1 << 16, source);
    let mut buf = Vec::new();
    let mut number = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| TransferError::io(what(), e))?;
        if n == 0 {
            return Ok(());
        }
        number += 1;
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        f(number, &buf)?;
    }
}

fn parse(bytes: &[u8]) -> Result<Item, String> {
    serde_json::from_slice::<Line>(bytes).map(|l| l.item).map_err(|e| e.to_string())
}

/// Imports the JSON lines file at `path` into a table of `engine`, creating the table from
/// `definition` when it does not exist. `path` may be gzip-compressed (`.gz`). `progress`
/// counts bytes of the file read, once per pass.
pub fn import_file(
    engine: &Engine,
    path: &Path,
    definition: Option<&TableDefinition>,
    options: &ImportOptions,
    progress: &ProgressBar,
) -> Result<ImportReport, TransferError> {
    let table = options
        .table
        .clone()
        .or_else(|| definition.map(|d| d.table_name().to_owned()))
        .filter(|t| !t.is_empty())
        .ok_or_else(|| {
            TransferError::Definition("no table name: give a table or a definition file".into())
        })?;
    let existing = match engine.describe_table(DescribeTableInput { table_name: Some(table.clone()) }) {
        Ok(out) => out.table,
        Err(e) if e.kind == ErrorKind::ResourceNotFound => None,
        Err(e) => return Err(e.into()),
    };
    let shape = match (&existing, definition) {
        (Some(d), _) => Shape::from_parts(
            d.key_schema.iter().flatten().filter_map(|k| k.attribute_name.clone()).collect(),
            &d.attribute_definitions
                .iter()
                .flatten()
                .map(|a| (a.attribute_name.clone(), a.attribute_type.clone()))
                .collect::<Vec<_>>(),
        ),
        (None, Some(def)) => Shape::from_parts(
            def.key_attributes(),
            &def.create_table
                .attribute_definitions
                .iter()
                .flatten()
                .map(|a| (a.attribute_name.clone(), a.attribute_type.clone()))
                .collect::<Vec<_>>(),
        ),
        (None, None) => {
            return Err(TransferError::Definition(format!(
                "table {table} does not exist; give a table definition file to create it"
            )))
        }
    };

    // Pass one: check every line.
    let mut bad = Vec::new();
    let mut bad_count = 0usize;
    for_each_line(path, progress, &mut |line, bytes| {
        if let Err(reason) = parse(bytes).and_then(|item| shape.check(&item)) {
            bad_count += 1;
            if bad.len() < options.max_bad_lines {
                bad.push(BadLine { line, reason });
            }
        }
        Ok(())
    })?;
    if bad_count > 0 {
        if bad_count > bad.len() {
            bad.push(BadLine {
                line: 0,
                reason: format!("... and {} more bad lines", bad_count - bad.len()),
            });
        }
        return Err(TransferError::BadLines(bad));
    }

    let mut report = ImportReport::default();
    if existing.is_none() {
        if let Some(def) = definition {
            def.create(engine, Some(&table))?;
            report.created_table = true;
        }
    }

    // Pass two: write.
    progress.set_position(0);
    progress.set_message("importing");
    let mut batch: Vec<(u64, Item)> = Vec::with_capacity(BATCH);
    let mut keys = HashSet::new();
    let flush = |batch: &mut Vec<(u64, Item)>, keys: &mut HashSet<String>, report: &mut ImportReport| {
        let first_line = batch.first().map_or(0, |(l, _)| *l);
        let count = batch.len() as u64;
        let requests: Vec<WriteRequest> = batch
            .drain(..)
            .map(|(_, item)| WriteRequest {
                put_request: Some(PutRequest { item: Some(item) }),
                delete_request: None,
            })
            .collect();
        keys.clear();
        write_batch(engine, &table, requests).map_err(|error| TransferError::Partial {
            imported: report.items,
            line: first_line,
            error,
        })?;
        report.items += count;
        Ok::<(), TransferError>(())
    };
    for_each_line(path, progress, &mut |line, bytes| {
        let item = parse(bytes).map_err(|reason| TransferError::BadLines(vec![BadLine { line, reason }]))?;
        // BatchWriteItem refuses two requests for one key; such a pair goes in two batches.
        if batch.len() == BATCH || !keys.insert(shape.key_of(&item)) {
            flush(&mut batch, &mut keys, &mut report)?;
            keys.insert(shape.key_of(&item));
        }
        batch.push((line, item));
        Ok(())
    })?;
    if !batch.is_empty() {
        flush(&mut batch, &mut keys, &mut report)?;
    }
    Ok(report)
}

/// Writes one batch, resubmitting unprocessed requests until none are left.
fn write_batch(
    engine: &Engine,
    table: &str,
    mut requests: Vec<WriteRequest>,
) -> Result<(), monotable_engine::Error> {
    let mut delay = std::time::Duration::from_millis(5);
    while !requests.is_empty() {
        let out = engine.batch_write_item(BatchWriteItemInput {
            request_items: Some(HashMap::from([(table.to_owned(), requests)])),
            ..BatchWriteItemInput::default()
        })?;
        requests = out.unprocessed_items.and_then(|mut u| u.remove(table)).unwrap_or_default();
        if !requests.is_empty() {
            std::thread::sleep(delay);
            delay = (delay * 2).min(std::time::Duration::from_secs(1));
        }
    }
    Ok(())
}
