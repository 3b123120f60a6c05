//! [`diff`]: how a live table differs from the table a design asks for, one [`Drift`] per
//! difference, each with the [`Change`] that would remove it.
//!
//! A change is *destructive* when it removes or rebuilds something the live table has (an
//! index, the stream, TTL, a tag, deletion protection); `design apply` makes those only when
//! asked. A change to the table's key, its attribute types or its LSIs cannot be made with
//! UpdateTable at all ([`Change::NewTable`]): LSIs exist only from CreateTable on.

use std::fmt;

use super::shape::{key_text, IndexShape, TableShape};
use crate::settings::{Billing, StreamView};

/// What removes one drift.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// UpdateTable `Create` of a GSI the live table lacks.
    CreateGsi(IndexShape),
    /// UpdateTable `Delete` of a GSI the design does not have (destructive).
    DeleteGsi(String),
    /// Delete and re-create a GSI whose key or projection differs (destructive).
    ReplaceGsi(IndexShape),
    /// UpdateTimeToLive: enable on an attribute, or disable (`None`).
    SetTtl(Option<String>),
    /// UpdateTable `BillingMode` (and capacity).
    SetBilling(Billing),
    /// UpdateTable `StreamSpecification`: enable with a view type, or disable (`None`).
    SetStream(Option<StreamView>),
    /// TagResource.
    Tag(String, String),
    /// UntagResource (destructive).
    Untag(String),
    /// UpdateTable `DeletionProtectionEnabled`.
    SetDeletionProtection(bool),
    /// Only a new table can have this (key, attribute types, LSIs).
    NewTable,
}

/// One difference between the live table and the design.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// What differs: `table`, `GSI <name>`, `LSI <name>`, `TTL`, `stream`, `tag <key>`…
    pub subject: String,
    /// The live state, in words.
    pub live: String,
    /// What the design says, in words.
    pub design: String,
    /// What removes the difference.
    pub change: Change,
}

impl Drift {
    /// Whether removing the drift removes or rebuilds something the live table has.
    pub fn destructive(&self) -> bool {
        match &self.change {
            Change::DeleteGsi(_) | Change::ReplaceGsi(_) | Change::Untag(_) => true,
            Change::SetTtl(_) | Change::SetStream(_) => self.live != "off",
            Change::SetDeletionProtection(on) => !on,
            Change::NewTable => true,
            Change::CreateGsi(_) | Change::SetBilling(_) | Change::Tag(..) => false,
        }
    }

    /// Whether UpdateTable cannot remove the drift at all.
    pub fn needs_new_table(&self) -> bool {
        self.change == Change::NewTable
    }
}

impl fmt::Display for Drift {
    /// One readable line: a sign, the subject, live versus design, and what apply would do.
    /// `+` apply adds, `~` apply changes, `-` apply removes or rebuilds (destructive), `!`
    /// only a new table can have it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, what) = if self.needs_new_table() {
            ('!', "needs a new table: UpdateTable cannot change it")
        } else if self.destructive() {
            ('-', "destructive: apply makes it only with --allow-destructive")
        } else if self.live == "missing" || self.live == "off" {
            ('+', "apply adds it")
        } else {
            ('~', "apply changes it")
        };
        write!(f, "{sign} {}: live {}, design {} ({what})", self.subject, self.live, self.design)
    }
}

fn billing_text(b: Billing) -> String {
    match b {
        Billing::OnDemand => "PAY_PER_REQUEST".into(),
        Billing::Provisioned { read, write } => format!("PROVISIONED {read}/{write}"),
    }
}

fn on_off<T: fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "off".to_string(), |v| v.to_string())
}

fn drift(
    subject: impl Into<String>,
    live: impl Into<String>,
    design: impl Into<String>,
    change: Change,
) -> Drift {
    Drift { subject: subject.into(), live: live.into(), design: design.into(), change }
}

/// The index's key attributes paired with their types, for comparing two indexes.
fn typed_key<'a>(t: &'a TableShape, i: &'a IndexShape) -> Vec<(&'a str, Option<&'a str>)> {
    i.hash.iter().chain(&i.range).map(|a| (a.as_str(), t.attributes.get(a).map(String::as_str))).collect()
}

fn gsi_drift(desired: &TableShape, live: &TableShape, out: &mut Vec<Drift>) {
    for want in &desired.gsis {
        let subject = format!("GSI {}", want.name);
        let Some(have) = live.gsi(&want.name) else {
            out.push(drift(subject, "missing", want.key_text(), Change::CreateGsi(want.clone())));
            continue;
        };
        if typed_key(desired, want) != typed_key(live, have) {
            let (l, d) = (have.key_text(), want.key_text());
            let (l, d) = if l == d { (types(live, have), types(desired, want)) } else { (l, d) };
            out.push(drift(format!("{subject} key"), l, d, Change::ReplaceGsi(want.clone())));
        } else if want.projection != have.projection {
            out.push(drift(
                format!("{subject} projection"),
                have.projection_text(),
                want.projection_text(),
                Change::ReplaceGsi(want.clone()),
            ));
        }
    }
    for have in &live.gsis {
        if desired.gsi(&have.name).is_none() {
            out.push(drift(
                format!("GSI {}", have.name),
                have.key_text(),
                "missing",
                Change::DeleteGsi(have.name.clone()),
            ));
        }
    }
}

fn types(t: &TableShape, i: &IndexShape) -> String {
    typed_key(t, i).iter().map(|(a, ty)| format!("{a}:{}", ty.unwrap_or("?"))).collect::<Vec<_>>().join(", ")
}

fn lsi_drift(desired: &TableShape, live: &TableShape, out: &mut Vec<Drift>) {
    let text = |i: Option<&IndexShape>| {
        i.map_or_else(|| "missing".to_string(), |i| format!("{} {}", i.key_text(), i.projection_text()))
    };
    let mut names: Vec<&str> = desired.lsis.iter().chain(&live.lsis).map(|i| i.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for name in names {
        let want = desired.lsis.iter().find(|i| i.name == name);
        let have = live.lsis.iter().find(|i| i.name == name);
        let same = match (want, have) {
            (Some(w), Some(h)) => w == h && typed_key(desired, w) == typed_key(live, h),
            _ => false,
        };
        if !same {
            out.push(drift(format!("LSI {name}"), text(have), text(want), Change::NewTable));
        }
    }
}

/// How `live` differs from `desired`; empty when they match. Lines come in a fixed order:
/// table key, indexes, billing, TTL, stream, tags, deletion protection.
pub fn diff(desired: &TableShape, live: &TableShape) -> Vec<Drift> {
    let mut out = Vec::new();
    let key = |t: &TableShape| {
        let range: Vec<String> = t.range.iter().cloned().collect();
        let typed: Vec<String> = std::iter::once(&t.hash)
            .chain(&range)
            .map(|a| format!("{a}:{}", t.attributes.get(a).map_or("?", String::as_str)))
            .collect();
        (key_text(std::slice::from_ref(&t.hash), &range), typed.join(", "))
    };
    let (want, have) = (key(desired), key(live));
    if want != have {
        let (l, d) = if want.0 == have.0 { (have.1, want.1) } else { (have.0, want.0) };
        out.push(drift("table key", l, d, Change::NewTable));
    }
    gsi_drift(desired, live, &mut out);
    lsi_drift(desired, live, &mut out);
    if desired.billing != live.billing {
        out.push(drift(
            "billing",
            billing_text(live.billing),
            billing_text(desired.billing),
            Change::SetBilling(desired.billing),
        ));
    }
    if desired.ttl != live.ttl {
        out.push(drift(
            "TTL",
            on_off(live.ttl.as_ref()),
            on_off(desired.ttl.as_ref()),
            Change::SetTtl(desired.ttl.clone()),
        ));
    }
    if desired.stream != live.stream {
        out.push(drift(
            "stream",
            on_off(live.stream.map(StreamView::as_aws)),
            on_off(desired.stream.map(StreamView::as_aws)),
            Change::SetStream(desired.stream),
        ));
    }
    for (k, v) in &desired.tags {
        match live.tags.get(k) {
            Some(have) if have == v => {}
            have => out.push(drift(
                format!("tag {k}"),
                have.map_or("missing", String::as_str),
                v.as_str(),
                Change::Tag(k.clone(), v.clone()),
            )),
        }
    }
    for (k, v) in &live.tags {
        if !desired.tags.contains_key(k) {
            out.push(drift(format!("tag {k}"), v.as_str(), "missing", Change::Untag(k.clone())));
        }
    }
    if desired.deletion_protection != live.deletion_protection {
        let word = |b: bool| if b { "on" } else { "off" };
        out.push(drift(
            "deletion protection",
            word(live.deletion_protection),
            word(desired.deletion_protection),
            Change::SetDeletionProtection(desired.deletion_protection),
        ));
    }
    out
}
