//! Many threads doing conditional increments and transactional transfers; totals must be
//! exact at the end.

mod common;

use std::thread;

use common::*;
use monotable_engine::*;
use serde_json::json;

const ACCOUNTS: usize = 8;
const THREADS: usize = 8;
const ROUNDS: usize = 200;

fn balance(e: &Engine, i: usize) -> i64 {
    let got = js(&e
        .get_item(req(
            json!({"TableName": "tbl", "Key": {"pk": {"S": format!("acct{i}")}, "sk": {"N": "0"}}}),
        ))
        .unwrap());
    got["Item"]["bal"]["N"].as_str().unwrap().parse().unwrap()
}

#[test]
fn conditional_increments_and_transfers_keep_exact_totals() {
    let e = engine_with_table();
    for i in 0..ACCOUNTS {
        put(
            &e,
            json!({"pk": {"S": format!("acct{i}")}, "sk": {"N": "0"}, "bal": {"N": "1000"}, "ver": {"N": "0"}}),
        );
    }
    put(&e, json!({"pk": {"S": "counter"}, "sk": {"N": "0"}, "n": {"N": "0"}}));
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let e = e.clone();
            thread::spawn(move || {
                let mut increments = 0;
                for r in 0..ROUNDS {
                    // Optimistic increment: read, then conditionally write n+1.
                    loop {
                        let got = js(&e
                            .get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "counter"}, "sk": {"N": "0"}}})))
                            .unwrap());
                        let n = got["Item"]["n"]["N"].as_str().unwrap().to_owned();
                        let r = e.update_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "counter"}, "sk": {"N": "0"}},
                            "UpdateExpression": "SET n = n + :one", "ConditionExpression": "n = :n",
                            "ExpressionAttributeValues": {":one": {"N": "1"}, ":n": {"N": n}}})));
                        match r {
                            Ok(_) => break,
                            Err(err) => assert_eq!(err.kind, ErrorKind::ConditionalCheckFailed),
                        }
                    }
                    increments += 1;
                    let from = (t + r) % ACCOUNTS;
                    let to = (t * 3 + r + 1) % ACCOUNTS;
                    if from == to {
                        continue;
                    }
                    let acct = |i: usize| json!({"pk": {"S": format!("acct{i}")}, "sk": {"N": "0"}});
                    let res = e.transact_write_items(req(json!({"TransactItems": [
                        {"Update": {"TableName": "tbl", "Key": acct(from), "UpdateExpression": "SET bal = bal - :a",
                            "ConditionExpression": "bal >= :a", "ExpressionAttributeValues": {":a": {"N": "7"}}}},
                        {"Update": {"TableName": "tbl", "Key": acct(to), "UpdateExpression": "SET bal = bal + :a",
                            "ExpressionAttributeValues": {":a": {"N": "7"}}}}
                    ]})));
                    if let Err(err) = res {
                        assert_eq!(err.kind, ErrorKind::TransactionCanceled);
                    }
                }
                increments
            })
        })
        .collect();
    // A reader checks that no partial transfer is ever visible to a transactional read.
    let reader = {
        let e = e.clone();
        thread::spawn(move || {
            for _ in 0..200 {
                let gets: Vec<_> = (0..ACCOUNTS)
                    .map(|i| json!({"Get": {"TableName": "tbl", "Key": {"pk": {"S": format!("acct{i}")}, "sk": {"N": "0"}}}}))
                    .collect();
                // A read meeting an in-flight transfer is cancelled (TransactionConflict), as in
                // DynamoDB; it is retried.
                let out = loop {
                    match e.transact_get_items(req(json!({"TransactItems": gets.clone()}))) {
                        Ok(out) => break out,
                        Err(err) => assert_eq!(err.kind, ErrorKind::TransactionCanceled),
                    }
                };
                let total: i64 = out
                    .responses
                    .unwrap()
                    .iter()
                    .map(|r| js(&r.item)["bal"]["N"].as_str().unwrap().parse::<i64>().unwrap())
                    .sum();
                assert_eq!(total, 1000 * ACCOUNTS as i64);
            }
        })
    };
    let total_increments: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    reader.join().unwrap();
    let counter = js(&e
        .get_item(req(json!({"TableName": "tbl", "Key": {"pk": {"S": "counter"}, "sk": {"N": "0"}}})))
        .unwrap());
    assert_eq!(counter["Item"]["n"]["N"], json!(total_increments.to_string()));
    assert_eq!(total_increments, THREADS * ROUNDS);
    let sum: i64 = (0..ACCOUNTS).map(|i| balance(&e, i)).sum();
    assert_eq!(sum, 1000 * ACCOUNTS as i64);
}
