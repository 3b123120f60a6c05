//! Table state that DescribeTable does not show and that has operations of its own: the
//! resource-based policies and point-in-time recovery. Stored in the catalog with the table
//! and dropped with it.

use serde::{Deserialize, Serialize};

/// A resource-based policy as PutResourcePolicy stored it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct StoredPolicy {
    /// The document exactly as it was sent.
    pub document: String,
    /// DynamoDB's revision id: the epoch milliseconds of the change, as a string.
    pub revision_id: String,
}

/// Point-in-time recovery settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Pitr {
    pub enabled: bool,
    pub recovery_period_in_days: i64,
    /// When recovery was last enabled (epoch seconds): the earliest restorable time.
    pub enabled_at: f64,
}

/// The table's sub-resources.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SubResources {
    #[serde(default)]
    pub policy: Option<StoredPolicy>,
    /// The policy of the table's stream (its `LatestStreamArn`), a slot of its own.
    #[serde(default)]
    pub stream_policy: Option<StoredPolicy>,
    #[serde(default)]
    pub pitr: Option<Pitr>,
}
