//! The store against the `Storage` contract: a model test against `BTreeMap`, reopening,
//! catalog and keyspace lifecycle.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::pin::Pin;
use std::sync::Arc;

use monotable_engine::{KeyRange, Keyspace, Storage, StorageError, WriteBatch};
use monotable_store::{open, SyncPolicy};
use monotable_types::{AttributeValue, Item, PackedItem};
use proptest::prelude::*;

fn item(n: u32) -> PackedItem {
    let mut i = Item::new();
    i.insert("v".into(), AttributeValue::N(n.to_string().parse().expect("number")));
    i.insert("s".into(), AttributeValue::S(format!("value {n}")));
    PackedItem::encode(&i)
}

fn scan_all(ks: &Arc<dyn Keyspace>, range: &KeyRange) -> Vec<(Vec<u8>, Item)> {
    let mut out = Vec::new();
    ks.scan(range, &mut |k, v| {
        out.push((k.to_vec(), v.decode().expect("decodes")));
        true
    })
    .expect("scan");
    out
}

#[derive(Debug, Clone)]
enum Op {
    /// A batch of (keyspace 0/1, key, Some(value) or None).
    Batch(Vec<(u8, Vec<u8>, Option<u32>)>),
    Scan {
        ks: u8,
        start: Option<Vec<u8>>,
        end: Option<Vec<u8>>,
        reverse: bool,
        limit: usize,
    },
    Reopen,
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(0u8..4, 1..4)
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => prop::collection::vec((0u8..2, key(), prop::option::of(0u32..100)), 1..5).prop_map(Op::Batch),
        3 => (0u8..2, prop::option::of(key()), prop::option::of(key()), any::<bool>(), 1usize..6)
            .prop_map(|(ks, start, end, reverse, limit)| Op::Scan { ks, start, end, reverse, limit }),
        1 => Just(Op::Reopen),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn store_behaves_like_a_btreemap_across_reopens(ops in prop::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let names = ["t1", "t1/gsi"];
        let mut store = open(dir.path(), SyncPolicy::None).expect("open");
        let mut handles: Vec<Arc<dyn Keyspace>> = names.iter().map(|n| store.open_keyspace(n).expect("ks")).collect();
        let mut model: [BTreeMap<Vec<u8>, Item>; 2] = [BTreeMap::new(), BTreeMap::new()];
        for op in ops {
            match op {
                Op::Batch(writes) => {
                    let mut batch = WriteBatch::default();
                    for (ks, k, v) in writes {
                        let (h, m) = (&handles[ks as usize], &mut model[ks as usize]);
                        match v {
                            Some(n) => { batch.put(h, k.clone(), item(n)); m.insert(k, item(n).decode().expect("decodes")); }
                            None => { batch.delete(h, k.clone()); m.remove(&k); }
                        }
                    }
                    store.commit(batch).expect("commit");
                }
                Op::Scan { ks, start, end, reverse, limit } => {
                    let range = KeyRange {
                        start: start.clone().map_or(Bound::Unbounded, Bound::Included),
                        end: end.clone().map_or(Bound::Unbounded, Bound::Excluded),
                        reverse,
                    };
                    let mut got = Vec::new();
                    handles[ks as usize].scan(&range, &mut |k, v| { got.push((k.to_vec(), v.decode().expect("decodes"))); got.len() < limit }).expect("scan");
                    let m = &model[ks as usize];
                    let in_range = |k: &Vec<u8>| start.as_ref().is_none_or(|s| k >= s) && end.as_ref().is_none_or(|e| k < e);
                    let mut want: Vec<(Vec<u8>, Item)> = m.iter().filter(|(k, _)| in_range(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
                    if reverse { want.reverse(); }
                    want.truncate(limit);
                    prop_assert_eq!(got, want);
                }
                Op::Reopen => {
                    drop(handles);
                    drop(store);
                    store = open(dir.path(), SyncPolicy::None).expect("reopen");
                    handles = names.iter().map(|n| store.open_keyspace(n).expect("ks")).collect();
                }
            }
            for (h, m) in handles.iter().zip(model.iter()) {
                for (k, v) in m {
                    prop_assert_eq!(h.get(k).expect("get").map(|i| i.decode().expect("decodes")), Some(v.clone()));
                }
            }
        }
    }
}

#[test]
fn catalog_entries_survive_reopen_and_can_be_removed() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = open(dir.path(), SyncPolicy::Always).expect("open");
        store.put_catalog("a", Some(b"{\"x\":1}".to_vec())).expect("put");
        store.put_catalog("b", Some(b"{}".to_vec())).expect("put");
        store.put_catalog("b", None).expect("remove");
    }
    let store = open(dir.path(), SyncPolicy::Always).expect("reopen");
    assert_eq!(store.load_catalog().expect("load"), vec![("a".to_owned(), b"{\"x\":1}".to_vec())]);
}

#[test]
fn dropped_keyspace_is_empty_when_reopened_and_refuses_commits_through_old_handles() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(dir.path(), SyncPolicy::default()).expect("open");
    let ks = store.open_keyspace("tbl").expect("ks");
    let mut batch = WriteBatch::default();
    batch.put(&ks, b"k".to_vec(), item(1));
    store.commit(batch).expect("commit");
    store.drop_keyspace("tbl").expect("drop");
    let mut batch = WriteBatch::default();
    batch.put(&ks, b"k2".to_vec(), item(2));
    assert!(store.commit(batch).is_err(), "commit through a dropped handle must fail");
    let again = store.open_keyspace("tbl").expect("ks");
    assert_eq!(again.get(b"k").expect("get"), None);
    drop((ks, again, store));
    let store = open(dir.path(), SyncPolicy::default()).expect("reopen");
    let again = store.open_keyspace("tbl").expect("ks");
    assert!(scan_all(&again, &KeyRange { start: Bound::Unbounded, end: Bound::Unbounded, reverse: false })
        .is_empty());
}

#[test]
fn a_batch_across_keyspaces_is_visible_whole_after_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store =
            open(dir.path(), SyncPolicy::GroupCommit { max_delay: std::time::Duration::from_millis(1) })
                .expect("open");
        let a = store.open_keyspace("a").expect("ks");
        let b = store.open_keyspace("a/idx").expect("ks");
        let mut batch = WriteBatch::default();
        batch.put(&a, b"1".to_vec(), item(1));
        batch.put(&b, b"x1".to_vec(), item(1));
        store.commit(batch).expect("commit");
    }
    let store = open(dir.path(), SyncPolicy::default()).expect("reopen");
    assert!(store.open_keyspace("a").expect("ks").get(b"1").expect("get").is_some());
    assert!(store.open_keyspace("a/idx").expect("ks").get(b"x1").expect("get").is_some());
}

/// Commits one put of `key`.
fn put_one(store: &dyn Storage, ks: &Arc<dyn Keyspace>, key: &[u8]) -> Result<(), StorageError> {
    let mut batch = WriteBatch::default();
    batch.put(ks, key.to_vec(), item(1));
    store.commit(batch)
}

/// Under group commit, a commit inside the engine's `defer_sync` scope returns once its batch
/// is written, and hands back a pending sync that completes only after a flush covers it.
/// Nothing else flushes here: the flusher starts only when a waiter asks, so the first poll
/// is pending whatever the timing.
#[test]
fn a_deferred_group_commit_hands_back_a_sync_that_completes_after_its_flush() {
    use std::future::Future;
    use std::task::{Context, Waker};
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(dir.path(), SyncPolicy::default()).expect("open");
    let ks = store.open_keyspace("t").expect("ks");
    let (result, pending) = monotable_engine::defer_sync(|| put_one(&*store, &ks, b"k"));
    result.expect("commit");
    assert!(ks.get(b"k").expect("get").is_some(), "the write is visible before it is durable");
    let mut pending = pending.expect("the wait was handed to the scope");
    let mut cx = Context::from_waker(Waker::noop());
    assert!(Pin::new(&mut pending).poll(&mut cx).is_pending(), "not durable before a flush");
    pending.wait().expect("flushed");

    // `always` and `none` never defer: the first flushes inside the commit, the second never.
    for policy in [SyncPolicy::Always, SyncPolicy::None] {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = open(dir.path(), policy).expect("open");
        let ks = store.open_keyspace("t").expect("ks");
        let (result, pending) = monotable_engine::defer_sync(|| put_one(&*store, &ks, b"k"));
        result.expect("commit");
        assert!(pending.is_none(), "{policy}");
    }
}

#[test]
fn only_a_store_that_flushes_inside_every_commit_says_its_writes_block_when_idle() {
    for (policy, blocks) in
        [(SyncPolicy::Always, true), (SyncPolicy::default(), false), (SyncPolicy::None, false)]
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = open(dir.path(), policy).expect("open");
        let ks = store.open_keyspace("t").expect("ks");
        put_one(&*store, &ks, b"k").expect("commit");
        assert_eq!(store.writes_may_block(), blocks, "{policy}");
    }
}

#[test]
fn a_directory_of_other_files_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "hello").expect("write");
    let err = open(dir.path(), SyncPolicy::default()).err().expect("refused");
    assert!(err.to_string().contains("not a monotable data directory"), "{err}");
}

#[test]
fn an_unknown_format_version_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    drop(open(dir.path(), SyncPolicy::default()).expect("open"));
    std::fs::write(dir.path().join("FORMAT"), "monotable-store format 99\n").expect("write");
    let err = open(dir.path(), SyncPolicy::default()).err().expect("refused");
    assert!(err.to_string().contains("format 99"), "{err}");
}

#[test]
fn empty_keys_are_refused_without_panicking() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = open(dir.path(), SyncPolicy::None).expect("open");
    let ks = store.open_keyspace("t").expect("ks");
    let mut batch = WriteBatch::default();
    batch.put(&ks, Vec::new(), item(1));
    assert!(store.commit(batch).is_err());
    assert_eq!(ks.get(b"").expect("get"), None);
    let all = KeyRange { start: Bound::Included(Vec::new()), end: Bound::Excluded(vec![9]), reverse: true };
    assert!(scan_all(&ks, &all).is_empty());
}

#[test]
fn a_directory_open_elsewhere_is_refused_before_anything_is_touched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let first = open(dir.path(), SyncPolicy::default()).expect("open");
    let err = open(dir.path(), SyncPolicy::default()).err().expect("second open refused");
    assert!(err.to_string().contains("in use by another process"), "{err}");
    drop(first);
    assert!(open(dir.path(), SyncPolicy::default()).is_ok(), "the lock is released on close");
}
