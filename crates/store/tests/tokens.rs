//! TransactWriteItems client request tokens on the durable store: a token completed before a
//! restart still makes a replay a no-op and still refuses other parameters (DynamoDB's
//! 10-minute idempotency window, API_TransactWriteItems `ClientRequestToken`).

use monotable_engine::Engine;
use monotable_store::{open, SyncPolicy};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

fn req<T: DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("request")
}

fn increment(token: &str, by: &str) -> Value {
    json!({"ClientRequestToken": token, "TransactItems": [
        {"Update": {"TableName": "tok", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD n :by",
            "ExpressionAttributeValues": {":by": {"N": by}, ":unused_order_b": {"N": "0"}},
            "ConditionExpression": "attribute_not_exists(x) OR x <> :unused_order_b"}}]})
}

/// Creates the table `tok` (key `pk`, a string).
fn create_tok(engine: &Engine) {
    engine
        .create_table(req(json!({
            "TableName": "tok",
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "BillingMode": "PAY_PER_REQUEST"
        })))
        .expect("create");
}

fn counter(engine: &Engine) -> Value {
    let got = engine.get_item(req(json!({"TableName": "tok", "Key": {"pk": {"S": "a"}}}))).expect("get");
    serde_json::to_value(got.item).expect("json")["n"].clone()
}

#[test]
fn client_request_tokens_survive_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let engine =
            Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("open")).expect("engine");
        create_tok(&engine);
        engine.transact_write_items(req(increment("t-1", "1"))).expect("first call");
        // A cancelled call completes no token.
        let failed = json!({"ClientRequestToken": "t-2", "TransactItems": [
            {"ConditionCheck": {"TableName": "tok", "Key": {"pk": {"S": "a"}}, "ConditionExpression": "attribute_not_exists(pk)"}}]});
        engine.transact_write_items(req(failed)).expect_err("cancelled");
    }
    let engine = Engine::with_storage(open(dir.path(), SyncPolicy::Always).expect("reopen")).expect("engine");
    assert_eq!(counter(&engine), json!({"N": "1"}));
    engine.transact_write_items(req(increment("t-1", "1"))).expect("replay after the restart");
    assert_eq!(counter(&engine), json!({"N": "1"}), "the replay changed nothing");
    let e = engine.transact_write_items(req(increment("t-1", "5"))).expect_err("other parameters");
    assert_eq!(e.kind.type_name(), "IdempotentParameterMismatchException");
    // The cancelled call's token was never completed: a call with it runs.
    engine.transact_write_items(req(increment("t-2", "2"))).expect("t-2 runs");
    assert_eq!(counter(&engine), json!({"N": "3"}));
}

/// A replay answers for the original call's writes, so under group commit it must not be
/// acknowledged before they are durable: inside the server's `defer_sync` scope the replay
/// hands back a wait of its own, as the original does, though it writes nothing. (Before the
/// storage barrier, a retry that arrived while the original waited for its flush was answered
/// at once; a crash then lost a transaction the retry had reported as done.) Nothing flushes
/// until a waiter asks, so the first poll is pending whatever the timing.
#[test]
fn a_replay_is_not_acknowledged_before_the_original_is_durable() {
    use std::future::Future;
    use std::pin::Pin;
    use std::task::{Context, Waker};
    let dir = tempfile::tempdir().expect("tempdir");
    let engine =
        Engine::with_storage(open(dir.path(), SyncPolicy::default()).expect("open")).expect("engine");
    create_tok(&engine);
    let (first, original) =
        monotable_engine::defer_sync(|| engine.transact_write_items(req(increment("t-1", "1"))));
    first.expect("the original call");
    let original = original.expect("the original waits for its group commit");
    let (again, replay) =
        monotable_engine::defer_sync(|| engine.transact_write_items(req(increment("t-1", "1"))));
    again.expect("the replay");
    let mut replay = replay.expect("the replay waits for a flush too");
    assert!(Pin::new(&mut replay).poll(&mut Context::from_waker(Waker::noop())).is_pending());
    replay.wait().expect("flushed");
    original.wait().expect("the flush covered the original");
    assert_eq!(counter(&engine), json!({"N": "1"}), "the replay changed nothing");
}
