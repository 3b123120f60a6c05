//! [`ChangeConsumer`]: reads a table's stream through `aws-sdk-dynamodbstreams` and hands each
//! record, typed, to a [`Handler`], keeping a [`Checkpoint`] per shard.
//!
//! Invariants:
//! - records of a shard reach the handler in sequence order, and a child shard is read only
//!   after its parent is read to its end (DynamoDB's order guarantee holds across a split);
//! - the checkpoint of a shard is only ever a record the handler has returned `Ok` for, and
//!   every record before it in the shard was handled too; a handler error therefore leaves
//!   the failed record to be delivered again (at least once, like Lambda's retry);
//! - a consumer resumes after its checkpoint (`AFTER_SEQUENCE_NUMBER`); only a shard with no
//!   checkpoint starts at the configured [`StartAt`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use aws_sdk_dynamodbstreams::Client as StreamsClient;

use super::checkpoint::{Checkpoint, MemoryCheckpoint};
use super::decode::ChangeDecoder;
use super::handler::Handler;
use crate::entity::Collection;
use crate::error::{backend, code_of, Error};
use crate::table::Table;

/// Where a shard without a checkpoint starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StartAt {
    /// At the oldest record still in the stream (the last 24 hours).
    #[default]
    TrimHorizon,
    /// After the newest record: only changes made from now on. Shards that appear later (a
    /// split) start at their beginning, so nothing written after the start is missed.
    Latest,
}

/// "GetRecords can return an empty Records list even when the shard contains records further
/// on: it might take multiple calls to get to a portion of the shard that contains stream
/// records" (DynamoDB Streams API reference, GetRecords). An open shard is taken as read to
/// its current end after this many empty pages in a row.
const EMPTY_PAGES_AT_END: usize = 3;

/// The largest page GetRecords returns (Streams API reference: `Limit`, 1 to 1000).
const MAX_BATCH: i32 = 1000;

struct Shard {
    parent: Option<String>,
    /// The iterator to read next with; `None` until acquired, and after an error.
    iterator: Option<String>,
    /// The last record handled in this process (ahead of a checkpoint load).
    last: Option<String>,
    /// A record that failed in this process, to be read again first.
    retry: Option<String>,
    /// Where to start without a checkpoint.
    start: StartAt,
    /// A closed shard read to its end.
    finished: bool,
}

/// Builds a [`ChangeConsumer`]; see [`ChangeConsumer::builder`].
pub struct ConsumerBuilder<C> {
    table: Table,
    streams: StreamsClient,
    start: StartAt,
    checkpoint: Arc<dyn Checkpoint>,
    batch_size: i32,
    decoder: ChangeDecoder<C>,
}

impl<C: Collection + Sync> ConsumerBuilder<C> {
    /// Where shards without a checkpoint start (default [`StartAt::TrimHorizon`]).
    pub fn start_at(mut self, start: StartAt) -> Self {
        self.start = start;
        self
    }

    /// Where the position is kept (default: a fresh [`MemoryCheckpoint`]).
    pub fn checkpoint(mut self, checkpoint: impl Checkpoint + 'static) -> Self {
        self.checkpoint = Arc::new(checkpoint);
        self
    }

    /// Records read per GetRecords call, 1 to 1000 (default 100, Lambda's default batch size).
    pub fn batch_size(mut self, records: u16) -> Self {
        self.batch_size = i32::from(records).clamp(1, MAX_BATCH);
        self
    }

    /// Finds the table's latest stream (DescribeTable); [`Error::NoStream`] if it has none.
    pub async fn build(self) -> Result<ChangeConsumer<C>, Error> {
        let name = self.table.name().to_string();
        let out = self
            .table
            .client()
            .describe_table()
            .table_name(&name)
            .send()
            .await
            .map_err(|e| backend("DescribeTable", e).on_table(&name))?;
        let stream_arn = out
            .table()
            .and_then(|t| t.latest_stream_arn())
            .map(str::to_string)
            .ok_or(Error::NoStream { table: name })?;
        Ok(ChangeConsumer {
            streams: self.streams,
            decoder: self.decoder,
            stream_arn,
            checkpoint: self.checkpoint,
            start: self.start,
            batch_size: self.batch_size,
            shards: HashMap::new(),
        })
    }
}

/// Reads one table's stream and delivers typed [`ChangeRecord`](super::ChangeRecord)s to a
/// handler, in order per shard, resuming after its checkpoint.
///
/// ```no_run
/// # use monotable::changes::{ChangeConsumer, ChangeRecord, FileCheckpoint, Only};
/// # #[derive(Clone, serde::Serialize, serde::Deserialize, monotable::Entity)]
/// # #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
/// # struct Record { org_id: String, id: String }
/// # async fn demo(table: monotable::Table, streams: aws_sdk_dynamodbstreams::Client) -> Result<(), monotable::Error> {
/// let mut consumer = ChangeConsumer::<Only<Record>>::builder(&table, streams)
///     .checkpoint(FileCheckpoint::new("records.checkpoint.json"))
///     .build()
///     .await?;
/// let handled = consumer
///     .catch_up(&mut |change: ChangeRecord<Only<Record>>| async move {
///         println!("{:?} {:?}", change.kind, change.new_entity().map(|r| &r.0.id));
///         Ok::<(), std::io::Error>(())
///     })
///     .await?;
/// # let _ = handled; Ok(()) }
/// ```
pub struct ChangeConsumer<C> {
    streams: StreamsClient,
    decoder: ChangeDecoder<C>,
    stream_arn: String,
    checkpoint: Arc<dyn Checkpoint>,
    start: StartAt,
    batch_size: i32,
    shards: HashMap<String, Shard>,
}

impl<C: Collection + Sync> ChangeConsumer<C> {
    /// A consumer of `table`'s stream, read with `streams` (a client of the same endpoint as
    /// the table's; `monotable::embedded::streams_client_for` in process).
    pub fn builder(table: &Table, streams: StreamsClient) -> ConsumerBuilder<C> {
        ConsumerBuilder {
            table: table.clone(),
            streams,
            start: StartAt::default(),
            checkpoint: Arc::new(MemoryCheckpoint::new()),
            batch_size: 100,
            decoder: ChangeDecoder::for_table(table),
        }
    }

    /// The ARN of the stream being read.
    pub fn stream_arn(&self) -> &str {
        &self.stream_arn
    }

    /// Delivers every record visible now, shard by shard, and returns how many were handled.
    /// Stops at the first handler error ([`Error::Handler`]) with the checkpoint on the
    /// record before it; the next call (or the next consumer on the same checkpoint) delivers
    /// the failed record again.
    pub async fn catch_up<H: Handler<C>>(&mut self, handler: &mut H) -> Result<usize, Error> {
        self.discover().await?;
        let mut handled = 0;
        let mut done: Vec<String> = Vec::new();
        // Parents before children: a shard is read once its parent is finished, or when the
        // parent is no longer listed (trimmed, or never seen).
        loop {
            let ready: Vec<String> = self
                .shards
                .iter()
                .filter(|(id, s)| !s.finished && !done.contains(id))
                .filter(|(_, s)| {
                    s.parent.as_ref().is_none_or(|p| self.shards.get(p).is_none_or(|parent| parent.finished))
                })
                .map(|(id, _)| id.clone())
                .collect();
            if ready.is_empty() {
                return Ok(handled);
            }
            for id in ready {
                handled += self.drain(&id, handler).await?;
                done.push(id);
            }
        }
    }

    /// Calls [`catch_up`](Self::catch_up) every `poll_interval` (Lambda polls each shard four
    /// times a second) until it fails. Run it as a task and drop it to stop.
    pub async fn run<H: Handler<C>>(
        &mut self,
        handler: &mut H,
        poll_interval: Duration,
    ) -> Result<std::convert::Infallible, Error> {
        loop {
            self.catch_up(handler).await?;
            tokio::time::sleep(poll_interval).await;
        }
    }

    /// Lists the stream's shards (DescribeStream, every page) and adds new ones.
    async fn discover(&mut self) -> Result<(), Error> {
        let first_time = self.shards.is_empty();
        let mut after: Option<String> = None;
        loop {
            let out = self
                .streams
                .describe_stream()
                .stream_arn(&self.stream_arn)
                .set_exclusive_start_shard_id(after.take())
                .send()
                .await
                .map_err(|e| backend("DescribeStream", e))?;
            let Some(desc) = out.stream_description() else { return Ok(()) };
            for s in desc.shards() {
                let Some(id) = s.shard_id() else { continue };
                self.shards.entry(id.to_string()).or_insert_with(|| Shard {
                    parent: s.parent_shard_id().map(str::to_string),
                    iterator: None,
                    last: None,
                    retry: None,
                    start: if first_time { self.start } else { StartAt::TrimHorizon },
                    finished: false,
                });
            }
            match desc.last_evaluated_shard_id() {
                Some(last) => after = Some(last.to_string()),
                None => return Ok(()),
            }
        }
    }

    /// An iterator positioned after the shard's last handled record, or at its start.
    async fn acquire(&mut self, shard_id: &str) -> Result<String, Error> {
        let Some(shard) = self.shards.get(shard_id) else {
            return Err(Error::Backend {
                operation: "GetShardIterator",
                code: None,
                message: "unknown shard".into(),
            });
        };
        let (last, retry, start) = (shard.last.clone(), shard.retry.clone(), shard.start);
        let after = match last {
            Some(seq) => Some(seq),
            None => self.checkpoint.load(&self.stream_arn, shard_id).await?,
        };
        // A failed record is read again at its own sequence number: with `StartAt::Latest`
        // and nothing handled yet, there is no earlier record to read after.
        let (kind, at) = match (retry, &after, start) {
            (Some(seq), _, _) => (ShardIteratorType::AtSequenceNumber, Some(seq)),
            (None, Some(seq), _) => (ShardIteratorType::AfterSequenceNumber, Some(seq.clone())),
            (None, None, StartAt::TrimHorizon) => (ShardIteratorType::TrimHorizon, None),
            (None, None, StartAt::Latest) => (ShardIteratorType::Latest, None),
        };
        let out = self
            .streams
            .get_shard_iterator()
            .stream_arn(&self.stream_arn)
            .shard_id(shard_id)
            .shard_iterator_type(kind)
            .set_sequence_number(at)
            .send()
            .await;
        match out {
            Ok(o) => o.shard_iterator().map(str::to_string).ok_or_else(|| Error::Backend {
                operation: "GetShardIterator",
                code: None,
                message: "the response has no ShardIterator".into(),
            }),
            Err(e) if code_of(&e) == Some("TrimmedDataAccessException") => {
                Err(Error::StreamTrimmed { shard_id: shard_id.to_string(), after })
            }
            Err(e) => Err(backend("GetShardIterator", e)),
        }
    }

    /// Reads one shard to its current end, delivering each record.
    async fn drain<H: Handler<C>>(&mut self, shard_id: &str, handler: &mut H) -> Result<usize, Error> {
        let mut handled = 0;
        let mut empty_pages = 0;
        let mut reacquired = false;
        loop {
            let iterator = match self.shards.get_mut(shard_id).and_then(|s| s.iterator.take()) {
                Some(it) => it,
                None => self.acquire(shard_id).await?,
            };
            let page =
                match self.streams.get_records().shard_iterator(iterator).limit(self.batch_size).send().await
                {
                    Ok(page) => page,
                    // An iterator lives 15 minutes; a fresh one from the same position is equivalent.
                    Err(e) if code_of(&e) == Some("ExpiredIteratorException") && !reacquired => {
                        reacquired = true;
                        continue;
                    }
                    Err(e) if code_of(&e) == Some("TrimmedDataAccessException") => {
                        let after = self.position(shard_id).await?;
                        return Err(Error::StreamTrimmed { shard_id: shard_id.to_string(), after });
                    }
                    Err(e) => return Err(backend("GetRecords", e)),
                };
            reacquired = false;
            let mut last_ok: Option<String> = None;
            let mut failure = None;
            for r in page.records() {
                let change = match self.decoder.decode_stream_record(&self.stream_arn, r) {
                    Ok(change) => change,
                    Err(e) => {
                        failure = Some((change_seq(r), e));
                        break;
                    }
                };
                if let Err(e) = handler.handle(&change).await {
                    let seq = change.sequence_number.clone();
                    failure = Some((seq.clone(), Error::Handler { sequence_number: seq, source: e.into() }));
                    break;
                }
                handled += 1;
                last_ok = Some(change.sequence_number);
            }
            if let Some(seq) = &last_ok {
                self.checkpoint.save(&self.stream_arn, shard_id, seq).await?;
            }
            let Some(shard) = self.shards.get_mut(shard_id) else { return Ok(handled) };
            if last_ok.is_some() {
                shard.last = last_ok;
                shard.retry = None;
            }
            if let Some((seq, e)) = failure {
                // No iterator kept: the next read starts at the failed record.
                shard.retry = (!seq.is_empty()).then_some(seq);
                return Err(e);
            }
            match page.next_shard_iterator() {
                None => {
                    shard.finished = true;
                    return Ok(handled);
                }
                Some(next) => shard.iterator = Some(next.to_string()),
            }
            if page.records().is_empty() {
                empty_pages += 1;
                if empty_pages >= EMPTY_PAGES_AT_END {
                    return Ok(handled);
                }
            } else {
                empty_pages = 0;
            }
        }
    }

    /// The shard's last handled sequence number, in this process or in the checkpoint.
    async fn position(&self, shard_id: &str) -> Result<Option<String>, Error> {
        match self.shards.get(shard_id).and_then(|s| s.last.clone()) {
            Some(seq) => Ok(Some(seq)),
            None => self.checkpoint.load(&self.stream_arn, shard_id).await,
        }
    }
}

fn change_seq(r: &aws_sdk_dynamodbstreams::types::Record) -> String {
    r.dynamodb().and_then(|d| d.sequence_number()).unwrap_or_default().to_string()
}
