//! Checkpoints: a second consumer resumes after the first one's last record, a handler error
//! leaves the failed record to be delivered again, and an expired iterator is re-acquired.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use aws_sdk_dynamodb::types::StreamViewType;
use aws_sdk_dynamodbstreams::config::interceptors::BeforeSerializationInterceptorContextMut;
use aws_sdk_dynamodbstreams::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodbstreams::operation::get_records::GetRecordsInput;
use monotable::changes::{ChangeRecord, Checkpoint, FileCheckpoint, MemoryCheckpoint, StartAt};
use monotable::{Error, Repository};

use super::both;
use super::setup::{env, streams_with, Backend, Collect, Env};
use crate::common::{unique_name, OrgItem, Record};

fn ids(records: &[ChangeRecord<OrgItem>]) -> Vec<String> {
    records
        .iter()
        .map(|c| match c.new_entity() {
            Some(OrgItem::Record(r)) => r.id.clone(),
            other => panic!("not a record: {other:?}"),
        })
        .collect()
}

async fn create(repo: &Repository<Record>, ids: &[&str]) {
    for id in ids {
        repo.create(&Record::new("org-1", id, "open")).await.unwrap();
    }
}

/// Two consumers one after the other on one checkpoint see every record exactly once.
async fn runs_on_one_checkpoint(env: &Env, checkpoint: impl Checkpoint + Clone + 'static) {
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    create(&repo, &["a", "b", "c"]).await;
    let mut first = Collect::default();
    let mut consumer = env.consumer().checkpoint(checkpoint.clone()).build().await.unwrap();
    assert_eq!(consumer.catch_up(&mut first).await.unwrap(), 3);
    drop(consumer);
    create(&repo, &["d", "e"]).await;
    let mut second = Collect::default();
    let mut consumer = env.consumer().checkpoint(checkpoint.clone()).build().await.unwrap();
    assert_eq!(consumer.catch_up(&mut second).await.unwrap(), 2);
    assert_eq!(ids(&first.0), ["a", "b", "c"]);
    assert_eq!(ids(&second.0), ["d", "e"]);
    // Nothing new: nothing delivered, by this consumer or a third.
    assert_eq!(consumer.catch_up(&mut second).await.unwrap(), 0);
    let mut third = env.consumer().checkpoint(checkpoint.clone()).build().await.unwrap();
    assert_eq!(third.catch_up(&mut Collect::default()).await.unwrap(), 0);
    let shard = env
        .streams
        .describe_stream()
        .stream_arn(consumer.stream_arn())
        .send()
        .await
        .unwrap()
        .stream_description()
        .unwrap()
        .shards()[0]
        .shard_id()
        .unwrap()
        .to_string();
    let saved = checkpoint.load(consumer.stream_arn(), &shard).await.unwrap();
    assert_eq!(saved.as_deref(), Some(second.0[1].sequence_number.as_str()));
}

async fn a_checkpoint_resumes_with_each_record_exactly_once(backend: Backend) {
    let env1 = env(backend, Some(StreamViewType::NewImage)).await;
    runs_on_one_checkpoint(&env1, MemoryCheckpoint::new()).await;
    let env2 = env(backend, Some(StreamViewType::NewImage)).await;
    let path = std::env::temp_dir().join(format!("{}.json", unique_name("mt-checkpoint")));
    runs_on_one_checkpoint(&env2, FileCheckpoint::new(&path)).await;
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("/stream/"), "keyed by stream ARN and shard: {text}");
    std::fs::remove_file(&path).unwrap();
}
both!(a_checkpoint_resumes_with_each_record_exactly_once);

async fn a_handler_error_leaves_the_record_to_be_delivered_again(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewImage)).await;
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    create(&repo, &["a", "b", "c"]).await;
    let checkpoint = MemoryCheckpoint::new();
    let mut consumer = env.consumer().checkpoint(checkpoint.clone()).build().await.unwrap();
    let mut got: Vec<String> = Vec::new();
    let mut fail_on_b = |c: ChangeRecord<OrgItem>| {
        let id = ids(std::slice::from_ref(&c)).remove(0);
        got.push(id.clone());
        async move {
            if id == "b" {
                return Err(std::io::Error::other("downstream unavailable"));
            }
            Ok(())
        }
    };
    let err = consumer.catch_up(&mut fail_on_b).await.unwrap_err();
    assert_eq!(got, ["a", "b"], "delivery stops at the failure");
    let Error::Handler { sequence_number, source } = &err else { panic!("{err:?}") };
    assert_eq!(source.to_string(), "downstream unavailable");
    assert!(err.to_string().contains(sequence_number.as_str()));
    // The same consumer, and a new one on the checkpoint, start again at "b".
    let mut again = Collect::default();
    assert_eq!(consumer.catch_up(&mut again).await.unwrap(), 2);
    assert_eq!(ids(&again.0), ["b", "c"]);
    assert_eq!(&again.0[0].sequence_number, sequence_number);

    let env = super::setup::env(backend, Some(StreamViewType::NewImage)).await;
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    create(&repo, &["a", "b", "c"]).await;
    let checkpoint = MemoryCheckpoint::new();
    let mut failing = |c: ChangeRecord<OrgItem>| async move {
        match c.new_entity() {
            Some(OrgItem::Record(r)) if r.id == "b" => Err("no"),
            _ => Ok(()),
        }
    };
    let mut consumer = env.consumer().checkpoint(checkpoint.clone()).build().await.unwrap();
    assert!(matches!(consumer.catch_up(&mut failing).await, Err(Error::Handler { .. })));
    drop(consumer);
    let mut next = Collect::default();
    env.consumer().checkpoint(checkpoint).build().await.unwrap().catch_up(&mut next).await.unwrap();
    assert_eq!(ids(&next.0), ["b", "c"], "a new consumer resumes after the last handled record");
}
both!(a_handler_error_leaves_the_record_to_be_delivered_again);

async fn latest_skips_the_history_and_trim_horizon_reads_it(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewImage)).await;
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    create(&repo, &["old"]).await;
    let mut latest = env.consumer().start_at(StartAt::Latest).build().await.unwrap();
    let mut seen = Collect::default();
    assert_eq!(latest.catch_up(&mut seen).await.unwrap(), 0);
    create(&repo, &["new"]).await;
    assert_eq!(latest.catch_up(&mut seen).await.unwrap(), 1);
    assert_eq!(ids(&seen.0), ["new"]);
    let mut all = Collect::default();
    env.consumer().start_at(StartAt::TrimHorizon).build().await.unwrap().catch_up(&mut all).await.unwrap();
    assert_eq!(ids(&all.0), ["old", "new"]);
}
both!(latest_skips_the_history_and_trim_horizon_reads_it);

/// Makes the next GetRecords call use an expired iterator. The engine's iterators are
/// `<stream ARN>|1|<position>|<issued ms>` and expire 15 minutes after issue (as DynamoDB's
/// do: Streams API reference, GetShardIterator); issued at 1 s after the epoch, it has.
#[derive(Debug)]
struct ExpireNextIterator(Arc<AtomicBool>);

impl Intercept for ExpireNextIterator {
    fn name(&self) -> &'static str {
        "ExpireNextIterator"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodbstreams::error::BoxError> {
        if let Some(input) = context.input_mut().downcast_mut::<GetRecordsInput>() {
            if self.0.swap(false, Ordering::SeqCst) {
                let held = input.shard_iterator.clone().unwrap_or_default();
                let (head, _) = held.rsplit_once('|').ok_or("not an engine iterator")?;
                input.shard_iterator = Some(format!("{head}|1000"));
            }
        }
        Ok(())
    }
}

async fn an_expired_iterator_is_reacquired_without_loss_or_repeat(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewImage)).await;
    let expire = Arc::new(AtomicBool::new(false));
    let streams = streams_with(&env, ExpireNextIterator(expire.clone()));
    let repo = env.table.repo::<Record>(&env.scope()).unwrap();
    create(&repo, &["a", "b"]).await;
    let mut consumer = monotable::changes::ChangeConsumer::<OrgItem>::builder(&env.table, streams.clone())
        .build()
        .await
        .unwrap();
    let mut seen = Collect::default();
    assert_eq!(consumer.catch_up(&mut seen).await.unwrap(), 2);
    create(&repo, &["c"]).await;
    // The iterator the consumer holds has expired by its next read.
    expire.store(true, Ordering::SeqCst);
    assert_eq!(consumer.catch_up(&mut seen).await.unwrap(), 1);
    assert!(!expire.load(Ordering::SeqCst), "the expired iterator was used");
    assert_eq!(ids(&seen.0), ["a", "b", "c"]);
    // The engine does refuse that iterator.
    expire.store(true, Ordering::SeqCst);
    let arn = consumer.stream_arn().to_string();
    let err = streams.get_records().shard_iterator(format!("{arn}|1|1|5")).send().await.unwrap_err();
    assert!(err.into_service_error().is_expired_iterator_exception());
}
both!(an_expired_iterator_is_reacquired_without_loss_or_repeat);
