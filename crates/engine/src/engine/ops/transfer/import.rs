//! ImportTable, DescribeImport, ListImports.
//!
//! ImportTable creates the table from `TableCreationParameters` (CreateTable's validation and
//! errors, synchronously), then reads every object of the bucket whose key starts with
//! `S3KeyPrefix`, in key order, as a stream of DynamoDB JSON documents `{"Item": {...}}`
//! (newlines between them are optional), and puts each item. An item that is not valid for
//! the table is counted in `ErrorCount` and skipped, as is an object that cannot be read or
//! decompressed; text that is not JSON counts one error and ends its object (developer guide
//! "Import format quotas and validation": each error is counted, and the rest of a malformed
//! object may be skipped). An import with errors ends `FAILED` with the good items in the
//! table and the first error as `FailureMessage`.
//!
//! Sources: moto's AWS-verified tests/test_dynamodb/test_dynamodb_import_table.py (missing
//! bucket: FAILED with S3NoSuchBucket and no table; CreateTable validation applies; an empty
//! bucket completes with zero counts; objects of any name, concatenated documents, GZIP; a
//! document without the `Item` wrapper is an error: FAILED, ErrorCount 1, the other items
//! imported; only keys with the prefix are read).
//!
//! CSV input is read as `csv.rs` describes. Not emulated: the ION format and ZSTD compression
//! (refused), and the CloudWatch log of bad items.

use std::collections::HashMap;
use std::io::Read;

use flate2::read::MultiGzDecoder;
use monotable_types::{AttributeType, Item};
use serde::Deserialize;

use super::csv;
use super::{job_id, page};
use crate::api::*;
use crate::engine::core::bucket::{ObjectStore, ObjectStoreError, NO_SUCH_BUCKET};
use crate::engine::core::util::now_epoch;
use crate::engine::core::Inner;
use crate::validate::Constraints;
use crate::Engine;
use crate::{Error, ErrorKind};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Document {
    #[serde(rename = "Item")]
    item: Item,
}

/// How the objects are written.
enum Format {
    DynamoDbJson,
    /// CSV with this delimiter and, when given, the header of every object.
    Csv {
        delimiter: char,
        header: Option<Vec<String>>,
    },
}

/// The CSV options of `InputFormatOptions` (`{"Csv": {"Delimiter": ",", "HeaderList": [...]}}`).
fn csv_options(c: &mut Constraints, options: Option<&serde_json::Value>) -> (char, Option<Vec<String>>) {
    let csv = options.and_then(|o| o.get("Csv"));
    let delimiter = csv.and_then(|c| c.get("Delimiter")).and_then(|d| d.as_str());
    // API_CsvOptions: Delimiter "Fixed length of 1", pattern [,;:|\t ].
    if let Some(d) = delimiter.filter(|d| d.chars().count() != 1 || !",;:|\t ".contains(*d)) {
        c.fail(
            d,
            "inputFormatOptions.csv.delimiter",
            "Member must satisfy regular expression pattern: [,;:|\\t ]",
        );
    }
    let header = csv
        .and_then(|c| c.get("HeaderList"))
        .and_then(|h| h.as_array())
        .map(|list| list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect::<Vec<String>>());
    (delimiter.and_then(|d| d.chars().next()).unwrap_or(','), header)
}

/// What reading the objects did.
#[derive(Default)]
struct Counts {
    processed: i64,
    imported: i64,
    errors: i64,
    bytes: i64,
    first_error: Option<String>,
}

impl Counts {
    fn error(&mut self, what: String) {
        self.errors += 1;
        self.first_error.get_or_insert(what);
    }
}

fn create_input(p: &TableCreationParameters) -> CreateTableInput {
    CreateTableInput {
        table_name: p.table_name.clone(),
        attribute_definitions: p.attribute_definitions.clone(),
        key_schema: p.key_schema.clone(),
        billing_mode: p.billing_mode.clone(),
        provisioned_throughput: p.provisioned_throughput.clone(),
        on_demand_throughput: p.on_demand_throughput.clone(),
        sse_specification: p.sse_specification.clone(),
        global_secondary_indexes: p.global_secondary_indexes.clone(),
        ..CreateTableInput::default()
    }
}

pub(in crate::engine) fn import_table(
    engine: &Engine,
    inner: &Inner,
    input: ImportTableInput,
) -> Result<ImportTableOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("s3BucketSource", input.s3_bucket_source.is_some());
    if let Some(s) = &input.s3_bucket_source {
        c.not_null("s3BucketSource.s3Bucket", s.s3_bucket.is_some());
    }
    c.not_null("inputFormat", input.input_format.is_some());
    c.one_of(input.input_format.as_deref(), "inputFormat", &["DYNAMODB_JSON", "ION", "CSV"]);
    c.one_of(input.input_compression_type.as_deref(), "inputCompressionType", &["GZIP", "ZSTD", "NONE"]);
    c.not_null("tableCreationParameters", input.table_creation_parameters.is_some());
    let (delimiter, header) = csv_options(&mut c, input.input_format_options.as_ref());
    c.finish()?;
    let format = input.input_format.clone().unwrap_or_default();
    let compression = input.input_compression_type.clone().unwrap_or_else(|| "NONE".into());
    if format == "ION" || compression == "ZSTD" {
        return Err(Error::validation(format!(
            "monotable imports only DYNAMODB_JSON and CSV, uncompressed or GZIP, not {format} with {compression}"
        )));
    }
    let reading = match format.as_str() {
        "CSV" => Format::Csv { delimiter, header },
        _ => Format::DynamoDbJson,
    };
    let params = input.table_creation_parameters.clone().unwrap_or_default();
    let start = now_epoch();
    let created = engine.create_table(create_input(&params))?;
    let table = created.table_description.unwrap_or_default();
    let table_arn = table.table_arn.clone().unwrap_or_default();
    let source = input.s3_bucket_source.clone().unwrap_or_default();
    let mut d = ImportTableDescription {
        import_arn: Some(format!("{table_arn}/import/{}", job_id())),
        import_status: Some("COMPLETED".into()),
        table_arn: Some(table_arn),
        table_id: table.table_id.clone(),
        client_token: input.client_token.clone(),
        s3_bucket_source: Some(source.clone()),
        input_format: Some(format),
        input_format_options: input.input_format_options.clone(),
        input_compression_type: Some(compression.clone()),
        table_creation_parameters: Some(params),
        start_time: Some(start),
        ..ImportTableDescription::default()
    };
    let name = table.table_name.clone().unwrap_or_default();
    let store = inner.transfers.store();
    let bucket = source.s3_bucket.clone().unwrap_or_default();
    let prefix = source.s3_key_prefix.clone().unwrap_or_default();
    // Listing first finds a missing bucket before any item is written.
    let listed = match store.bucket_exists(&bucket) {
        Ok(true) => store.list_keys(&bucket, &prefix),
        Ok(false) => Err(ObjectStoreError::NoSuchBucket),
        Err(e) => Err(e),
    };
    match listed {
        Err(e) => {
            // The table exists only if the import could start (moto: "table_name not in
            // list_tables" after a missing bucket).
            engine.delete_table(DeleteTableInput { table_name: Some(name) })?;
            d.import_status = Some("FAILED".into());
            let (code, message) = match e {
                ObjectStoreError::NoSuchBucket => (NO_SUCH_BUCKET.0.to_owned(), NO_SUCH_BUCKET.1.to_owned()),
                ObjectStoreError::Failed(message) => ("UNKNOWN".to_owned(), message),
            };
            d.failure_code = Some(code);
            d.failure_message = Some(message);
        }
        Ok(keys) => {
            let types: HashMap<String, AttributeType> = table
                .attribute_definitions
                .iter()
                .flatten()
                .filter_map(|a| {
                    Some((a.attribute_name.clone()?, AttributeType::parse(a.attribute_type.as_deref()?)?))
                })
                .collect();
            let source = Source { store: store.as_ref(), bucket: &bucket, keys: &keys };
            let counts = read_objects(engine, &name, &source, compression == "GZIP", &reading, &types)?;
            d.processed_item_count = Some(counts.processed);
            d.imported_item_count = Some(counts.imported);
            d.error_count = Some(counts.errors);
            d.processed_size_bytes = Some(counts.bytes);
            if counts.errors > 0 {
                d.import_status = Some("FAILED".into());
                d.failure_message = counts.first_error;
            }
        }
    }
    d.end_time = Some(now_epoch());
    inner.transfers.imports.lock().push(d.clone());
    Ok(ImportTableOutput { import_table_description: Some(d) })
}

/// The objects an import reads.
struct Source<'a> {
    store: &'a dyn ObjectStore,
    bucket: &'a str,
    keys: &'a [String],
}

/// Reads and imports every object of `source`. An object that cannot be read, or is not
/// GZIP when it should be, is one error and the import goes on with the next object.
fn read_objects(
    engine: &Engine,
    table: &str,
    source: &Source<'_>,
    gzip: bool,
    format: &Format,
    types: &HashMap<String, AttributeType>,
) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    for key in source.keys {
        let raw = match source.store.get_object(source.bucket, key) {
            Ok(raw) => raw,
            Err(e) => {
                counts.error(format!("{key}: {e}"));
                continue;
            }
        };
        counts.bytes += raw.len() as i64;
        let text = if gzip {
            let mut text = Vec::new();
            if let Err(e) = MultiGzDecoder::new(raw.as_slice()).read_to_end(&mut text) {
                counts.error(format!("{key}: not gzip: {e}"));
                continue;
            }
            text
        } else {
            raw
        };
        let items: Vec<Result<Item, String>> = match format {
            Format::DynamoDbJson => json_items(&text),
            Format::Csv { delimiter, header } => csv_items(&text, *delimiter, header.as_deref(), types),
        };
        for item in items {
            counts.processed += 1;
            let item = match item {
                Ok(item) => item,
                Err(e) => {
                    counts.error(format!("{key}: {e}"));
                    continue;
                }
            };
            let put = PutItemInput {
                table_name: Some(table.to_owned()),
                item: Some(item),
                ..PutItemInput::default()
            };
            match engine.put_item(put) {
                Ok(_) => counts.imported += 1,
                Err(e) if e.kind == ErrorKind::InternalServerError => return Err(e),
                Err(e) => counts.error(format!("{key}: {}", e.message)),
            }
        }
    }
    Ok(counts)
}

/// The `{"Item": ...}` documents of one object; a syntax error ends the object.
fn json_items(text: &[u8]) -> Vec<Result<Item, String>> {
    let mut items = Vec::new();
    for document in serde_json::Deserializer::from_slice(text).into_iter::<serde_json::Value>() {
        match document {
            Ok(v) => {
                items.push(serde_json::from_value::<Document>(v).map(|d| d.item).map_err(|e| e.to_string()))
            }
            Err(e) => {
                items.push(Err(e.to_string()));
                break;
            }
        }
    }
    items
}

/// The data records of one CSV object as items; an unreadable object is one error.
fn csv_items(
    text: &[u8],
    delimiter: char,
    header: Option<&[String]>,
    types: &HashMap<String, AttributeType>,
) -> Vec<Result<Item, String>> {
    let parsed =
        std::str::from_utf8(text).map_err(|e| e.to_string()).and_then(|t| csv::records(t, delimiter));
    let mut records = match parsed {
        Ok(records) => records.into_iter(),
        Err(e) => return vec![Err(e)],
    };
    let header: Vec<String> = match header {
        Some(h) => h.to_vec(),
        None => match records.next() {
            Some(first) => first,
            None => return Vec::new(),
        },
    };
    records.map(|record| csv::item(&header, &record, types)).collect()
}

pub(in crate::engine) fn describe_import(
    inner: &Inner,
    input: DescribeImportInput,
) -> Result<DescribeImportOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("importArn", input.import_arn.is_some());
    c.finish()?;
    let arn = input.import_arn.unwrap_or_default();
    let found = inner
        .transfers
        .imports
        .lock()
        .iter()
        .find(|i| i.import_arn.as_deref() == Some(arn.as_str()))
        .cloned();
    let d = found.ok_or_else(|| Error::new(ErrorKind::ImportNotFound, format!("Import not found: {arn}")))?;
    Ok(DescribeImportOutput { import_table_description: Some(d) })
}

pub(in crate::engine) fn list_imports(
    inner: &Inner,
    input: ListImportsInput,
) -> Result<ListImportsOutput, Error> {
    let mut c = Constraints::default();
    c.range(input.page_size, "pageSize", 1, Some(25));
    c.finish()?;
    let table = input.table_arn.as_deref();
    let all: Vec<ImportSummary> = inner
        .transfers
        .imports
        .lock()
        .iter()
        .filter(|i| table.is_none() || i.table_arn.as_deref() == table)
        .map(|i| ImportSummary {
            import_arn: i.import_arn.clone(),
            import_status: i.import_status.clone(),
            table_arn: i.table_arn.clone(),
            s3_bucket_source: i.s3_bucket_source.clone(),
            cloud_watch_log_group_arn: None,
            input_format: i.input_format.clone(),
            start_time: i.start_time,
            end_time: i.end_time,
        })
        .collect();
    let (list, next_token) = page(&all, input.page_size.unwrap_or(25) as usize, input.next_token.as_deref())?;
    Ok(ListImportsOutput { import_summary_list: Some(list), next_token })
}
