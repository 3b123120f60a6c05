//! Table-level settings of a design: billing, stream, tags and deletion protection. They are
//! what `design apply` and the IaC generators set beyond keys and indexes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the table is billed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Billing {
    /// On-demand (`PAY_PER_REQUEST`), the default.
    #[default]
    OnDemand,
    /// Provisioned capacity for the table and each GSI.
    Provisioned {
        /// Read capacity units.
        read: u64,
        /// Write capacity units.
        write: u64,
    },
}

/// What a DynamoDB stream record holds (`StreamViewType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StreamView {
    /// `KEYS_ONLY`.
    KeysOnly,
    /// `NEW_IMAGE`.
    NewImage,
    /// `OLD_IMAGE`.
    OldImage,
    /// `NEW_AND_OLD_IMAGES`.
    NewAndOldImages,
}

impl StreamView {
    /// The `StreamViewType` value.
    pub fn as_aws(self) -> &'static str {
        match self {
            StreamView::KeysOnly => "KEYS_ONLY",
            StreamView::NewImage => "NEW_IMAGE",
            StreamView::OldImage => "OLD_IMAGE",
            StreamView::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// The view called `s` in DynamoDB's spelling.
    pub fn from_aws(s: &str) -> Option<StreamView> {
        [StreamView::KeysOnly, StreamView::NewImage, StreamView::OldImage, StreamView::NewAndOldImages]
            .into_iter()
            .find(|v| v.as_aws() == s)
    }
}

fn yes() -> bool {
    true
}

/// Table-level settings; everything has a default so most designs omit the section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableSettings {
    /// Billing mode; on-demand when omitted.
    #[serde(default, skip_serializing_if = "is_on_demand")]
    pub billing: Billing,
    /// The stream's view type; no stream when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamView>,
    /// Tags on the table.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Deletion protection; on when omitted.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub deletion_protection: bool,
}

impl Default for TableSettings {
    fn default() -> Self {
        TableSettings {
            billing: Billing::OnDemand,
            stream: None,
            tags: BTreeMap::new(),
            deletion_protection: true,
        }
    }
}

impl TableSettings {
    /// Whether every setting has its default (the section is then left out of the document).
    pub fn is_default(&self) -> bool {
        *self == TableSettings::default()
    }
}

fn is_on_demand(b: &Billing) -> bool {
    *b == Billing::OnDemand
}

fn is_true(b: &bool) -> bool {
    *b
}
