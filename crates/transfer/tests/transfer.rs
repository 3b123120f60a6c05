//! Export, import and copy between `monotable serve` instances over TCP, through the SDK,
//! checked against each engine's own view of its tables.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{digest, file_lines, Serve};
use monotable_transfer::{
    connect, copy, export, import, Definition, Options, RateUnit, TableRef, TransferError,
};

/// 100,000 items in an optimised build; 10,000 in a debug build, where the SDK and the engine
/// run unoptimised (`cargo test --release -p monotable-transfer` runs the full size).
fn round_trip_size() -> u64 {
    std::env::var("MONOTABLE_TRANSFER_ITEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if cfg!(debug_assertions) { 10_000 } else { 100_000 })
}

fn options(segments: u32) -> Options {
    let mut o = Options::default();
    o.segments = segments;
    o
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn export_import_export_between_two_serves_gives_byte_identical_item_sets() {
    let n = round_trip_size();
    let (a, b, c) = (Serve::start().await, Serve::start().await, Serve::start().await);
    a.create_table("Orders");
    a.fill("Orders", 0..n);
    let truth = a.lines("Orders");
    assert_eq!(truth.len() as u64, n);
    let dir = tempfile::tempdir().expect("temp dir");
    let (first, def, second) =
        (dir.path().join("a.jsonl.gz"), dir.path().join("Orders.table.json"), dir.path().join("b.jsonl"));
    let started = Instant::now();

    let client_a = connect(&a.endpoint()).await;
    let report =
        export(&client_a, &a.endpoint(), "Orders", &first, &def, &options(4)).await.expect("export A");
    assert_eq!(report.items, n);
    let exported = file_lines(&first);
    assert_eq!(exported, truth, "the export holds exactly the table's items");

    let client_b = connect(&b.endpoint()).await;
    let definition =
        Definition::from_json(&std::fs::read_to_string(&def).expect("definition")).expect("parses");
    let report = import(&client_b, &b.endpoint(), "Orders", &first, Some(&definition), &options(3))
        .await
        .expect("import B");
    assert!(report.created_table, "the table is created from the definition");
    assert_eq!(report.items, n);
    assert_eq!(b.lines("Orders"), truth);

    let report =
        export(&client_b, &b.endpoint(), "Orders", &second, &dir.path().join("b.table.json"), &options(2))
            .await
            .expect("export B");
    assert_eq!(report.items, n);
    let again = file_lines(&second);
    assert_eq!(digest(&again), digest(&exported));
    assert_eq!(again, exported, "the second export is byte-identical as a set of lines");

    // The index came across with the definition.
    let described = client_b.describe_table().table_name("Orders").send().await.expect("describe B");
    let gsis = described.table().map(|t| t.global_secondary_indexes().len());
    assert_eq!(gsis, Some(1));

    let from = TableRef { client: client_a, endpoint: a.endpoint(), table: "Orders".into() };
    let to = TableRef { client: connect(&c.endpoint()).await, endpoint: c.endpoint(), table: "Copy".into() };
    let mut o = options(4);
    o.checkpoint = Some(dir.path().join("copy.checkpoint"));
    let report = copy(&from, &to, &o).await.expect("copy A to C");
    assert_eq!((report.items, report.created_table), (n, true));
    assert_eq!(c.lines("Copy"), truth);
    assert!(!dir.path().join("copy.checkpoint").exists(), "a finished run removes its checkpoint");
    eprintln!("{n} items: export, import, export and copy took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_export_of_a_serve_taking_writes_has_every_untouched_item_once() {
    let a = Serve::start().await;
    a.create_table("Live");
    a.fill("Live", 0..5_000);
    let before = a.lines("Live");
    let writer_engine = a.engine.clone();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_writer = stop.clone();
    // Meanwhile new items 10,000.. are added, one batch at a time, until the export ends.
    let writes = tokio::task::spawn_blocking(move || {
        let mut next = 10_000u64;
        while !stop_writer.load(std::sync::atomic::Ordering::Relaxed) {
            let requests: Vec<_> = (next..next + 25)
                .map(|i| serde_json::json!({"PutRequest": {"Item": common::item(i, 0)}}))
                .collect();
            let input = serde_json::from_value(serde_json::json!({"RequestItems": {"Live": requests}}))
                .expect("input");
            writer_engine.batch_write_item(input).expect("concurrent write");
            next += 25;
            std::thread::sleep(Duration::from_millis(2));
        }
        next - 10_000
    });
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("live.jsonl");
    let client = connect(&a.endpoint()).await;
    let report = export(&client, &a.endpoint(), "Live", &out, &dir.path().join("d.json"), &options(4))
        .await
        .expect("export");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let written = writes.await.expect("writer");
    assert!(written > 0, "writes went on during the export");
    let lines = file_lines(&out);
    assert_eq!(lines.len() as u64, report.items);
    let mut deduped = lines.clone();
    deduped.dedup();
    assert_eq!(deduped.len(), lines.len(), "no item is exported twice");
    let missing = before.iter().filter(|l| lines.binary_search(l).is_err()).count();
    assert_eq!(missing, 0, "every item present before the export began and not changed since is in it");
    assert!(lines.len() >= before.len() && lines.len() as u64 <= before.len() as u64 + written);
}

/// Runs `fut` until it has made `items` of progress or finished, then drops it, as Ctrl-C does.
/// Runs `fut` until a segment checkpoint under `checkpoint` records progress, then drops it
/// as Ctrl-C would; `Some` when `fut` finished first. Waiting for the checkpoint instead of a
/// fixed time keeps the interruption part-way whatever the machine's load.
async fn interrupt_when_checkpointed<F: std::future::Future>(fut: F, checkpoint: &Path) -> Option<F::Output> {
    let watch = async {
        while !checkpointed(checkpoint) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::select! {
        out = fut => Some(out),
        () = watch => None,
    }
}

/// True when a `segment-NNNN.json` under `dir` records transferred items or written batches.
fn checkpointed(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("segment-") && name.ends_with(".json")) {
            return false;
        }
        let state: serde_json::Value =
            std::fs::read(e.path()).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
        state["items"].as_u64().unwrap_or(0) > 0 || state["batches"].as_u64().unwrap_or(0) > 0
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interrupted_copy_resumes_to_the_same_item_set() {
    let (a, b) = (Serve::start().await, Serve::start().await);
    a.create_table("Tbl");
    a.fill("Tbl", 0..6_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let from = TableRef { client: connect(&a.endpoint()).await, endpoint: a.endpoint(), table: "Tbl".into() };
    let to = TableRef { client: connect(&b.endpoint()).await, endpoint: b.endpoint(), table: "Tbl".into() };
    let mut o = options(3);
    o.checkpoint = Some(dir.path().join("cp"));
    // 1,000 items/s after a one-second burst: the run is stopped part-way, once a segment
    // has checkpointed progress.
    o.rate = Some((1_000.0, RateUnit::Items));
    assert!(
        interrupt_when_checkpointed(copy(&from, &to, &o), &dir.path().join("cp")).await.is_none(),
        "copy was interrupted"
    );
    let partial = b.lines("Tbl").len();
    assert!(partial > 0 && partial < 6_000, "the first run copied {partial} items");

    let refused = copy(&from, &to, &o).await;
    assert!(
        matches!(refused, Err(TransferError::Checkpoint(_))),
        "a rerun without resume is refused: {refused:?}"
    );

    o.resume = true;
    o.rate = None;
    let report = copy(&from, &to, &o).await.expect("resumed copy");
    assert_eq!(report.items, 6_000, "resumed and new items add up to the table");
    assert!(report.resumed_items > 0);
    assert_eq!(b.lines("Tbl"), a.lines("Tbl"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interrupted_export_resumes_without_duplicates_or_gaps() {
    let a = Serve::start().await;
    a.create_table("Tbl");
    a.fill("Tbl", 0..6_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("t.jsonl");
    let client = connect(&a.endpoint()).await;
    let mut o = options(3);
    o.rate = Some((1_000.0, RateUnit::Items));
    let def = dir.path().join("t.table.json");
    assert!(interrupt_when_checkpointed(
        export(&client, &a.endpoint(), "Tbl", &out, &def, &o),
        &monotable_transfer::export_checkpoint(&out)
    )
    .await
    .is_none());
    assert!(!out.exists(), "an interrupted export leaves no output file, only its checkpoint");
    o.resume = true;
    o.rate = None;
    let report = export(&client, &a.endpoint(), "Tbl", &out, &def, &o).await.expect("resumed export");
    assert!(report.resumed_items > 0 && report.resumed_items < 6_000, "resumed {}", report.resumed_items);
    assert_eq!(file_lines(&out), a.lines("Tbl"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_interrupted_import_resumes_without_duplicates_or_gaps() {
    let (a, b) = (Serve::start().await, Serve::start().await);
    a.create_table("Tbl");
    a.fill("Tbl", 0..5_000);
    b.create_table("Tbl");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.jsonl");
    let client_a = connect(&a.endpoint()).await;
    export(&client_a, &a.endpoint(), "Tbl", &file, &dir.path().join("d.json"), &options(2))
        .await
        .expect("export");
    let client_b = connect(&b.endpoint()).await;
    let mut o = options(3);
    o.rate = Some((1_000.0, RateUnit::Items));
    assert!(interrupt_when_checkpointed(
        import(&client_b, &b.endpoint(), "Tbl", &file, None, &o),
        &monotable_transfer::import_checkpoint(&file)
    )
    .await
    .is_none());
    o.resume = true;
    o.rate = None;
    let report = import(&client_b, &b.endpoint(), "Tbl", &file, None, &o).await.expect("resumed import");
    assert_eq!(report.items, 5_000);
    assert!(report.resumed_items > 0);
    assert_eq!(b.lines("Tbl"), a.lines("Tbl"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_import_with_a_bad_line_writes_nothing_and_names_the_line() {
    let b = Serve::start().await;
    b.create_table("Tbl");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("bad.jsonl");
    let good = serde_json::json!({"Item": common::item(1, 0)}).to_string();
    let lacks_key = r#"{"Item":{"pk":{"S":"x"}}}"#;
    std::fs::write(&file, format!("{good}\n{lacks_key}\nnot json\n")).expect("write input");
    let client = connect(&b.endpoint()).await;
    let err = import(&client, &b.endpoint(), "Tbl", &file, None, &options(2)).await.expect_err("bad lines");
    match err {
        TransferError::BadLines { count, line, reason } => {
            assert_eq!((count, line), (2, 2));
            assert!(reason.contains("sk"), "{reason}");
        }
        other => panic!("expected BadLines, got {other}"),
    }
    assert!(b.lines("Tbl").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_items_rate_limit_holds_the_import_to_that_rate() {
    let (a, b) = (Serve::start().await, Serve::start().await);
    a.create_table("Tbl");
    a.fill("Tbl", 0..2_500);
    b.create_table("Tbl");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.jsonl");
    let client_a = connect(&a.endpoint()).await;
    export(&client_a, &a.endpoint(), "Tbl", &file, &dir.path().join("d.json"), &options(1))
        .await
        .expect("export");
    let mut o = options(4);
    o.rate = Some((1_000.0, RateUnit::Items));
    let started = Instant::now();
    let client_b = connect(&b.endpoint()).await;
    import(&client_b, &b.endpoint(), "Tbl", &file, None, &o).await.expect("import");
    // A one-second burst of 1,000, then 1,500 more at 1,000 per second.
    let took = started.elapsed();
    assert!(took >= Duration::from_millis(1_400), "2,500 items at 1,000/s took only {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn importing_into_a_missing_table_without_a_definition_is_a_clear_error() {
    let b = Serve::start().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("t.jsonl");
    std::fs::write(&file, "").expect("write input");
    let client = connect(&b.endpoint()).await;
    let err =
        import(&client, &b.endpoint(), "Missing", &file, None, &options(1)).await.expect_err("no table");
    assert!(err.to_string().contains("does not exist"), "{err}");
}

/// A definition read after UpdateTable deleted the table's index creates the table again
/// (DescribeTable lists only the attributes a remaining key uses), and it carries deletion
/// protection, which the created table has too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_definition_after_an_index_is_deleted_recreates_the_table_with_its_deletion_protection() {
    let (a, b) = (Serve::start().await, Serve::start().await);
    a.create_table("Orders");
    let client_a = connect(&a.endpoint()).await;
    let delete = aws_sdk_dynamodb::types::GlobalSecondaryIndexUpdate::builder()
        .delete(
            aws_sdk_dynamodb::types::DeleteGlobalSecondaryIndexAction::builder()
                .index_name("byName")
                .build()
                .expect("delete action"),
        )
        .build();
    client_a
        .update_table()
        .table_name("Orders")
        .global_secondary_index_updates(delete)
        .send()
        .await
        .expect("delete the index");
    client_a
        .update_table()
        .table_name("Orders")
        .deletion_protection_enabled(true)
        .send()
        .await
        .expect("protect the table");
    let definition = Definition::describe(&client_a, "Orders").await.expect("definition");
    assert_eq!(
        definition.0.pointer("/CreateTable/DeletionProtectionEnabled"),
        Some(&serde_json::json!(true))
    );
    let names: Vec<&str> = definition
        .0
        .pointer("/CreateTable/AttributeDefinitions")
        .and_then(serde_json::Value::as_array)
        .expect("definitions")
        .iter()
        .filter_map(|a| a.get("AttributeName")?.as_str())
        .collect();
    assert_eq!(names, ["pk", "sk"]);

    let client_b = connect(&b.endpoint()).await;
    definition.create(&client_b, "Orders").await.expect("the definition creates the table");
    let described = client_b.describe_table().table_name("Orders").send().await.expect("describe B");
    assert_eq!(described.table().and_then(|t| t.deletion_protection_enabled()), Some(true));
}
