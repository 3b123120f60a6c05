//! The DynamoDB Streams API: ListStreams, DescribeStream, GetShardIterator, GetRecords.
//!
//! Each stream has exactly one shard (DynamoDB splits shards by throughput; one process never
//! needs to). A shard iterator is `<stream ARN>|1|<position>|<issued ms>`, where the position
//! is the sequence number of the next record to read; it expires 15 minutes after it was
//! issued. Records older than 24 hours are trimmed when a reader meets them.

use std::ops::Bound;
use std::sync::Arc;

use crate::api::*;
use crate::engine::core::retired_streams::{self, RetiredEntry};
use crate::engine::core::util::lookup;
use crate::engine::core::Inner;
use crate::storage::{KeyRange, WriteBatch};
use crate::stream::{self, Info, Log, RETENTION_MILLIS};
use crate::table::Table;
use crate::validate::Constraints;
use crate::{Error, ErrorKind};

/// "A shard iterator expires 15 minutes after it is returned to the requester" (Streams API
/// reference, GetShardIterator).
const ITERATOR_LIFETIME_MILLIS: u64 = 15 * 60 * 1000;

/// A stream found by its ARN: of a table, or of a deleted table whose streams are retained.
struct Found {
    table_name: String,
    key_schema: Option<Vec<KeySchemaElement>>,
    info: Info,
    log: Arc<Log>,
    arn: String,
}

fn stream_not_found(arn: &str) -> Error {
    Error::new(ErrorKind::ResourceNotFound, format!("Requested resource not found: Stream: {arn} not found"))
}

/// Refuses a stream ARN that is not of the form
/// `arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>`:
/// ValidationException "Invalid StreamArn" (the AWS SDK for JavaScript's integration test of
/// DynamoDB Streams, `describeStream` with `fake-stream`; ScyllaDB's test_streams.py,
/// `test_describe_nonexistent_stream` and `test_get_shard_iterator_for_nonexistent_stream`,
/// run against DynamoDB, where DynamoDB Local answers ResourceNotFoundException). A
/// well-formed ARN that names no stream is ResourceNotFoundException.
fn check_stream_arn(arn: &str) -> Result<(), Error> {
    let resource = arn.strip_prefix("arn:").and_then(|rest| {
        let mut parts = rest.splitn(5, ':');
        let (_partition, service, _region, _account, resource) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        (service == "dynamodb").then_some(resource)
    });
    let well_formed = resource
        .and_then(|r| r.strip_prefix("table/"))
        .and_then(|r| r.split_once("/stream/"))
        .is_some_and(|(name, label)| !name.is_empty() && !name.contains('/') && !label.is_empty());
    if well_formed {
        Ok(())
    } else {
        Err(Error::validation("Invalid StreamArn"))
    }
}

/// Finds a readable stream by its ARN (`<table ARN>/stream/<label>`): first among the
/// table's streams, then among those of deleted tables of that name.
fn find(inner: &Inner, arn: &str) -> Result<Found, Error> {
    check_stream_arn(arn)?;
    let rest = arn.strip_prefix(inner.arn_prefix.as_str()).ok_or_else(|| stream_not_found(arn))?;
    let (name, label) = rest.split_once("/stream/").ok_or_else(|| stream_not_found(arn))?;
    let now = stream::now_millis();
    let readable = |streams: &[Info]| streams.iter().find(|s| s.label == label && s.readable(now)).cloned();
    if let Some(table) = lookup(inner, name) {
        let meta = table.meta.lock();
        if let (Some(info), Some(log)) = (readable(&meta.streams), meta.log.clone()) {
            let key_schema = meta.description.key_schema.clone();
            return Ok(Found { table_name: table.name.clone(), key_schema, info, log, arn: arn.to_owned() });
        }
    }
    for r in retired_streams::live(inner)? {
        if r.entry.table_name != name {
            continue;
        }
        if let Some(info) = readable(&r.entry.streams) {
            let RetiredEntry { table_name, key_schema, .. } = r.entry;
            return Ok(Found { table_name, key_schema, info, log: r.log, arn: arn.to_owned() });
        }
    }
    Err(stream_not_found(arn))
}

fn arn_of(inner: &Inner, table_name: &str, info: &Info) -> String {
    format!("{}{table_name}/stream/{}", inner.arn_prefix, info.label)
}

pub(in crate::engine) fn list_streams(
    inner: &Inner,
    input: ListStreamsInput,
) -> Result<ListStreamsOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", false);
    c.range(input.limit, "limit", 1, Some(100));
    c.finish()?;
    let now = stream::now_millis();
    let tables: Vec<Arc<Table>> = inner.tables.read().values().cloned().collect();
    let retired = retired_streams::live(inner)?;
    let wanted = |name: &str| input.table_name.as_deref().is_none_or(|n| n == name);
    if let Some(name) = &input.table_name {
        if !tables.iter().any(|t| &t.name == name) && !retired.iter().any(|r| &r.entry.table_name == name) {
            return Err(Error::new(
                ErrorKind::ResourceNotFound,
                format!("Requested resource not found: Table: {name} not found"),
            ));
        }
    }
    // Streams of tables and of deleted tables, by table name and then by creation.
    let mut found: Vec<(String, Info)> = Vec::new();
    for t in tables.iter().filter(|t| wanted(&t.name)) {
        found.extend(
            t.meta.lock().streams.iter().filter(|s| s.readable(now)).map(|s| (t.name.clone(), s.clone())),
        );
    }
    for r in retired.iter().filter(|r| wanted(&r.entry.table_name)) {
        found.extend(
            r.entry
                .streams
                .iter()
                .filter(|s| s.readable(now))
                .map(|s| (r.entry.table_name.clone(), s.clone())),
        );
    }
    found.sort_by(|a, b| (&a.0, a.1.created_ms).cmp(&(&b.0, b.1.created_ms)));
    let mut all: Vec<StreamSummary> = found
        .into_iter()
        .map(|(name, info)| StreamSummary {
            stream_arn: Some(arn_of(inner, &name, &info)),
            table_name: Some(name),
            stream_label: Some(info.label),
        })
        .collect();
    if let Some(start) = &input.exclusive_start_stream_arn {
        check_stream_arn(start)?;
        match all.iter().position(|s| s.stream_arn.as_deref() == Some(start)) {
            Some(i) => drop(all.drain(..=i)),
            None => all.clear(),
        }
    }
    let limit = input.limit.unwrap_or(100) as usize;
    let last = (all.len() > limit).then(|| all[limit - 1].stream_arn.clone()).flatten();
    all.truncate(limit);
    Ok(ListStreamsOutput { streams: Some(all), last_evaluated_stream_arn: last })
}

/// The first sequence number still held for `info` (after trimming what is older than 24 h).
fn horizon(inner: &Inner, found: &Found, now: u64) -> Result<u64, Error> {
    trim(inner, &found.log, now)?;
    let mut first = found.info.start_seq;
    let range = KeyRange {
        start: Bound::Included(stream::seq_key(found.info.start_seq)),
        end: Bound::Unbounded,
        reverse: false,
    };
    let mut any = false;
    found.log.keyspace.scan(&range, &mut |key, _| {
        first = stream::key_seq(key).unwrap_or(first);
        any = true;
        false
    })?;
    Ok(if any { first } else { found.log.sequencer.visible().max(found.info.start_seq) })
}

/// Deletes the log's records older than 24 hours.
fn trim(inner: &Inner, log: &Log, now: u64) -> Result<(), Error> {
    let cutoff = now.saturating_sub(RETENTION_MILLIS);
    let mut old = Vec::new();
    let range = KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false };
    // A record's parts follow its metadata: they go with it.
    let (mut expired, mut records) = (false, 0usize);
    log.keyspace.scan(&range, &mut |key, item| {
        let Some((_, part)) = stream::split_key(key) else { return true };
        if part == stream::PART_META {
            expired = records < 10_000 && stream::created_ms(&item.to_item()).is_some_and(|t| t < cutoff);
            records += 1;
        }
        if expired {
            old.push(key.to_vec());
        }
        expired
    })?;
    if !old.is_empty() {
        let mut batch = WriteBatch::default();
        for key in old {
            batch.delete(&log.keyspace, key);
        }
        inner.storage.commit(batch)?;
    }
    Ok(())
}

/// The last sequence number a stream can hold (`None` while it is enabled).
fn end_seq(info: &Info) -> Option<u64> {
    info.disabled.map(|(_, last)| last)
}

pub(in crate::engine) fn describe_stream(
    inner: &Inner,
    input: DescribeStreamInput,
) -> Result<DescribeStreamOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("streamArn", input.stream_arn.is_some());
    c.range(input.limit, "limit", 1, Some(100));
    // The filter's one type (API reference, ShardFilter: `CHILD_SHARDS`); another is refused
    // (ScyllaDB's test_streams.py, `Type: 'foo'`, run against DynamoDB).
    if let Some(filter) = &input.shard_filter {
        c.one_of(filter.r#type.as_deref(), "shardFilter.type", &["CHILD_SHARDS"]);
    }
    c.finish()?;
    let found = find(inner, input.stream_arn.as_deref().unwrap_or_default())?;
    let now = stream::now_millis();
    let first = horizon(inner, &found, now)?;
    let info = &found.info;
    let shard_id = info.shard_id();
    // Shards are listed in shard-id order after `ExclusiveStartShardId`, so an id that is no
    // shard's does not restart the listing (ScyllaDB's test_streams.py,
    // `test_describe_stream_with_nonexistent_last_shard` and `list_shards`, run against
    // DynamoDB: a `zzz…` id lists nothing). The one shard has no parent, so it is nobody's
    // child: a `CHILD_SHARDS` filter lists nothing.
    let paged_past = input.exclusive_start_shard_id.as_ref().is_some_and(|s| *s >= shard_id);
    let shards = match paged_past || input.shard_filter.is_some() {
        true => Vec::new(),
        false => vec![Shard {
            shard_id: Some(shard_id),
            sequence_number_range: Some(SequenceNumberRange {
                starting_sequence_number: Some(stream::format_seq(first)),
                ending_sequence_number: end_seq(info).map(stream::format_seq),
            }),
            parent_shard_id: None,
        }],
    };
    Ok(DescribeStreamOutput {
        stream_description: Some(StreamDescription {
            stream_arn: Some(found.arn.clone()),
            stream_label: Some(info.label.clone()),
            stream_status: Some(if info.disabled.is_some() { "DISABLED" } else { "ENABLED" }.into()),
            stream_view_type: Some(info.view_type.clone()),
            creation_request_date_time: Some(info.created_ms as f64 / 1000.0),
            table_name: Some(found.table_name.clone()),
            key_schema: found.key_schema.clone(),
            shards: Some(shards),
            last_evaluated_shard_id: None,
        }),
    })
}

fn trimmed() -> Error {
    Error::new(
        ErrorKind::TrimmedDataAccess,
        "The operation attempted to read past the oldest stream record in a shard.",
    )
}

fn shard_not_found(shard: &str, arn: &str) -> Error {
    Error::new(
        ErrorKind::ResourceNotFound,
        format!("Requested resource not found: Shard does not exist: {shard} in stream {arn}"),
    )
}

pub(in crate::engine) fn get_shard_iterator(
    inner: &Inner,
    input: GetShardIteratorInput,
) -> Result<GetShardIteratorOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("streamArn", input.stream_arn.is_some());
    c.not_null("shardId", input.shard_id.is_some());
    c.not_null("shardIteratorType", input.shard_iterator_type.is_some());
    c.one_of(
        input.shard_iterator_type.as_deref(),
        "shardIteratorType",
        &["TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"],
    );
    c.finish()?;
    let found = find(inner, input.stream_arn.as_deref().unwrap_or_default())?;
    let shard = input.shard_id.as_deref().unwrap_or_default();
    if shard != found.info.shard_id() {
        return Err(shard_not_found(shard, &found.arn));
    }
    let now = stream::now_millis();
    let first = horizon(inner, &found, now)?;
    let end = end_seq(&found.info).map_or_else(|| found.log.sequencer.visible(), |e| e + 1);
    let kind = input.shard_iterator_type.as_deref().unwrap_or_default();
    let position = match kind {
        "TRIM_HORIZON" => first,
        "LATEST" => end,
        _ => {
            let text = input.sequence_number.as_deref().ok_or_else(|| {
                Error::validation(format!("Must provide a SequenceNumber for the {kind} shard iterator type"))
            })?;
            // The shard's StartingSequenceNumber is accepted even while no record has it
            // (ScyllaDB's test_streams.py, `test_get_shard_iterator`, run against DynamoDB:
            // both types at the starting number of a new stream's shard).
            let seq = stream::parse_seq(text)
                .filter(|s| *s >= found.info.start_seq && (*s < end || *s == first))
                .ok_or_else(|| {
                    Error::validation(format!(
                        "Invalid SequenceNumber for the shard: {text} is not a sequence number of shard {shard}"
                    ))
                })?;
            if seq < first {
                return Err(trimmed());
            }
            if kind == "AT_SEQUENCE_NUMBER" {
                seq
            } else {
                seq + 1
            }
        }
    };
    Ok(GetShardIteratorOutput { shard_iterator: Some(iterator(&found.arn, position, now)) })
}

fn iterator(arn: &str, position: u64, issued_ms: u64) -> String {
    format!("{arn}|1|{position}|{issued_ms}")
}

fn invalid_iterator() -> Error {
    Error::validation("Invalid ShardIterator")
}

pub(in crate::engine) fn get_records(
    inner: &Inner,
    input: GetRecordsInput,
) -> Result<GetRecordsOutput, Error> {
    let mut c = Constraints::default();
    c.not_null("shardIterator", input.shard_iterator.is_some());
    c.range(input.limit, "limit", 1, Some(1000));
    c.finish()?;
    let text = input.shard_iterator.as_deref().unwrap_or_default();
    let mut parts = text.rsplitn(4, '|');
    let (Some(issued), Some(position), Some("1"), Some(arn)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid_iterator());
    };
    let (Ok(issued), Ok(position)) = (issued.parse::<u64>(), position.parse::<u64>()) else {
        return Err(invalid_iterator());
    };
    let now = stream::now_millis();
    if now.saturating_sub(issued) > ITERATOR_LIFETIME_MILLIS {
        return Err(Error::new(
            ErrorKind::ExpiredIterator,
            format!(
                "Iterator expired. The iterator was created at time {} while right now it is {} which is further in the future than the tolerated delay of {ITERATOR_LIFETIME_MILLIS} milliseconds.",
                stream::iso_label(issued),
                stream::iso_label(now)
            ),
        ));
    }
    let found = find(inner, arn)?;
    if position < horizon(inner, &found, now)? {
        return Err(trimmed());
    }
    let end = end_seq(&found.info).map_or_else(|| found.log.sequencer.visible(), |e| e + 1);
    let limit = input.limit.unwrap_or(1000) as usize;
    let mut records = Vec::new();
    let mut next = position;
    if position < end {
        let range = KeyRange {
            start: Bound::Included(stream::seq_key(position)),
            end: Bound::Excluded(stream::seq_key(end)),
            reverse: false,
        };
        let mut assembler = stream::Assembler::new(found.log.salt, &found.info.view_type);
        let mut started = 0usize;
        found.log.keyspace.scan(&range, &mut |key, item| {
            let Some((seq, part)) = stream::split_key(key) else { return true };
            if part == stream::PART_META {
                // The parts of the last record taken come before the next one's metadata.
                if started == limit {
                    return false;
                }
                started += 1;
                next = seq + 1;
            }
            assembler.push(key, &item.to_item());
            true
        })?;
        records = assembler.finish();
        // Records are decoded naming the default region; another location's name theirs.
        if inner.location.region_name() != crate::DEFAULT_REGION {
            for record in &mut records {
                record.aws_region = Some(inner.location.region_name().to_owned());
            }
        }
        if records.len() < limit {
            // Nothing more is visible: the next read starts where visibility ends.
            next = end.max(next);
        }
    }
    // A closed shard read to its end has no next iterator.
    let closed = found.info.disabled.is_some() && next >= end;
    Ok(GetRecordsOutput {
        records: Some(records),
        next_shard_iterator: (!closed).then(|| iterator(arn, next, now)),
    })
}
