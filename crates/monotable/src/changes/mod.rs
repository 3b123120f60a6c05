//! Change streams, typed: the item changes of a table as [`ChangeRecord`]s of a
//! [`Collection`](crate::Collection)'s entity types, from the table's DynamoDB stream
//! ([`ChangeConsumer`], through `aws-sdk-dynamodbstreams`) or from the event a Lambda function
//! receives ([`DynamoDbEvent`], decoded by [`ChangeDecoder`]). Both paths produce identical
//! records, so one [`Handler`] is tested on the embedded engine and deployed to Lambda.
//!
//! ```no_run
//! use monotable::changes::{ChangeConsumer, ChangeDecoder, ChangeKind, ChangeRecord, DynamoDbEvent, Handler};
//! # #[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, monotable::Entity)]
//! # #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
//! # struct Record { org_id: String, id: String }
//! # #[derive(Debug, Clone, PartialEq, monotable::Collection)]
//! # enum OrgItem { Record(Record) }
//!
//! struct Audit(Vec<String>);
//! impl Handler<OrgItem> for Audit {
//!     type Error = std::convert::Infallible;
//!     async fn handle(&mut self, change: &ChangeRecord<OrgItem>) -> Result<(), Self::Error> {
//!         if let (ChangeKind::Insert, Some(OrgItem::Record(r))) = (change.kind, change.new_entity()) {
//!             self.0.push(r.id.clone());
//!         }
//!         Ok(())
//!     }
//! }
//!
//! # async fn demo(table: monotable::Table, streams: aws_sdk_dynamodbstreams::Client, event: DynamoDbEvent)
//! # -> Result<(), monotable::Error> {
//! // In a test or a long-running service: read the stream, keep a checkpoint.
//! let mut consumer = ChangeConsumer::<OrgItem>::builder(&table, streams).build().await?;
//! consumer.catch_up(&mut Audit(Vec::new())).await?;
//! // In Lambda: the same handler on the function's input.
//! let response = ChangeDecoder::<OrgItem>::for_table(&table).handle_event(&event, &mut Audit(Vec::new())).await;
//! # let _ = response; Ok(()) }
//! ```

mod checkpoint;
mod consumer;
mod decode;
mod handler;
mod lambda;
mod only;
mod record;

pub use checkpoint::{Checkpoint, CheckpointFuture, FileCheckpoint, MemoryCheckpoint};
pub use consumer::{ChangeConsumer, ConsumerBuilder, StartAt};
pub use decode::ChangeDecoder;
pub use handler::{BoxError, Handler};
pub use lambda::{BatchItemFailure, BatchResponse, DynamoDbEvent, EventChange, EventRecord, UserIdentity};
pub use only::Only;
pub use record::{ChangeKind, ChangeRecord, Image, ViewType};
