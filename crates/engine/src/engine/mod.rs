//! [`Engine`]: one method per DynamoDB operation, a thin dispatch onto the operation families
//! (`ops/`), which call down into the core (`core/`): the shared state [`Inner`], the
//! conditional single-item write, the read path and the helpers every family uses.
//!
//! Invariant: imports point down only, dispatch → families → core. The core names no family,
//! a family names no other family (front ends such as PartiQL run other operations through
//! the public `Engine` handle), and nothing below names this file's items but the public
//! `Engine`. `crates/engine/tests/layers.rs` checks it.

mod core;
mod ops;

use std::sync::Arc;

pub(crate) use self::core::arn::arn_table_name;
pub use self::core::bucket::{DirectoryStore, ObjectStore, ObjectStoreError};
pub use self::core::in_flight::InFlightHook;
pub use self::core::inline_budget::{budget_exceeded, within_budget, InlineBudget};
use self::core::Inner;
use self::ops::*;

use crate::api::*;
use crate::storage::{MemoryStorage, Namespaced, Storage};
use crate::{Error, Location};

/// An embedded DynamoDB engine. Cheap to clone (an `Arc` inside); `Send + Sync`.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("tables", &self.inner.tables.read().len()).finish()
    }
}

impl Engine {
    /// An engine in the default [`Location`] over a fresh in-memory store.
    pub fn new() -> Engine {
        Engine::new_at(Location::default())
    }

    /// An engine in `location` over a fresh in-memory store.
    pub fn new_at(location: Location) -> Engine {
        Engine::build(Arc::new(MemoryStorage::new()), location)
    }

    /// An engine in the default [`Location`] over the given store, loading the tables in its
    /// catalog. Catalog entries that cannot be read are reported as an error.
    pub fn with_storage(storage: Arc<dyn Storage>) -> Result<Engine, Error> {
        Engine::with_storage_at(storage, Location::default())
    }

    /// An engine in `location` over the given store, which engines of other locations may
    /// share: this one reads and writes only the names of its location (the default
    /// location's are the store's bare names, so a store written by [`Engine::with_storage`]
    /// opens there).
    pub fn with_storage_at(storage: Arc<dyn Storage>, location: Location) -> Result<Engine, Error> {
        let engine = Engine::build(Arc::new(Namespaced::new(storage, &location)), location);
        control::load_catalog(&engine.inner)?;
        let inner = &engine.inner;
        inner.tokens.lock().load(inner.storage.as_ref(), crate::stream::now_millis())?;
        Ok(engine)
    }

    /// Whether a write may block its thread for long right now ([`Storage::writes_may_block`]).
    pub fn writes_may_block(&self) -> bool {
        self.inner.storage.writes_may_block()
    }

    /// Sets the directory that stands in for S3: bucket `b` of ExportTableToPointInTime and
    /// ImportTable is its subdirectory `b`, which must exist. The default is
    /// `monotable-buckets` in the system's temporary directory.
    pub fn set_bucket_root(&self, root: impl Into<std::path::PathBuf>) {
        self.set_object_store(Arc::new(DirectoryStore::new(root)));
    }

    /// Sets where ExportTableToPointInTime writes and ImportTable reads (a real S3 API, say;
    /// see [`ObjectStore`]). Replaces any [`Engine::set_bucket_root`].
    pub fn set_object_store(&self, store: Arc<dyn ObjectStore>) {
        self.inner.transfers.set_store(store);
    }

    /// The account and region of this engine's tables.
    pub fn location(&self) -> &Location {
        &self.inner.location
    }

    fn build(storage: Arc<dyn Storage>, location: Location) -> Engine {
        Engine { inner: Arc::new(Inner::new(storage, location)) }
    }
}

impl Engine {
    /// GetItem on a borrowed request, for a caller that can read a plain lookup without
    /// building [`GetItemInput`] (the server reads it straight from the request body).
    ///
    /// Returns `None` when the request is not one this path answers: anything that could fail
    /// a check (an unknown table, a key that does not match the schema, …) and table ARNs.
    /// Run [`Engine::get_item`] on the owned request then; it gives DynamoDB's answer, errors
    /// included. `Some` holds exactly what `get_item` returns for the same request.
    pub fn get_item_ref(&self, input: &GetItemRef<'_>) -> Option<Result<GetItemOutput, Error>> {
        items::get_item_ref(&self.inner, input)
    }
}

/// One public method per operation: `= family::function` calls it on the core state;
/// `= @front family::function` also hands it this `Engine`, through which it runs other
/// operations (PartiQL's statements, an import's CreateTable and PutItems, an export's Scans).
macro_rules! operations {
    ($( $(#[$m:meta])* $name:ident($input:ty) -> $output:ty = $(@$front:ident)? $imp:path; )*) => {
        impl Engine {
            $( $(#[$m])* pub fn $name(&self, input: $input) -> Result<$output, Error> {
                operations!(@call self, input, $($front)? $imp)
            } )*
        }
    };
    (@call $self:ident, $input:ident, front $imp:path) => { $imp($self, &$self.inner, $input) };
    (@call $self:ident, $input:ident, $imp:path) => { $imp(&$self.inner, $input) };
}

operations! {
    /// CreateTable.
    create_table(CreateTableInput) -> CreateTableOutput = control::create_table;
    /// DescribeTable.
    describe_table(DescribeTableInput) -> DescribeTableOutput = control::describe_table;
    /// ListTables.
    list_tables(ListTablesInput) -> ListTablesOutput = control::list_tables;
    /// DeleteTable.
    delete_table(DeleteTableInput) -> DeleteTableOutput = control::delete_table;
    /// UpdateTable.
    update_table(UpdateTableInput) -> UpdateTableOutput = control::update_table;
    /// UpdateTimeToLive.
    update_time_to_live(UpdateTimeToLiveInput) -> UpdateTimeToLiveOutput = control::update_time_to_live;
    /// DescribeTimeToLive.
    describe_time_to_live(DescribeTimeToLiveInput) -> DescribeTimeToLiveOutput = control::describe_time_to_live;
    /// TagResource.
    tag_resource(TagResourceInput) -> TagResourceOutput = control::tag_resource;
    /// UntagResource.
    untag_resource(UntagResourceInput) -> UntagResourceOutput = control::untag_resource;
    /// ListTagsOfResource.
    list_tags_of_resource(ListTagsOfResourceInput) -> ListTagsOfResourceOutput = control::list_tags_of_resource;
    /// DescribeLimits.
    describe_limits(DescribeLimitsInput) -> DescribeLimitsOutput = control::describe_limits;
    /// DescribeEndpoints.
    describe_endpoints(DescribeEndpointsInput) -> DescribeEndpointsOutput = control::describe_endpoints;
    /// PutResourcePolicy.
    put_resource_policy(PutResourcePolicyInput) -> PutResourcePolicyOutput = policy::put_resource_policy;
    /// GetResourcePolicy.
    get_resource_policy(GetResourcePolicyInput) -> GetResourcePolicyOutput = policy::get_resource_policy;
    /// DeleteResourcePolicy.
    delete_resource_policy(DeleteResourcePolicyInput) -> DeleteResourcePolicyOutput = policy::delete_resource_policy;
    /// UpdateContinuousBackups.
    update_continuous_backups(UpdateContinuousBackupsInput) -> UpdateContinuousBackupsOutput = backup::update_continuous_backups;
    /// DescribeContinuousBackups.
    describe_continuous_backups(DescribeContinuousBackupsInput) -> DescribeContinuousBackupsOutput = backup::describe_continuous_backups;
    /// ExportTableToPointInTime.
    export_table_to_point_in_time(ExportTableToPointInTimeInput) -> ExportTableToPointInTimeOutput = @front transfer::export_table_to_point_in_time;
    /// DescribeExport.
    describe_export(DescribeExportInput) -> DescribeExportOutput = transfer::describe_export;
    /// ListExports.
    list_exports(ListExportsInput) -> ListExportsOutput = transfer::list_exports;
    /// ImportTable.
    import_table(ImportTableInput) -> ImportTableOutput = @front transfer::import_table;
    /// DescribeImport.
    describe_import(DescribeImportInput) -> DescribeImportOutput = transfer::describe_import;
    /// ListImports.
    list_imports(ListImportsInput) -> ListImportsOutput = transfer::list_imports;
    /// GetItem.
    get_item(GetItemInput) -> GetItemOutput = items::get_item;
    /// PutItem.
    put_item(PutItemInput) -> PutItemOutput = items::put_item;
    /// UpdateItem.
    update_item(UpdateItemInput) -> UpdateItemOutput = items::update_item;
    /// DeleteItem.
    delete_item(DeleteItemInput) -> DeleteItemOutput = items::delete_item;
    /// Query.
    query(QueryInput) -> QueryOutput = read::query;
    /// Scan.
    scan(ScanInput) -> ScanOutput = read::scan;
    /// BatchGetItem.
    batch_get_item(BatchGetItemInput) -> BatchGetItemOutput = batch::batch_get_item;
    /// BatchWriteItem.
    batch_write_item(BatchWriteItemInput) -> BatchWriteItemOutput = batch::batch_write_item;
    /// TransactWriteItems.
    transact_write_items(TransactWriteItemsInput) -> TransactWriteItemsOutput = transact::transact_write_items;
    /// TransactGetItems.
    transact_get_items(TransactGetItemsInput) -> TransactGetItemsOutput = transact::transact_get_items;
    /// ExecuteStatement (PartiQL).
    execute_statement(ExecuteStatementInput) -> ExecuteStatementOutput = @front partiql::execute_statement;
    /// BatchExecuteStatement (PartiQL).
    batch_execute_statement(BatchExecuteStatementInput) -> BatchExecuteStatementOutput = @front partiql::batch_execute_statement;
    /// ExecuteTransaction (PartiQL).
    execute_transaction(ExecuteTransactionInput) -> ExecuteTransactionOutput = @front partiql::execute_transaction;
    /// DynamoDB Streams ListStreams.
    list_streams(ListStreamsInput) -> ListStreamsOutput = streams::list_streams;
    /// DynamoDB Streams DescribeStream.
    describe_stream(DescribeStreamInput) -> DescribeStreamOutput = streams::describe_stream;
    /// DynamoDB Streams GetShardIterator.
    get_shard_iterator(GetShardIteratorInput) -> GetShardIteratorOutput = streams::get_shard_iterator;
    /// DynamoDB Streams GetRecords.
    get_records(GetRecordsInput) -> GetRecordsOutput = streams::get_records;
}

impl Engine {
    /// Test support: `hook` is called, with `"TransactWriteItems"` or `"write"` (a PutItem,
    /// UpdateItem, DeleteItem or one write of a BatchWriteItem), on the calling thread each
    /// time a write has claimed its items as in flight and before it locks and commits them.
    /// A hook that blocks holds that write in flight, so a test can show what DynamoDB answers
    /// to work that meets it. `None` removes the hook; without one the check costs one atomic
    /// load per write.
    #[doc(hidden)]
    pub fn set_in_flight_hook(&self, hook: Option<InFlightHook>) {
        self.inner.in_flight.set_hook(hook);
    }

    /// DeleteItem as the Time to Live process runs it: the same operation, but the stream
    /// record of the deletion carries the DynamoDB service as its `userIdentity`.
    pub fn delete_expired_item(&self, input: DeleteItemInput) -> Result<DeleteItemOutput, Error> {
        struct Reset;
        impl Drop for Reset {
            fn drop(&mut self) {
                crate::stream::SERVICE_DELETE.with(|s| s.set(false));
            }
        }
        crate::stream::SERVICE_DELETE.with(|s| s.set(true));
        let _reset = Reset;
        items::delete_item(&self.inner, input)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    fn input<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> T {
        serde_json::from_value(v).expect("a valid request")
    }

    #[test]
    fn a_write_under_an_inline_budget_does_not_wait_for_a_stripe_another_write_holds() {
        let engine = Engine::new();
        engine
            .create_table(input(json!({
                "TableName": "tbl",
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "BillingMode": "PAY_PER_REQUEST"
            })))
            .expect("created");
        let put = || {
            input::<PutItemInput>(json!({"TableName": "tbl", "Item": {"pk": {"S": "a"}, "n": {"N": "1"}}}))
        };
        let budget = InlineBudget { read_bytes: 64 * 1024, evaluation: 64 * 1024 };
        // Another write holds every stripe, so whichever the item maps to.
        let held = engine.inner.locks.lock_many((0..4096).collect());
        let (done, finished) = mpsc::channel();
        let worker = engine.clone();
        std::thread::spawn(move || {
            done.send(within_budget(budget, || worker.put_item(put()).is_ok())).expect("the test waits")
        });
        // A wait for the lock would not return until `held` is dropped: the timeout is only the
        // failure's detector, never reached when the attempt stops.
        let attempt = finished
            .recv_timeout(Duration::from_secs(30))
            .expect("the budgeted write waited for the stripe lock");
        assert_eq!(attempt, None, "the attempt stops as past its budget");
        drop(held);
        assert_eq!(within_budget(budget, || engine.put_item(put()).is_ok()), Some(true));
        let got =
            engine.get_item(input(json!({"TableName": "tbl", "Key": {"pk": {"S": "a"}}}))).expect("read");
        assert!(got.item.is_some(), "the write applied once it could take the lock");
    }

    #[test]
    fn a_write_that_sums_its_item_collection_stops_under_an_inline_budget_before_it_runs() {
        let engine = Engine::new();
        engine
            .create_table(input(json!({
                "TableName": "lsi",
                "AttributeDefinitions": [
                    {"AttributeName": "pk", "AttributeType": "S"},
                    {"AttributeName": "sk", "AttributeType": "S"},
                    {"AttributeName": "n", "AttributeType": "N"}
                ],
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "sk", "KeyType": "RANGE"}
                ],
                "LocalSecondaryIndexes": [{
                    "IndexName": "by_n",
                    "KeySchema": [
                        {"AttributeName": "pk", "KeyType": "HASH"},
                        {"AttributeName": "n", "KeyType": "RANGE"}
                    ],
                    "Projection": {"ProjectionType": "ALL"}
                }],
                "BillingMode": "PAY_PER_REQUEST"
            })))
            .expect("created");
        let put = |sk: &str, metrics: &str| {
            input::<PutItemInput>(json!({
                "TableName": "lsi",
                "Item": {"pk": {"S": "a"}, "sk": {"S": sk}, "n": {"N": "1"}},
                "ReturnItemCollectionMetrics": metrics
            }))
        };
        let update = || {
            input::<UpdateItemInput>(json!({
                "TableName": "lsi",
                "Key": {"pk": {"S": "a"}, "sk": {"S": "u"}},
                "UpdateExpression": "SET n = :n",
                "ExpressionAttributeValues": {":n": {"N": "2"}},
                "ReturnItemCollectionMetrics": "SIZE"
            }))
        };
        let budget = InlineBudget { read_bytes: 64 * 1024, evaluation: 64 * 1024 };
        let count = || engine.scan(input(json!({"TableName": "lsi"}))).expect("scan").count.unwrap_or(0);
        // Summing the collection walks the whole partition after the commit, where no budget
        // can stop it: under a budget the write stops before anything is written.
        assert!(within_budget(budget, || engine.put_item(put("s", "SIZE")).is_ok()).is_none());
        assert!(within_budget(budget, || engine.update_item(update()).is_ok()).is_none());
        assert_eq!(count(), 0, "nothing was written");
        // Without SIZE the write runs under the budget, and without a budget SIZE is answered.
        assert_eq!(within_budget(budget, || engine.put_item(put("n", "NONE")).is_ok()), Some(true));
        let summed = engine.put_item(put("s", "SIZE")).expect("written");
        assert!(summed.item_collection_metrics.is_some());
        assert_eq!(count(), 2);
    }
}
