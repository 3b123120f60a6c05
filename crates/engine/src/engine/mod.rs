//! [`Engine`]: one method per DynamoDB operation, each implemented in a submodule by
//! operation family.

mod arn;
mod backup;
mod batch;
mod capacity;
mod control;
mod get_ref;
mod in_flight;
mod index_projection;
mod items;
mod key_names;
mod legacy;
mod misc;
mod multi_key;
mod partiql;
mod policy;
mod read;
mod read_budget;
mod retired_streams;
mod stream_control;
mod streams;
mod tags;
mod throughput;
mod tokens;
mod transact;
mod transact_checks;
mod transact_get;
mod transfer;
mod update_table;
mod util;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};

pub(crate) use arn::{arn_table_name, table_name_of};
pub use in_flight::InFlightHook;
pub use read_budget::{read_budget_exceeded, within_read_budget};
pub use transfer::{DirectoryStore, ObjectStore, ObjectStoreError};

use crate::api::*;
use crate::storage::{MemoryStorage, Namespaced, Storage};
use crate::table::{Locks, Table};
use crate::{Error, Location};

/// The shared state behind every clone of an [`Engine`].
pub(crate) struct Inner {
    pub storage: Arc<dyn Storage>,
    /// Keyed with foldhash (hashbrown's default, seeded per process) rather than SipHash: a
    /// request looks its table up by name, and SipHash cost about 230 instructions of a
    /// GetItem's 28k. The names come from CreateTable, at most a few thousand.
    pub tables: RwLock<HashMap<String, Arc<Table>, hashbrown::DefaultHashBuilder>>,
    pub locks: Locks,
    pub next_seq: AtomicU64,
    /// TransactWriteItems client request tokens seen in the last 10 minutes.
    pub tokens: Mutex<tokens::Tokens>,
    /// The items of in-flight writes (conflict detection).
    pub in_flight: in_flight::InFlight,
    /// Exports, imports and the directory standing in for S3.
    pub transfers: transfer::Transfers,
    /// Deleted tables whose streams are still readable (for 24 hours after the deletion).
    pub retired: Mutex<Vec<retired_streams::Retired>>,
    /// The account and region of the tables, as ARNs name them.
    pub location: Location,
    /// `arn:aws:dynamodb:<region>:<account>:table/`, the head of every ARN of this engine.
    pub arn_prefix: String,
}

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
        self.set_object_store(std::sync::Arc::new(transfer::DirectoryStore::new(root)));
    }

    /// Sets where ExportTableToPointInTime writes and ImportTable reads (a real S3 API, say;
    /// see [`transfer::ObjectStore`]). Replaces any [`Engine::set_bucket_root`].
    pub fn set_object_store(&self, store: std::sync::Arc<dyn ObjectStore>) {
        self.inner.transfers.set_store(store);
    }

    /// The account and region of this engine's tables.
    pub fn location(&self) -> &Location {
        &self.inner.location
    }

    fn build(storage: Arc<dyn Storage>, location: Location) -> Engine {
        let arn_prefix = location.table_arn("");
        Engine {
            inner: Arc::new(Inner {
                storage,
                tables: RwLock::new(HashMap::default()),
                locks: Locks::new(),
                next_seq: AtomicU64::new(1),
                tokens: Mutex::new(tokens::Tokens::default()),
                in_flight: in_flight::InFlight::default(),
                retired: Mutex::new(Vec::new()),
                transfers: transfer::Transfers::default(),
                location,
                arn_prefix,
            }),
        }
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
        get_ref::get_item_ref(&self.inner, input)
    }
}

macro_rules! operations {
    ($( $(#[$m:meta])* $name:ident($input:ty) -> $output:ty = $imp:path; )*) => {
        impl Engine {
            $( $(#[$m])* pub fn $name(&self, input: $input) -> Result<$output, Error> {
                $imp(&self.inner, input)
            } )*
        }
    };
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
    update_table(UpdateTableInput) -> UpdateTableOutput = update_table::update_table;
    /// UpdateTimeToLive.
    update_time_to_live(UpdateTimeToLiveInput) -> UpdateTimeToLiveOutput = misc::update_time_to_live;
    /// DescribeTimeToLive.
    describe_time_to_live(DescribeTimeToLiveInput) -> DescribeTimeToLiveOutput = misc::describe_time_to_live;
    /// TagResource.
    tag_resource(TagResourceInput) -> TagResourceOutput = misc::tag_resource;
    /// UntagResource.
    untag_resource(UntagResourceInput) -> UntagResourceOutput = misc::untag_resource;
    /// ListTagsOfResource.
    list_tags_of_resource(ListTagsOfResourceInput) -> ListTagsOfResourceOutput = misc::list_tags_of_resource;
    /// DescribeLimits.
    describe_limits(DescribeLimitsInput) -> DescribeLimitsOutput = misc::describe_limits;
    /// DescribeEndpoints.
    describe_endpoints(DescribeEndpointsInput) -> DescribeEndpointsOutput = misc::describe_endpoints;
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
    export_table_to_point_in_time(ExportTableToPointInTimeInput) -> ExportTableToPointInTimeOutput = transfer::export_table_to_point_in_time;
    /// DescribeExport.
    describe_export(DescribeExportInput) -> DescribeExportOutput = transfer::describe_export;
    /// ListExports.
    list_exports(ListExportsInput) -> ListExportsOutput = transfer::list_exports;
    /// ImportTable.
    import_table(ImportTableInput) -> ImportTableOutput = transfer::import_table;
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
    transact_get_items(TransactGetItemsInput) -> TransactGetItemsOutput = transact_get::transact_get_items;
    /// ExecuteStatement (PartiQL).
    execute_statement(ExecuteStatementInput) -> ExecuteStatementOutput = partiql::execute_statement;
    /// BatchExecuteStatement (PartiQL).
    batch_execute_statement(BatchExecuteStatementInput) -> BatchExecuteStatementOutput = partiql::batch_execute_statement;
    /// ExecuteTransaction (PartiQL).
    execute_transaction(ExecuteTransactionInput) -> ExecuteTransactionOutput = partiql::execute_transaction;
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
