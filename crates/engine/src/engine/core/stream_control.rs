//! Streams in the control plane: enabling and disabling a table's stream (CreateTable,
//! UpdateTable), what DescribeTable shows of it, and reopening the log at start-up.

use std::sync::Arc;

use super::Inner;
use crate::api::{StreamSpecification, TableDescription};
use crate::storage::KeyRange;
use crate::stream::{self, Info, Log, ViewType, Writer};
use crate::table::Meta;
use crate::validate::Constraints;
use crate::Error;

/// `StreamViewType`'s enum values, in the order DynamoDB lists them.
const VIEW_TYPES: &[&str] = &["NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES", "KEYS_ONLY"];

/// The member checks of a `StreamSpecification`.
pub(in crate::engine) fn constraints(c: &mut Constraints, spec: Option<&StreamSpecification>) {
    if let Some(s) = spec {
        c.not_null("streamSpecification.streamEnabled", s.stream_enabled.is_some());
        c.one_of(s.stream_view_type.as_deref(), "streamSpecification.streamViewType", VIEW_TYPES);
    }
}

/// The view type an enabling specification asks for (`None` for a disabling one).
fn requested(spec: &StreamSpecification) -> Result<Option<ViewType>, Error> {
    // Texts as DynamoDB answered them (aws-controllers-k8s DynamoDB findings, DDB-TABLE-050).
    if spec.stream_enabled != Some(true) {
        if spec.stream_view_type.is_some() {
            return Err(Error::invalid_param(
                "If stream is being disabled, then UpdateViewType must not be specified",
            ));
        }
        return Ok(None);
    }
    let view =
        spec.stream_view_type.as_deref().and_then(ViewType::parse).ok_or_else(|| {
            Error::invalid_param("If stream is being enabled then UpdateViewType is required")
        })?;
    Ok(Some(view))
}

/// Applies `spec` to a table: enables a new stream or disables the current one, returning the
/// writer the schema must carry from now on. The caller holds the table's gate exclusively (or
/// the table is not yet visible), so no write is staged while the stream changes.
///
/// DynamoDB refuses to enable a stream on a table that has one enabled (whatever the view
/// type: changing it needs a disable first) with "Table already has an enabled stream:
/// TableName: <name>", and to disable a stream that is not enabled with "Table has no stream
/// to disable: TableName: <name>" (aws-controllers-k8s DynamoDB findings, DDB-TABLE-050;
/// scylladb/scylladb#6939). After a disable, DescribeTable omits `StreamSpecification` but
/// keeps `LatestStreamArn`/`LatestStreamLabel`; every enabling makes a new ARN.
pub(in crate::engine) fn apply(
    inner: &Inner,
    name: &str,
    meta: &mut Meta,
    spec: &StreamSpecification,
) -> Result<Option<Arc<Writer>>, Error> {
    let now = stream::now_millis();
    let enabled = meta.streams.last().is_some_and(|s| s.disabled.is_none());
    match requested(spec)? {
        Some(_) if enabled => {
            Err(Error::validation(format!("Table already has an enabled stream: TableName: {name}")))
        }
        None if !enabled => {
            Err(Error::validation(format!("Table has no stream to disable: TableName: {name}")))
        }
        None => {
            let log = meta.log.clone().ok_or_else(|| Error::internal("stream without a log"))?;
            let last = log.sequencer.next() - 1;
            if let Some(s) = meta.streams.last_mut() {
                s.disabled = Some((now, last));
            }
            set_description(&mut meta.description, meta.streams.last(), false);
            Ok(None)
        }
        Some(view) => {
            let log = match &meta.log {
                Some(log) => Arc::clone(log),
                None => {
                    let table_id = meta.description.table_id.clone().unwrap_or_default();
                    let log = open_log(inner, &table_id)?;
                    meta.log = Some(Arc::clone(&log));
                    log
                }
            };
            // Labels name streams; two enablings in one millisecond still get distinct ones,
            // also against the retained streams of a deleted table of the same name (their
            // ARNs share the table part).
            let mut created = now;
            let taken = |label: &str| {
                meta.streams.iter().any(|s| s.label == label)
                    || inner.retired.lock().iter().any(|r| {
                        r.entry.table_name == name && r.entry.streams.iter().any(|s| s.label == label)
                    })
            };
            while taken(&stream::iso_label(created)) {
                created += 1;
            }
            meta.streams.retain(|s| s.readable(now));
            meta.streams.push(Info {
                label: stream::iso_label(created),
                view_type: view.name().to_owned(),
                created_ms: created,
                start_seq: log.sequencer.next(),
                disabled: None,
            });
            set_description(&mut meta.description, meta.streams.last(), true);
            Ok(Some(Arc::new(Writer { log, view_type: view })))
        }
    }
}

/// Sets the stream members of a table description: `StreamSpecification` while a stream is
/// enabled, `LatestStreamLabel`/`LatestStreamArn` for the newest stream, enabled or not.
fn set_description(d: &mut TableDescription, latest: Option<&Info>, enabled: bool) {
    let arn = d.table_arn.clone().unwrap_or_default();
    d.stream_specification = latest.filter(|_| enabled).map(|s| StreamSpecification {
        stream_enabled: Some(true),
        stream_view_type: Some(s.view_type.clone()),
    });
    d.latest_stream_label = latest.map(|s| s.label.clone());
    d.latest_stream_arn = latest.map(|s| format!("{arn}/stream/{}", s.label));
}

/// Opens a table's log keyspace, continuing its sequence after the newest stored record.
pub(in crate::engine) fn open_log(inner: &Inner, table_id: &str) -> Result<Arc<Log>, Error> {
    let keyspace = inner.storage.open_keyspace(&stream::keyspace_name(table_id))?;
    let mut last = 0;
    let range =
        KeyRange { start: std::ops::Bound::Unbounded, end: std::ops::Bound::Unbounded, reverse: true };
    keyspace.scan(&range, &mut |key, _| {
        last = stream::key_seq(key).unwrap_or(0);
        false
    })?;
    Ok(Arc::new(Log::new(keyspace, last + 1)))
}

/// At start-up: reopens the log of a table that has had streams and returns the writer of its
/// enabled stream.
pub(in crate::engine) fn reopen(inner: &Inner, meta: &mut Meta) -> Result<Option<Arc<Writer>>, Error> {
    if meta.streams.is_empty() {
        return Ok(None);
    }
    let table_id = meta.description.table_id.clone().unwrap_or_default();
    let log = open_log(inner, &table_id)?;
    meta.log = Some(Arc::clone(&log));
    Ok(meta
        .streams
        .last()
        .filter(|s| s.disabled.is_none())
        .and_then(|s| ViewType::parse(&s.view_type))
        .map(|view_type| Arc::new(Writer { log, view_type })))
}

/// Drops a deleted table's log keyspace.
pub(in crate::engine) fn drop_log(inner: &Inner, meta: &Meta) -> Result<(), Error> {
    if let Some(log) = &meta.log {
        inner.storage.drop_keyspace(log.keyspace.name())?;
    }
    Ok(())
}
