//! One page of one parallel Scan segment, retried on throttling.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use aws_sdk_dynamodb::Client;

use crate::client::{endpoint_error, is_retryable};
use crate::wire::SdkItem;
use crate::{Backoff, TransferError};

/// A Scan page.
#[derive(Debug)]
pub struct Page {
    /// The items of the page.
    pub items: Vec<SdkItem>,
    /// Where the next page starts; `None` when the segment is finished.
    pub last_key: Option<SdkItem>,
    /// Read capacity the endpoint reported for the page, if it reported any.
    pub capacity: Option<f64>,
}

/// Where a segment reads from.
#[derive(Debug, Clone)]
pub struct Segment {
    /// The client of the source endpoint.
    pub client: Client,
    /// The source table.
    pub table: String,
    /// This segment's number.
    pub segment: u32,
    /// Segments in all; with one, Scan is sent without segment parameters.
    pub total: u32,
    /// Scan's `Limit`: at most this many items per page (a page is at most 1 MB anyway).
    pub page_size: Option<u32>,
}

impl Segment {
    /// Reads the page starting after `start` (strongly consistent, so that a copy taken after
    /// writes were acknowledged contains them).
    pub async fn page(&self, start: Option<SdkItem>, backoff: &Backoff) -> Result<Page, TransferError> {
        let out = backoff
            .retry(
                || {
                    let mut req = self
                        .client
                        .scan()
                        .table_name(&self.table)
                        .consistent_read(true)
                        .return_consumed_capacity(ReturnConsumedCapacity::Total)
                        .set_exclusive_start_key(start.clone())
                        .set_limit(self.page_size.map(|n| n.clamp(1, i32::MAX as u32) as i32));
                    if self.total > 1 {
                        req = req.segment(self.segment as i32).total_segments(self.total as i32);
                    }
                    req.send()
                },
                is_retryable,
            )
            .await
            .map_err(|e| endpoint_error("Scan", e))?;
        let capacity = out.consumed_capacity().and_then(|c| c.capacity_units());
        Ok(Page { items: out.items.unwrap_or_default(), last_key: out.last_evaluated_key, capacity })
    }
}
