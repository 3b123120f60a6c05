//! Observability: every call emits a `tracing` span with entity, operation, index and
//! consumed capacity.

use std::sync::{Arc, Mutex};

use monotable::{Keys, Query};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record as SpanRecord};
use tracing::Subscriber;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};

use crate::common::*;

#[derive(Default)]
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={:?} ", field.name(), value));
    }
}

struct Capture(Arc<Mutex<Vec<String>>>);

impl<S: Subscriber> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, _id: &Id, _ctx: Context<'_, S>) {
        let mut f = Fields::default();
        attrs.record(&mut f);
        self.0.lock().unwrap().push(f.0);
    }
    fn on_record(&self, _id: &Id, values: &SpanRecord<'_>, _ctx: Context<'_, S>) {
        let mut f = Fields::default();
        values.record(&mut f);
        self.0.lock().unwrap().push(f.0);
    }
}

#[tokio::test]
async fn every_call_emits_a_span_with_entity_operation_index_and_capacity() {
    // tracing caches each callsite's interest process-wide, computed by the first thread to
    // reach it against *that thread's* subscriber. A sibling test reaching the library's span
    // first with no subscriber at all would cache "never" and this test would see nothing (it
    // failed that way once against moto in CI). A bare global registry means no thread ever
    // has no subscriber; the rebuild re-asks callsites cached before this test's subscriber.
    let _ = tracing::subscriber::set_global_default(tracing_subscriber::registry());
    let table = table().await;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let subscriber = tracing_subscriber::registry().with(Capture(seen.clone()));
    let _guard = tracing::subscriber::set_default(subscriber);
    tracing::callsite::rebuild_interest_cache();
    let repo = table.repo::<Record>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap();
    repo.create(&Record::new("o", "r1", "open")).await.unwrap();
    repo.query(Query::index("gsi1").partition(Keys::new().with(Record::FIELDS.status, "open")))
        .await
        .unwrap();
    let seen = seen.lock().unwrap().join("\n");
    assert!(seen.contains("entity=\"Record\" operation=\"create\" index=\"table\""), "{seen}");
    assert!(seen.contains("entity=\"Record\" operation=\"query\" index=\"gsi1\""), "{seen}");
    assert!(seen.contains("consumed_capacity="), "{seen}");
}
