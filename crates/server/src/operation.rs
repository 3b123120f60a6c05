//! The operations this server speaks: the one table mapping `X-Amz-Target` names to engine
//! calls and their request/response shapes.

use monotable_engine::*;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::decode::decode_input;
use crate::ServerError;

/// The `X-Amz-Target` prefix of DynamoDB's current API version.
pub const TARGET_PREFIX: &str = "DynamoDB_20120810.";

/// The `X-Amz-Target` prefix of the DynamoDB Streams API, served on the same endpoint.
pub const STREAMS_TARGET_PREFIX: &str = "DynamoDBStreams_20120810.";

/// Declares [`Operation`] and its dispatch from two lists of
/// `Name => engine_method(InputShape)` rows, DynamoDB's and then DynamoDB Streams' (after
/// `@streams`), so that a name, its API, its variant and its engine call cannot drift apart.
macro_rules! operations {
    ($($name:ident => $method:ident($input:ty),)*
     @streams $($sname:ident => $smethod:ident($sinput:ty),)*) => {
        /// A DynamoDB operation, named as in `X-Amz-Target: DynamoDB_20120810.<Name>`, or a
        /// DynamoDB Streams one (`DynamoDBStreams_20120810.<Name>`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Operation {
            $(#[doc = concat!("`", stringify!($name), "`")] $name,)*
            $(#[doc = concat!("DynamoDB Streams `", stringify!($sname), "`")] $sname,)*
        }

        impl Operation {
            /// Every operation, in declaration order.
            pub const ALL: &'static [Operation] = &[$(Operation::$name,)* $(Operation::$sname,)*];

            /// The operation's name (`GetItem`, `GetRecords`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Operation::$name => stringify!($name),)*
                    $(Operation::$sname => stringify!($sname),)*
                }
            }

            /// The `X-Amz-Target` prefix of the operation's API.
            pub fn target_prefix(self) -> &'static str {
                match self {
                    $(Operation::$name => TARGET_PREFIX,)*
                    $(Operation::$sname => STREAMS_TARGET_PREFIX,)*
                }
            }

            /// The operation with this DynamoDB name, if this server implements it.
            pub fn from_name(name: &str) -> Option<Operation> {
                match name {
                    $(stringify!($name) => Some(Operation::$name),)*
                    _ => None,
                }
            }

            /// The operation with this DynamoDB Streams name.
            pub fn from_streams_name(name: &str) -> Option<Operation> {
                match name {
                    $(stringify!($sname) => Some(Operation::$sname),)*
                    _ => None,
                }
            }

            /// Decodes `body` into the operation's input shape, runs it on `engine` and
            /// encodes the output shape.
            pub(crate) fn call(self, engine: &Engine, body: &str) -> Result<Vec<u8>, ServerError> {
                if self == Operation::GetItem {
                    if let Some(answer) = plain_get_item(engine, body) {
                        return answer;
                    }
                }
                let answer = match self {
                    $(Operation::$name => run(body, |input: $input| engine.$method(input)),)*
                    $(Operation::$sname => run(body, |input: $sinput| engine.$smethod(input)),)*
                };
                answer.map_err(|e| crate::decode::reword_number_error(self, e))
            }
        }
    };
}

operations! {
    BatchExecuteStatement => batch_execute_statement(BatchExecuteStatementInput),
    BatchGetItem => batch_get_item(BatchGetItemInput),
    BatchWriteItem => batch_write_item(BatchWriteItemInput),
    CreateTable => create_table(CreateTableInput),
    DeleteItem => delete_item(DeleteItemInput),
    DeleteResourcePolicy => delete_resource_policy(DeleteResourcePolicyInput),
    DeleteTable => delete_table(DeleteTableInput),
    DescribeContinuousBackups => describe_continuous_backups(DescribeContinuousBackupsInput),
    DescribeEndpoints => describe_endpoints(DescribeEndpointsInput),
    DescribeExport => describe_export(DescribeExportInput),
    DescribeImport => describe_import(DescribeImportInput),
    DescribeLimits => describe_limits(DescribeLimitsInput),
    DescribeTable => describe_table(DescribeTableInput),
    DescribeTimeToLive => describe_time_to_live(DescribeTimeToLiveInput),
    ExecuteStatement => execute_statement(ExecuteStatementInput),
    ExecuteTransaction => execute_transaction(ExecuteTransactionInput),
    ExportTableToPointInTime => export_table_to_point_in_time(ExportTableToPointInTimeInput),
    GetItem => get_item(GetItemInput),
    GetResourcePolicy => get_resource_policy(GetResourcePolicyInput),
    ImportTable => import_table(ImportTableInput),
    ListExports => list_exports(ListExportsInput),
    ListImports => list_imports(ListImportsInput),
    ListTables => list_tables(ListTablesInput),
    ListTagsOfResource => list_tags_of_resource(ListTagsOfResourceInput),
    PutItem => put_item(PutItemInput),
    PutResourcePolicy => put_resource_policy(PutResourcePolicyInput),
    Query => query(QueryInput),
    Scan => scan(ScanInput),
    TagResource => tag_resource(TagResourceInput),
    TransactGetItems => transact_get_items(TransactGetItemsInput),
    TransactWriteItems => transact_write_items(TransactWriteItemsInput),
    UntagResource => untag_resource(UntagResourceInput),
    UpdateContinuousBackups => update_continuous_backups(UpdateContinuousBackupsInput),
    UpdateItem => update_item(UpdateItemInput),
    UpdateTable => update_table(UpdateTableInput),
    UpdateTimeToLive => update_time_to_live(UpdateTimeToLiveInput),
@streams
    DescribeStream => describe_stream(DescribeStreamInput),
    GetRecords => get_records(GetRecordsInput),
    GetShardIterator => get_shard_iterator(GetShardIteratorInput),
    ListStreams => list_streams(ListStreamsInput),
}

/// DynamoDB operations this server does not implement. They are refused like unknown ones,
/// but with a message saying so, to tell "not supported" apart from a typo.
const NOT_IMPLEMENTED: &[&str] = &[
    "CreateBackup",
    "CreateGlobalTable",
    "DeleteBackup",
    "DescribeBackup",
    "DescribeContributorInsights",
    "DescribeGlobalTable",
    "DescribeGlobalTableSettings",
    "DescribeKinesisStreamingDestination",
    "DescribeTableReplicaAutoScaling",
    "DisableKinesisStreamingDestination",
    "EnableKinesisStreamingDestination",
    "ListBackups",
    "ListContributorInsights",
    "ListGlobalTables",
    "RestoreTableFromBackup",
    "RestoreTableToPointInTime",
    "UpdateContributorInsights",
    "UpdateGlobalTable",
    "UpdateGlobalTableSettings",
    "UpdateKinesisStreamingDestination",
    "UpdateTableReplicaAutoScaling",
];

impl Operation {
    /// Parses an `X-Amz-Target` header value. A missing header, another API version or an
    /// unknown name is `UnknownOperationException`, which DynamoDB sends without a message; a
    /// DynamoDB operation this server does not implement gets a message saying so.
    pub fn from_target(target: Option<&str>) -> Result<Operation, ServerError> {
        if let Some(op) =
            target.and_then(|t| t.strip_prefix(STREAMS_TARGET_PREFIX)).and_then(Operation::from_streams_name)
        {
            return Ok(op);
        }
        let name = target.and_then(|t| t.strip_prefix(TARGET_PREFIX));
        match name.map(|n| (n, Operation::from_name(n))) {
            Some((_, Some(op))) => Ok(op),
            Some((name, None)) if NOT_IMPLEMENTED.contains(&name) => Err(ServerError::UnknownOperation(
                Some(format!("monotable does not implement the DynamoDB operation {name}")),
            )),
            _ => Err(ServerError::UnknownOperation(None)),
        }
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// GetItem for a plain lookup, on the borrowed path: the body read in place
/// (`decode::plain_get`) and the engine's `get_item_ref`, with no owned request built. `None`
/// when either declines; the general path then decodes the body again and reports what
/// DynamoDB would, errors included.
fn plain_get_item(engine: &Engine, body: &str) -> Option<Result<Vec<u8>, ServerError>> {
    let get = crate::decode::plain_get(body)?;
    let output = engine.get_item_ref(&get.request())?;
    Some(output.map_err(ServerError::from).and_then(|output| crate::encode::get_item(&output)))
}

fn run<I, O>(
    body: &str,
    call: impl FnOnce(I) -> Result<O, monotable_engine::Error>,
) -> Result<Vec<u8>, ServerError>
where
    I: DeserializeOwned + 'static,
    O: Serialize + 'static,
{
    let input = decode_input::<I>(body)?;
    let output = call(input)?;
    // sonic-rs, not serde_json, writes the response: the same bytes (see the tests below) for
    // about a fifth fewer instructions, most of them in string escaping; the items of GetItem,
    // Query and Scan are written directly (`encode`).
    crate::encode::output(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use monotable_types::{AttributeValue, Item, Number};

    /// The response encoder writes exactly what serde_json writes: the same escapes, the same
    /// number and float text, the same key order.
    fn same_bytes<T: Serialize>(value: &T) {
        let sonic = sonic_rs::to_vec(value).unwrap();
        let reference = serde_json::to_vec(value).unwrap();
        assert_eq!(String::from_utf8_lossy(&sonic), String::from_utf8_lossy(&reference));
    }

    #[test]
    fn responses_encode_as_serde_json_would() {
        let mut item = Item::new();
        item.insert(
            "s".into(),
            AttributeValue::S("quote \" backslash \\ tab \t nul \u{0} del \u{7f} é 😀 </script>".into()),
        );
        item.insert(
            "n".into(),
            AttributeValue::N(Number::parse("-12345678901234567890.123456789012345678").unwrap()),
        );
        item.insert("b".into(), AttributeValue::B(vec![0, 255, 10]));
        item.insert("l".into(), AttributeValue::L(vec![AttributeValue::Null, AttributeValue::Bool(false)]));
        item.insert("\u{1}key\n".into(), AttributeValue::Ss(vec!["a".into(), "\u{1f}".into()]));
        let mut outer = Item::new();
        outer.insert("m".into(), AttributeValue::M(item.clone()));
        same_bytes(&monotable_engine::api::GetItemOutput { item: Some(outer.into()), ..Default::default() });
        for units in [0.5, 1.0, 2.0, 1e-7, 123456.25, 1e21] {
            same_bytes(&monotable_engine::api::ConsumedCapacity {
                table_name: Some("t".into()),
                capacity_units: Some(units),
                ..Default::default()
            });
        }
    }

    proptest::proptest! {
        #[test]
        fn any_string_encodes_as_serde_json_would(s in "\\PC*|[\\x00-\\x7f]*") {
            same_bytes(&AttributeValue::S(s));
        }
    }

    #[test]
    fn every_operation_round_trips_through_its_target_name() {
        for &op in Operation::ALL {
            let target = format!("{}{}", op.target_prefix(), op.name());
            assert_eq!(Operation::from_target(Some(&target)).unwrap(), op);
        }
    }

    #[test]
    fn unimplemented_dynamodb_operations_say_so() {
        let e = Operation::from_target(Some("DynamoDB_20120810.ListBackups")).unwrap_err();
        assert_eq!(e.type_name(), "UnknownOperationException");
        assert_eq!(e.message(), Some("monotable does not implement the DynamoDB operation ListBackups"));
        for name in NOT_IMPLEMENTED {
            assert!(Operation::from_name(name).is_none(), "{name} is implemented");
        }
    }

    #[test]
    fn unknown_targets_are_unknown_operation_exceptions() {
        for target in [
            None,
            Some(""),
            Some("GetItem"),
            Some("DynamoDB_20111205.GetItem"),
            Some("DynamoDB_20120810.getItem"),
            Some("DynamoDB_20120810.NoSuchThing"),
            Some("DynamoDB_20120810.GetItem.Extra"),
            Some("DynamoDB_20120810.GetRecords"),
            Some("DynamoDBStreams_20120810.GetItem"),
        ] {
            let e = Operation::from_target(target).unwrap_err();
            assert_eq!(
                e.qualified_type(),
                "com.amazon.coral.service#UnknownOperationException",
                "{target:?}"
            );
            assert_eq!(e.message(), None);
        }
    }
}
