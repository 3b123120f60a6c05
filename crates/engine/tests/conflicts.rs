//! Transaction conflicts as DynamoDB reports them ("Transaction conflict handling in
//! DynamoDB", developer guide transaction-apis; API_TransactWriteItems, API_TransactGetItems,
//! API_PutItem/UpdateItem/DeleteItem Errors: TransactionConflictException).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::Duration;

use common::*;
use monotable_engine::*;
use serde_json::{json, Value};

fn key(i: usize) -> Value {
    json!({"pk": {"S": format!("k{i}")}, "sk": {"N": "0"}})
}

fn codes(e: &Error) -> Vec<String> {
    e.cancellation_reasons.iter().flatten().map(|r| r.code.clone().unwrap_or_default()).collect()
}

/// Runs `tx` on a thread and holds it in flight (claims taken, not yet committed) until the
/// returned sender is dropped or sent to; returns once it is in flight.
fn hold_transaction(e: &Engine, tx: Value) -> (mpsc::Sender<()>, thread::JoinHandle<Result<(), Error>>) {
    let (entered_tx, entered) = mpsc::channel::<()>();
    let (release, released) = mpsc::channel::<()>();
    let released = Arc::new(Mutex::new(Some(released)));
    let entered_tx = Mutex::new(Some(entered_tx));
    e.set_in_flight_hook(Some(Arc::new(move |op| {
        if op == "TransactWriteItems" {
            if let Some(rx) = released.lock().unwrap().take() {
                if let Some(tx) = entered_tx.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                let _ = rx.recv();
            }
        }
    })));
    let held = e.clone();
    let handle = thread::spawn(move || held.transact_write_items(req(tx)).map(|_| ()));
    entered.recv().expect("the transaction reaches its in-flight point");
    (release, handle)
}

fn transfer(from: usize, to: usize) -> Value {
    json!({"TransactItems": [
        {"Update": {"TableName": "tbl", "Key": key(from), "UpdateExpression": "ADD bal :m, txns :one",
            "ExpressionAttributeValues": {":m": {"N": "-1"}, ":one": {"N": "1"}}}},
        {"Update": {"TableName": "tbl", "Key": key(to), "UpdateExpression": "ADD bal :p",
            "ExpressionAttributeValues": {":p": {"N": "1"}}}}]})
}

#[test]
fn plain_writes_meeting_an_in_flight_transaction_get_transaction_conflict_exception() {
    let e = engine_with_table();
    let (release, handle) = hold_transaction(&e, transfer(0, 1));
    let put = e.put_item(req(json!({"TableName": "tbl", "Item": key(0)})));
    let update = e
        .update_item(req(json!({"TableName": "tbl", "Key": key(1), "UpdateExpression": "SET a = :a",
        "ExpressionAttributeValues": {":a": {"S": "x"}}})));
    let delete = e.delete_item(req(json!({"TableName": "tbl", "Key": key(0)})));
    for r in [put.map(|_| ()), update.map(|_| ()), delete.map(|_| ())] {
        let err = r.unwrap_err();
        assert_eq!(err.kind, ErrorKind::TransactionConflict);
        assert_eq!(err.kind.type_name(), "TransactionConflictException");
        assert_eq!(err.message, "Transaction is ongoing for the item");
    }
    // Another item is free, and GetItem on a held item succeeds (both operations can succeed).
    e.put_item(req(json!({"TableName": "tbl", "Item": key(2)}))).unwrap();
    e.get_item(req(json!({"TableName": "tbl", "Key": key(0)}))).unwrap();
    release.send(()).unwrap();
    handle.join().unwrap().unwrap();
    let got = js(&e.get_item(req(json!({"TableName": "tbl", "Key": key(1)}))).unwrap());
    assert_eq!(got["Item"]["bal"], json!({"N": "1"}), "the held transaction commits afterwards");
    assert!(got["Item"].get("a").is_none(), "the refused update changed nothing");
    e.put_item(req(json!({"TableName": "tbl", "Item": key(0)}))).unwrap();
}

#[test]
fn a_transaction_meeting_an_in_flight_transaction_is_cancelled_with_transaction_conflict() {
    let e = engine_with_table();
    let (release, handle) = hold_transaction(&e, transfer(0, 1));
    let err = e
        .transact_write_items(req(json!({"TransactItems": [
            {"Put": {"TableName": "tbl", "Item": key(5)}},
            {"ConditionCheck": {"TableName": "tbl", "Key": key(1), "ConditionExpression": "attribute_not_exists(pk)"}}]})))
        .unwrap_err();
    assert_eq!(err.kind, ErrorKind::TransactionCanceled);
    assert_eq!(
        err.message,
        "Transaction cancelled, please refer cancellation reasons for specific reasons [None, TransactionConflict]"
    );
    let reasons = err.cancellation_reasons.clone().unwrap();
    assert_eq!(reasons[1].message.as_deref(), Some("Transaction is ongoing for the item"));
    assert_eq!(codes(&err), ["None", "TransactionConflict"]);
    // Nothing of the cancelled transaction was written.
    assert!(e.get_item(req(json!({"TableName": "tbl", "Key": key(5)}))).unwrap().item.is_none());
    // A transactional read of a held item is cancelled the same way.
    let err = e
        .transact_get_items(req(json!({"TransactItems": [
            {"Get": {"TableName": "tbl", "Key": key(0)}}, {"Get": {"TableName": "tbl", "Key": key(7)}}]})))
        .unwrap_err();
    assert_eq!(codes(&err), ["TransactionConflict", "None"]);
    // BatchWriteItem returns the held item's write unprocessed and applies the others.
    let out = e
        .batch_write_item(req(json!({"RequestItems": {"tbl": [
            {"PutRequest": {"Item": key(0)}}, {"PutRequest": {"Item": key(6)}}]}})))
        .unwrap();
    let unprocessed = js(&out)["UnprocessedItems"]["tbl"].clone();
    assert_eq!(unprocessed, json!([{"PutRequest": {"Item": key(0)}}]));
    assert!(e.get_item(req(json!({"TableName": "tbl", "Key": key(6)}))).unwrap().item.is_some());
    release.send(()).unwrap();
    handle.join().unwrap().unwrap();
    // Once the first transaction has committed, the same requests run.
    e.transact_get_items(req(json!({"TransactItems": [{"Get": {"TableName": "tbl", "Key": key(0)}}]})))
        .unwrap();
}

#[test]
fn a_replay_while_the_first_call_runs_is_in_progress_and_afterwards_changes_nothing() {
    let e = engine_with_table();
    let mut tx = transfer(0, 1);
    tx["ClientRequestToken"] = json!("tok-1");
    let (release, handle) = hold_transaction(&e, tx.clone());
    let err = e.transact_write_items(req(tx.clone())).unwrap_err();
    assert_eq!(err.kind.type_name(), "TransactionInProgressException");
    let mut other = transfer(1, 0);
    other["ClientRequestToken"] = json!("tok-1");
    let err = e.transact_write_items(req(other.clone())).unwrap_err();
    assert_eq!(err.kind.type_name(), "IdempotentParameterMismatchException");
    release.send(()).unwrap();
    handle.join().unwrap().unwrap();
    e.set_in_flight_hook(None);
    // The replay succeeds without a change and reports read capacity instead of write capacity.
    tx["ReturnConsumedCapacity"] = json!("TOTAL");
    let out = js(&e.transact_write_items(req(tx)).unwrap());
    assert_eq!(
        out["ConsumedCapacity"],
        json!([{"TableName": "tbl", "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}])
    );
    let got = js(&e.get_item(req(json!({"TableName": "tbl", "Key": key(0)}))).unwrap());
    assert_eq!(got["Item"]["txns"], json!({"N": "1"}), "a replayed token is applied once");
    assert_eq!(
        e.transact_write_items(req(other)).unwrap_err().kind.type_name(),
        "IdempotentParameterMismatchException"
    );
}

const ITEMS: usize = 4;
const THREADS: usize = 6;
const ROUNDS: usize = 150;

/// Threads run transfers (transactions), plain increments and transactional reads over the
/// same few items, retrying on the conflicts DynamoDB reports; every error is one of those,
/// and at the end no update is lost.
#[test]
fn transactions_and_plain_writes_on_the_same_items_lose_no_update() {
    let e = engine_with_table();
    for i in 0..ITEMS {
        let mut item = key(i);
        item["bal"] = json!({"N": "100"});
        item["n"] = json!({"N": "0"});
        item["txns"] = json!({"N": "0"});
        put(&e, item);
    }
    // Transactions stay in flight a little longer than they would, so conflicts are frequent.
    e.set_in_flight_hook(Some(Arc::new(|op| {
        if op == "TransactWriteItems" {
            thread::sleep(Duration::from_micros(200));
        }
    })));
    let plain_conflicts = Arc::new(AtomicUsize::new(0));
    let txn_conflicts = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let e = e.clone();
            let (plain_conflicts, txn_conflicts) = (plain_conflicts.clone(), txn_conflicts.clone());
            thread::spawn(move || {
                let (mut increments, mut transfers) = (0usize, 0usize);
                for r in 0..ROUNDS {
                    let a = (t + r) % ITEMS;
                    if (t + r) % 2 == 0 {
                        loop {
                            match e.update_item(req(json!({"TableName": "tbl", "Key": key(a),
                                "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}})))
                            {
                                Ok(_) => break,
                                Err(err) => {
                                    assert_eq!(err.kind, ErrorKind::TransactionConflict, "{err:?}");
                                    assert_eq!(err.message, "Transaction is ongoing for the item");
                                    plain_conflicts.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }
                        increments += 1;
                    } else {
                        let b = (a + 1 + t % (ITEMS - 1)) % ITEMS;
                        loop {
                            match e.transact_write_items(req(transfer(a, b))) {
                                Ok(_) => break,
                                Err(err) => {
                                    assert_eq!(err.kind, ErrorKind::TransactionCanceled, "{err:?}");
                                    let c = codes(&err);
                                    assert!(c.iter().all(|c| c == "None" || c == "TransactionConflict"), "{c:?}");
                                    assert!(c.iter().any(|c| c == "TransactionConflict"), "{c:?}");
                                    txn_conflicts.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                        }
                        transfers += 1;
                    }
                }
                (increments, transfers)
            })
        })
        .collect();
    let reader = {
        let e = e.clone();
        thread::spawn(move || {
            for _ in 0..100 {
                let gets: Vec<Value> =
                    (0..ITEMS).map(|i| json!({"Get": {"TableName": "tbl", "Key": key(i)}})).collect();
                match e.transact_get_items(req(json!({"TransactItems": gets}))) {
                    Ok(out) => {
                        let total: i64 = js(&out)["Responses"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|r| r["Item"]["bal"]["N"].as_str().unwrap().parse::<i64>().unwrap())
                            .sum();
                        assert_eq!(total, 100 * ITEMS as i64, "a transactional read sees whole transfers");
                    }
                    Err(err) => {
                        assert_eq!(err.kind, ErrorKind::TransactionCanceled);
                        assert!(codes(&err).iter().any(|c| c == "TransactionConflict"));
                    }
                }
            }
        })
    };
    let (mut increments, mut transfers) = (0, 0);
    for h in handles {
        let (i, t) = h.join().unwrap();
        increments += i;
        transfers += t;
    }
    reader.join().unwrap();
    let field = |name: &str| -> i64 {
        (0..ITEMS)
            .map(|i| {
                let got = js(&e.get_item(req(json!({"TableName": "tbl", "Key": key(i)}))).unwrap());
                got["Item"][name]["N"].as_str().unwrap().parse::<i64>().unwrap()
            })
            .sum()
    };
    assert_eq!(field("n"), increments as i64, "no plain increment is lost");
    assert_eq!(field("txns"), transfers as i64, "no transaction is lost or applied twice");
    assert_eq!(field("bal"), 100 * ITEMS as i64);
    assert!(plain_conflicts.load(Ordering::Relaxed) > 0, "plain writes met transactions");
    assert!(txn_conflicts.load(Ordering::Relaxed) > 0, "transactions met transactions");
}
