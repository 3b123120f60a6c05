//! What a consumer refuses, clearly.

use aws_sdk_dynamodb::types::StreamViewType;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_sdk_dynamodbstreams::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeSerializationInterceptorContextRef,
};
use aws_sdk_dynamodbstreams::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodbstreams::operation::get_shard_iterator::GetShardIteratorInput;
use monotable::changes::{ChangeConsumer, Checkpoint, MemoryCheckpoint};
use monotable::{Error, Repository};

use super::both;
use super::setup::{env, streams_with, Backend, Collect};
use crate::common::{OrgItem, Record};

async fn a_table_without_a_stream_is_a_clear_error(backend: Backend) {
    let env = env(backend, None).await;
    let err = env.consumer().build().await.err().expect("no stream, no consumer");
    assert!(matches!(&err, Error::NoStream { table } if table == env.table.name()), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(env.table.name()) && text.contains("has no stream"), "{text}");
}
both!(a_table_without_a_stream_is_a_clear_error);

/// Answers GetShardIterator as DynamoDB does when the records after the requested sequence
/// number are older than 24 hours and gone: HTTP 400, `TrimmedDataAccessException` (Streams
/// API reference, GetShardIterator errors). The engine trims only records older than 24 hours,
/// so a test cannot meet one; this puts the service's answer in front of the real SDK.
#[derive(Debug, Default)]
struct TrimmedBeforeCheckpoint {
    /// Set while a GetShardIterator call with a sequence number is on its way.
    resuming: AtomicBool,
}

impl Intercept for TrimmedBeforeCheckpoint {
    fn name(&self) -> &'static str {
        "TrimmedBeforeCheckpoint"
    }

    fn read_before_serialization(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodbstreams::error::BoxError> {
        let resuming = context
            .input()
            .downcast_ref::<GetShardIteratorInput>()
            .is_some_and(|i| i.sequence_number.is_some());
        self.resuming.store(resuming, Ordering::SeqCst);
        Ok(())
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), aws_sdk_dynamodbstreams::error::BoxError> {
        if self.resuming.swap(false, Ordering::SeqCst) {
            let response = context.response_mut();
            *response.status_mut() = 400u16.try_into()?;
            *response.body_mut() = r#"{"__type":"com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException","message":"The operation attempted to read past the oldest stream record in a shard."}"#.into();
        }
        Ok(())
    }
}

async fn a_checkpoint_behind_the_trim_horizon_is_a_clear_error(backend: Backend) {
    let env = env(backend, Some(StreamViewType::NewImage)).await;
    let repo: Repository<Record> = env.table.repo(&env.scope()).unwrap();
    repo.create(&Record::new("org-1", "a", "open")).await.unwrap();
    repo.create(&Record::new("org-1", "b", "open")).await.unwrap();
    let checkpoint = MemoryCheckpoint::new();
    let mut first = env.consumer().checkpoint(checkpoint.clone()).batch_size(1).build().await.unwrap();
    let mut seen = Collect::default();
    assert_eq!(first.catch_up(&mut seen).await.unwrap(), 2);
    let streams = streams_with(&env, TrimmedBeforeCheckpoint::default());
    let mut resumed = ChangeConsumer::<OrgItem>::builder(&env.table, streams)
        .checkpoint(checkpoint.clone())
        .build()
        .await
        .unwrap();
    let err = resumed.catch_up(&mut Collect::default()).await.unwrap_err();
    let Error::StreamTrimmed { shard_id, after } = &err else { panic!("{err:?}") };
    assert_eq!(after.as_deref(), Some(seen.0[1].sequence_number.as_str()));
    assert!(!shard_id.is_empty());
    assert!(err.to_string().contains("trimmed"), "{err}");
    // Nothing was skipped: the checkpoint is where it was.
    assert_eq!(checkpoint.load(first.stream_arn(), shard_id).await.unwrap(), after.clone());
}
both!(a_checkpoint_behind_the_trim_horizon_is_a_clear_error);
