//! Damaged data directories: a torn tail is recovered, damage elsewhere is reported.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use monotable_engine::{Storage, WriteBatch};
use monotable_store::{open, open_with, FjallStore, StoreError, StoreOptions, SyncPolicy};
use monotable_types::{AttributeValue, Item, PackedItem};

fn item(n: usize) -> PackedItem {
    let mut i = Item::new();
    i.insert("payload".into(), AttributeValue::S(format!("item number {n} {}", "x".repeat(40))));
    PackedItem::encode(&i)
}

fn key(n: usize) -> Vec<u8> {
    format!("key{n:05}").into_bytes()
}

/// Writes `n` items in `n` commits and closes the store.
fn populate(dir: &Path, n: usize) {
    let store = open(dir, SyncPolicy::None).expect("open");
    let ks = store.open_keyspace("t").expect("ks");
    for i in 0..n {
        let mut batch = WriteBatch::default();
        batch.put(&ks, key(i), item(i));
        store.commit(batch).expect("commit");
    }
}

/// The active journal and the offset just past its last non-zero byte.
fn active_journal(dir: &Path) -> (PathBuf, u64) {
    let mut journals: Vec<(u64, PathBuf)> = std::fs::read_dir(dir.join("db"))
        .expect("db dir")
        .filter_map(|e| {
            let p = e.ok()?.path();
            let id = p.file_name()?.to_str()?.strip_suffix(".jnl")?.parse().ok()?;
            Some((id, p))
        })
        .collect();
    journals.sort();
    let (_, path) = journals.pop().expect("a journal");
    let bytes = std::fs::read(&path).expect("read");
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |p| p + 1);
    (path, end as u64)
}

fn count(store: &Arc<FjallStore>) -> usize {
    let ks = store.open_keyspace("t").expect("ks");
    let mut n = 0;
    let all = monotable_engine::KeyRange {
        start: std::ops::Bound::Unbounded,
        end: std::ops::Bound::Unbounded,
        reverse: false,
    };
    ks.scan(&all, &mut |_, _| {
        n += 1;
        true
    })
    .expect("scan");
    n
}

#[test]
fn torn_tail_of_the_journal_is_cut_and_earlier_writes_survive() {
    let dir = tempfile::tempdir().expect("tempdir");
    populate(dir.path(), 20);
    let (journal, end) = active_journal(dir.path());
    // Tear the last batch: keep all but its last 7 bytes (inside the end marker).
    let f = std::fs::OpenOptions::new().write(true).open(&journal).expect("open journal");
    f.set_len(end - 7).expect("truncate");
    drop(f);
    let store = open(dir.path(), SyncPolicy::None).expect("a torn tail is tolerated");
    assert!(store.recovery().torn_tail_bytes > 0, "{:?}", store.recovery());
    assert_eq!(count(&store), 19);
    let ks = store.open_keyspace("t").expect("ks");
    assert!(ks.get(&key(18)).expect("get").is_some());
    assert!(ks.get(&key(19)).expect("get").is_none());
}

#[test]
fn garbage_after_the_last_batch_is_a_torn_tail() {
    let dir = tempfile::tempdir().expect("tempdir");
    populate(dir.path(), 5);
    let (journal, end) = active_journal(dir.path());
    let mut bytes = std::fs::read(&journal).expect("read");
    bytes.truncate(end as usize);
    bytes.extend_from_slice(&[1, 7, 0, 0, 0, 9, 9]);
    std::fs::write(&journal, &bytes).expect("write");
    let store = open(dir.path(), SyncPolicy::None).expect("a torn tail is tolerated");
    assert_eq!(store.recovery().torn_tail_bytes, 7);
    assert_eq!(count(&store), 5);
}

#[test]
fn flipped_byte_in_the_middle_of_the_journal_is_reported_and_nothing_is_cut() {
    for flip_at_fraction in [3usize, 2] {
        let dir = tempfile::tempdir().expect("tempdir");
        populate(dir.path(), 60);
        let (journal, end) = active_journal(dir.path());
        let mut bytes = std::fs::read(&journal).expect("read");
        let at = end as usize / flip_at_fraction;
        bytes[at] ^= 0x5a;
        std::fs::write(&journal, &bytes).expect("write");
        let len_before = std::fs::metadata(&journal).expect("meta").len();
        let err = open(dir.path(), SyncPolicy::None).err().expect("middle damage must be reported");
        match &err {
            StoreError::Corrupt { path, offset, .. } => {
                assert_eq!(path, &journal);
                assert!(*offset <= at as u64, "{err}");
            }
            other => panic!("expected Corrupt, got {other}"),
        }
        assert!(err.to_string().contains("corruption in"), "{err}");
        assert_eq!(std::fs::metadata(&journal).expect("meta").len(), len_before, "the journal was modified");
        // With repair the operator gets the batches before the damage back.
        let mut options = StoreOptions::with_sync(SyncPolicy::None);
        options.repair = true;
        let store = open_with(dir.path(), options).expect("repair opens");
        let n = count(&store);
        assert!(n < 60 && n > 0, "{n}");
    }
}

#[test]
fn flipped_byte_in_a_table_file_is_reported_not_dropped() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = open(dir.path(), SyncPolicy::None).expect("open");
        let ks = store.open_keyspace("t").expect("ks");
        let mut batch = WriteBatch::default();
        for i in 0..2000 {
            batch.put(&ks, key(i), item(i));
        }
        store.commit(batch).expect("commit");
        store.flush_to_tables().expect("flush");
    }
    // The largest file under keyspaces/ is the table file holding the items.
    let mut files = Vec::new();
    let mut stack = vec![dir.path().join("db").join("keyspaces")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push((e.metadata().expect("meta").len(), p));
            }
        }
    }
    files.sort();
    let (len, table) = files.pop().expect("a table file");
    let mut bytes = std::fs::read(&table).expect("read");
    bytes[(len / 3) as usize] ^= 0x5a;
    std::fs::write(&table, &bytes).expect("write");
    let outcome = open(dir.path(), SyncPolicy::None).and_then(|store| store.verify());
    assert!(outcome.is_err(), "a damaged table file read back as {outcome:?}");
}

/// Makes the active journal a sealed one by starting an empty newer journal, as fjall's
/// rotation does (it leaves the sealed journal's preallocated zeros in place).
fn seal_active_journal(dir: &Path) -> PathBuf {
    let (journal, _) = active_journal(dir);
    let id: u64 = journal
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(".jnl"))
        .and_then(|n| n.parse().ok())
        .expect("journal id");
    std::fs::write(journal.with_file_name(format!("{}.jnl", id + 1)), b"").expect("new journal");
    journal
}

#[test]
fn a_sealed_journal_ending_in_preallocated_zeros_is_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    populate(dir.path(), 10);
    seal_active_journal(dir.path());
    let store = open(dir.path(), SyncPolicy::None).expect("a sealed journal with zero padding is clean");
    assert_eq!(store.recovery().journals, 2);
    assert_eq!(store.recovery().torn_tail_bytes, 0);
    assert_eq!(count(&store), 10);
}

#[test]
fn damage_at_the_end_of_a_sealed_journal_is_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().expect("tempdir");
    populate(dir.path(), 10);
    let (_, end) = active_journal(dir.path());
    let sealed = seal_active_journal(dir.path());
    let mut bytes = std::fs::read(&sealed).expect("read");
    bytes[end as usize - 3] ^= 0x01; // inside the last batch's trailer
    std::fs::write(&sealed, &bytes).expect("write");
    let err = open(dir.path(), SyncPolicy::None).err().expect("refused");
    assert!(err.to_string().contains("sealed journal"), "{err}");
}

#[test]
fn reopening_after_real_memtable_flushes_and_journal_rotations_is_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    for round in 0..3 {
        let store = open(dir.path(), SyncPolicy::None).expect("open");
        let ks = store.open_keyspace("t").expect("ks");
        for i in 0..50 {
            let mut batch = WriteBatch::default();
            batch.put(&ks, key(round * 50 + i), item(i));
            store.commit(batch).expect("commit");
        }
        store.flush_to_tables().expect("flush");
        let mut batch = WriteBatch::default();
        batch.put(&ks, key(10_000 + round), item(round));
        store.commit(batch).expect("commit");
    }
    let store = open(dir.path(), SyncPolicy::None).expect("reopen");
    assert_eq!(store.recovery().torn_tail_bytes, 0, "{:?}", store.recovery());
    assert_eq!(count(&store), 153);
    assert_eq!(store.verify().expect("verify"), 153);
}
