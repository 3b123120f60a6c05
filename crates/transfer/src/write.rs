//! Writing items with BatchWriteItem: at most 25 per call, unprocessed items sent again after
//! an exponentially growing, jittered pause, throttling errors retried the same way, and
//! every call charged to the rate limit.

use std::sync::Arc;

use aws_sdk_dynamodb::types::{PutRequest, ReturnConsumedCapacity, WriteRequest};
use aws_sdk_dynamodb::Client;

use crate::client::{endpoint_error, is_retryable};
use crate::wire::SdkItem;
use crate::{Backoff, RateLimiter, RateUnit, TransferError};

/// BatchWriteItem's limit on requests per call (API reference, BatchWriteItem).
pub const BATCH_SIZE: usize = 25;

/// How many rounds of unprocessed items a batch may go through before the run stops: with
/// the default backoff that is minutes of an endpoint accepting nothing.
const MAX_UNPROCESSED_ROUNDS: u32 = 40;

/// Writes batches to one table of one endpoint.
#[derive(Debug, Clone)]
pub struct Writer {
    /// The client of the target endpoint.
    pub client: Client,
    /// The target table.
    pub table: String,
    /// Pauses between retries.
    pub backoff: Backoff,
    /// The run's rate limit, if any.
    pub limit: Option<(Arc<RateLimiter>, RateUnit)>,
}

/// An estimate of a request's write capacity: one unit per started KB of each item.
fn estimated_wcu(items: &[SdkItem]) -> f64 {
    items.iter().map(|i| crate::wire::sdk_item_size(i).div_ceil(1024).max(1) as f64).sum()
}

impl Writer {
    /// Puts `items` (at most [`BATCH_SIZE`], distinct keys) into the table; returns once
    /// every one of them is written.
    pub async fn put(&self, items: Vec<SdkItem>) -> Result<(), TransferError> {
        if items.is_empty() {
            return Ok(());
        }
        if let Some((limiter, RateUnit::Items)) = &self.limit {
            limiter.charge(items.len() as f64).await;
        }
        let mut pending: Vec<WriteRequest> = items
            .into_iter()
            .map(|item| {
                let put = PutRequest::builder()
                    .set_item(Some(item))
                    .build()
                    .map_err(|e| TransferError::Data(e.to_string()))?;
                Ok(WriteRequest::builder().put_request(put).build())
            })
            .collect::<Result<_, TransferError>>()?;
        let mut round = 0;
        loop {
            let estimate = if matches!(self.limit, Some((_, RateUnit::CapacityUnits))) {
                let items: Vec<SdkItem> =
                    pending.iter().filter_map(|w| w.put_request().map(|p| p.item().clone())).collect();
                estimated_wcu(&items)
            } else {
                0.0
            };
            let out = self
                .backoff
                .retry(
                    || {
                        self.client
                            .batch_write_item()
                            .request_items(&self.table, pending.clone())
                            .return_consumed_capacity(ReturnConsumedCapacity::Total)
                            .send()
                    },
                    is_retryable,
                )
                .await
                .map_err(|e| endpoint_error("BatchWriteItem", e))?;
            if let Some((limiter, RateUnit::CapacityUnits)) = &self.limit {
                let reported: Option<f64> =
                    out.consumed_capacity().iter().filter_map(|c| c.capacity_units()).reduce(|a, b| a + b);
                limiter.charge(reported.unwrap_or(estimate)).await;
            }
            pending = out.unprocessed_items.and_then(|mut u| u.remove(&self.table)).unwrap_or_default();
            if pending.is_empty() {
                return Ok(());
            }
            if round + 1 >= MAX_UNPROCESSED_ROUNDS {
                return Err(TransferError::Endpoint {
                    operation: "BatchWriteItem",
                    message: format!(
                        "{} item(s) still unprocessed after {MAX_UNPROCESSED_ROUNDS} attempts",
                        pending.len()
                    ),
                });
            }
            tokio::time::sleep(self.backoff.delay(round)).await;
            round += 1;
        }
    }
}
