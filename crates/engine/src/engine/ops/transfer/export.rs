//! ExportTableToPointInTime, DescribeExport, ListExports.
//!
//! An export writes DynamoDB's layout (developer guide, "DynamoDB table export output
//! format"): under `<prefix>/AWSDynamoDB/<ExportId>/` an empty `_started`, one gzip file of
//! DynamoDB JSON lines (`{"Item": {...}}`) in `data/`, `manifest-files.json` (one line per
//! data file: itemCount, md5Checksum, etag, dataFileS3Key) and `manifest-summary.json`.
//! Items are read at the moment of the request; `ExportTime` in the past is not honoured
//! (no history is kept). Only FULL_EXPORT in DYNAMODB_JSON is written.
//!
//! Sources for the checks: moto's AWS-verified tests/test_dynamodb/test_dynamodb_export_table.py
//! (a missing table is `TableNotFoundException` "Table not found: `<table arn>`"; without
//! point-in-time recovery `PointInTimeRecoveryUnavailableException` "Point in time recovery is
//! not enabled for table '`<name>`'"; a missing bucket fails the export with S3NoSuchBucket;
//! ListExports summaries carry ExportArn, ExportStatus and ExportType).

use std::io::Write;

use base64::Engine as _;
use flate2::write::GzEncoder;
use flate2::Compression;
use monotable_types::{item_size, Item};
use serde::Serialize;

use super::{job_id, page};
use crate::api::*;
use crate::engine::core::bucket::{iso8601, ObjectStore, ObjectStoreError, NO_SUCH_BUCKET};
use crate::engine::core::util::{lookup, now_epoch};
use crate::engine::core::Inner;
use crate::validate::Constraints;
use crate::Engine;
use crate::{Error, ErrorKind};

#[derive(Serialize)]
struct Line<'a> {
    #[serde(rename = "Item")]
    item: &'a Item,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ManifestFile<'a> {
    item_count: i64,
    md5_checksum: String,
    etag: String,
    data_file_s3_key: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ManifestSummary<'a> {
    version: &'a str,
    export_arn: &'a str,
    start_time: String,
    end_time: String,
    table_arn: &'a str,
    table_id: &'a str,
    export_time: String,
    s3_bucket: &'a str,
    s3_prefix: Option<&'a str>,
    s3_sse_algorithm: &'a str,
    s3_sse_kms_key_id: Option<&'a str>,
    manifest_files_s3_key: &'a str,
    billed_size_bytes: i64,
    item_count: i64,
    output_format: &'a str,
    export_type: &'a str,
}

/// `^[a-z0-9A-Z]+[\.\-\w]*[a-z0-9A-Z]+$`: letters and digits at both ends, letters,
/// digits, `.`, `-` and `_` between, at least two characters.
fn is_bucket_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    let middle = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_');
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if bytes.len() >= 2 => {
            first.is_ascii_alphanumeric() && last.is_ascii_alphanumeric() && bytes.iter().all(middle)
        }
        _ => false,
    }
}

/// An export's FailureCode and FailureMessage for a store call that failed.
fn store_failure(e: ObjectStoreError) -> (String, String) {
    match e {
        ObjectStoreError::NoSuchBucket => (NO_SUCH_BUCKET.0.to_owned(), NO_SUCH_BUCKET.1.to_owned()),
        ObjectStoreError::Failed(message) => ("UNKNOWN".to_owned(), message),
    }
}

pub(in crate::engine) fn export_table_to_point_in_time(
    engine: &Engine,
    inner: &Inner,
    input: ExportTableToPointInTimeInput,
) -> Result<ExportTableToPointInTimeOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("tableArn", input.table_arn.is_some());
    c.not_null("s3Bucket", input.s3_bucket.is_some());
    if let Some(bucket) = input.s3_bucket.as_deref() {
        // API_ExportTableToPointInTime: S3Bucket "Maximum length of 255", pattern below.
        if bucket.len() > 255 {
            c.fail(bucket, "s3Bucket", "Member must have length less than or equal to 255");
        }
        if !is_bucket_name(bucket) {
            c.fail(
                bucket,
                "s3Bucket",
                "Member must satisfy regular expression pattern: ^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$",
            );
        }
    }
    // The enum set in DynamoDB's order (ScyllaDB test_export.py, verified against DynamoDB:
    // "Member must satisfy enum value set: [ION, DYNAMODB_JSON]").
    c.one_of(input.export_format.as_deref(), "exportFormat", &["ION", "DYNAMODB_JSON"]);
    c.one_of(input.export_type.as_deref(), "exportType", &["FULL_EXPORT", "INCREMENTAL_EXPORT"]);
    c.one_of(input.s3_sse_algorithm.as_deref(), "s3SseAlgorithm", &["AES256", "KMS"]);
    c.finish()?;
    let table_arn = input.table_arn.clone().unwrap_or_default();
    let table = lookup(inner, &table_arn)
        .ok_or_else(|| Error::new(ErrorKind::TableNotFound, format!("Table not found: {table_arn}")))?;
    if !table.meta.lock().sub.pitr.as_ref().is_some_and(|p| p.enabled) {
        return Err(Error::new(
            ErrorKind::PointInTimeRecoveryUnavailable,
            format!("Point in time recovery is not enabled for table '{}'", table.name),
        ));
    }
    // An ExportTime outside the recovery window (ScyllaDB test_export.py, verified against
    // DynamoDB: one before the table existed is InvalidExportTimeException "Export Time is
    // invalid"); monotable also refuses one in the future.
    let earliest = table.meta.lock().sub.pitr.as_ref().map_or(0.0, |p| p.enabled_at);
    if input.export_time.is_some_and(|t| t < earliest.floor() || t > now_epoch()) {
        return Err(Error::new(ErrorKind::InvalidExportTime, "Export Time is invalid"));
    }
    let format = input.export_format.clone().unwrap_or_else(|| "DYNAMODB_JSON".into());
    let export_type = input.export_type.clone().unwrap_or_else(|| "FULL_EXPORT".into());
    if format != "DYNAMODB_JSON" || export_type != "FULL_EXPORT" {
        return Err(Error::validation(format!(
            "monotable writes only FULL_EXPORT exports in DYNAMODB_JSON, not {export_type} in {format}"
        )));
    }
    let (arn, table_id) = {
        let meta = table.meta.lock();
        (meta.description.table_arn.clone().unwrap_or_default(), meta.description.table_id.clone())
    };
    let id = job_id();
    let start = now_epoch();
    let prefix = input.s3_prefix.clone().filter(|p| !p.is_empty());
    let base = match &prefix {
        Some(p) => format!("{}/AWSDynamoDB/{id}", p.trim_end_matches('/')),
        None => format!("AWSDynamoDB/{id}"),
    };
    let mut description = ExportDescription {
        export_arn: Some(format!("{arn}/export/{id}")),
        export_status: Some("COMPLETED".into()),
        start_time: Some(start),
        table_arn: Some(arn.clone()),
        table_id,
        export_time: Some(input.export_time.unwrap_or(start)),
        client_token: input.client_token.clone(),
        s3_bucket: input.s3_bucket.clone(),
        s3_bucket_owner: input.s3_bucket_owner.clone(),
        s3_prefix: prefix.clone(),
        s3_sse_algorithm: Some(input.s3_sse_algorithm.clone().unwrap_or_else(|| "AES256".into())),
        s3_sse_kms_key_id: input.s3_sse_kms_key_id.clone(),
        export_format: Some(format),
        export_type: Some(export_type),
        ..ExportDescription::default()
    };
    let store = inner.transfers.store();
    let bucket = input.s3_bucket.as_deref().unwrap_or_default();
    let written = match store.bucket_exists(bucket) {
        Ok(false) => Err(store_failure(ObjectStoreError::NoSuchBucket)),
        Ok(true) => write_export(engine, &table.name, store.as_ref(), bucket, &base, &mut description),
        Err(e) => Err(store_failure(e)),
    };
    if let Err((code, message)) = written {
        description.export_status = Some("FAILED".into());
        description.failure_code = Some(code);
        description.failure_message = Some(message);
    }
    description.end_time = Some(now_epoch());
    inner.transfers.exports.lock().push(description.clone());
    Ok(ExportTableToPointInTimeOutput { export_description: Some(description) })
}

/// Writes the export's objects; on failure returns its FailureCode and FailureMessage.
fn write_export(
    engine: &Engine,
    table: &str,
    store: &dyn ObjectStore,
    bucket: &str,
    base: &str,
    d: &mut ExportDescription,
) -> Result<(), (String, String)> {
    let put = |key: String, body: Vec<u8>| store.put_object(bucket, &key, body).map_err(store_failure);
    put(format!("{base}/_started"), Vec::new())?;
    let data_key = format!("{base}/data/{}.json.gz", uuid::Uuid::new_v4().simple());
    let (gz, items, bytes) = data_file(engine, table).map_err(|e| ("UNKNOWN".to_owned(), e.message))?;
    let digest = md5::compute(&gz);
    put(data_key.clone(), gz)?;
    let manifest_files_key = format!("{base}/manifest-files.json");
    let mut files = serde_json::to_vec(&ManifestFile {
        item_count: items,
        md5_checksum: base64::engine::general_purpose::STANDARD.encode(digest.0),
        etag: format!("{digest:x}"),
        data_file_s3_key: &data_key,
    })
    .map_err(|e| ("UNKNOWN".to_owned(), e.to_string()))?;
    files.push(b'\n');
    put(manifest_files_key.clone(), files)?;
    d.item_count = Some(items);
    d.billed_size_bytes = Some(bytes);
    d.export_manifest = Some(format!("{base}/manifest-summary.json"));
    let now = now_epoch();
    let summary = ManifestSummary {
        version: "2020-06-30",
        export_arn: d.export_arn.as_deref().unwrap_or_default(),
        start_time: iso8601(d.start_time.unwrap_or(now)),
        end_time: iso8601(now),
        table_arn: d.table_arn.as_deref().unwrap_or_default(),
        table_id: d.table_id.as_deref().unwrap_or_default(),
        export_time: iso8601(d.export_time.unwrap_or(now)),
        s3_bucket: d.s3_bucket.as_deref().unwrap_or_default(),
        s3_prefix: d.s3_prefix.as_deref(),
        s3_sse_algorithm: d.s3_sse_algorithm.as_deref().unwrap_or("AES256"),
        s3_sse_kms_key_id: d.s3_sse_kms_key_id.as_deref(),
        manifest_files_s3_key: &manifest_files_key,
        billed_size_bytes: bytes,
        item_count: items,
        output_format: "DYNAMODB_JSON",
        export_type: "FULL_EXPORT",
    };
    let summary = serde_json::to_vec(&summary).map_err(|e| ("UNKNOWN".to_owned(), e.to_string()))?;
    put(format!("{base}/manifest-summary.json"), summary)?;
    Ok(())
}

/// Every item of `table` as gzip-compressed DynamoDB JSON lines, with the item count and
/// their total size, a Scan page at a time.
fn data_file(engine: &Engine, table: &str) -> Result<(Vec<u8>, i64, i64), Error> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    let (mut items, mut bytes) = (0i64, 0i64);
    let mut start = None;
    loop {
        let page = engine.scan(ScanInput {
            table_name: Some(table.to_owned()),
            exclusive_start_key: start,
            consistent_read: Some(true),
            ..ScanInput::default()
        })?;
        for item in page.items.unwrap_or_default() {
            let mut line =
                serde_json::to_vec(&Line { item: &item }).map_err(|e| Error::internal(e.to_string()))?;
            line.push(b'\n');
            gz.write_all(&line).map_err(|e| Error::internal(e.to_string()))?;
            items += 1;
            bytes += item_size(&item) as i64;
        }
        start = page.last_evaluated_key;
        if start.is_none() {
            break;
        }
    }
    let gz = gz.finish().map_err(|e| Error::internal(e.to_string()))?;
    Ok((gz, items, bytes))
}

pub(in crate::engine) fn describe_export(
    inner: &Inner,
    input: DescribeExportInput,
) -> Result<DescribeExportOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("exportArn", input.export_arn.is_some());
    c.finish()?;
    let arn = input.export_arn.unwrap_or_default();
    let found = inner
        .transfers
        .exports
        .lock()
        .iter()
        .find(|e| e.export_arn.as_deref() == Some(arn.as_str()))
        .cloned();
    let d = found.ok_or_else(|| Error::new(ErrorKind::ExportNotFound, format!("Export not found: {arn}")))?;
    Ok(DescribeExportOutput { export_description: Some(d) })
}

pub(in crate::engine) fn list_exports(
    inner: &Inner,
    input: ListExportsInput,
) -> Result<ListExportsOutput, Error> {
    let mut c = Constraints::default();
    c.range(input.max_results, "maxResults", 1, Some(25));
    c.finish()?;
    let table = input.table_arn.as_deref();
    let all: Vec<ExportSummary> = inner
        .transfers
        .exports
        .lock()
        .iter()
        .filter(|e| table.is_none() || e.table_arn.as_deref() == table)
        .map(|e| ExportSummary {
            export_arn: e.export_arn.clone(),
            export_status: e.export_status.clone(),
            export_type: e.export_type.clone(),
        })
        .collect();
    let (summaries, next_token) =
        page(&all, input.max_results.unwrap_or(25) as usize, input.next_token.as_deref())?;
    Ok(ListExportsOutput { export_summaries: Some(summaries), next_token })
}
