//! Control-plane shapes: CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable.

use super::misc::Tag;

shape! {
    /// One element of a key schema: an attribute and its role (`HASH` or `RANGE`).
    pub struct KeySchemaElement { attribute_name: String, key_type: String }
}
shape! {
    /// The scalar type (`S`, `N`, `B`) of a key attribute.
    pub struct AttributeDefinition { attribute_name: String, attribute_type: String }
}
shape! {
    /// Which attributes an index holds: `ALL`, `KEYS_ONLY` or `INCLUDE` with `NonKeyAttributes`.
    pub struct Projection { projection_type: String, non_key_attributes: Vec<String> }
}
shape! {
    /// Provisioned read and write capacity.
    pub struct ProvisionedThroughput { read_capacity_units: i64, write_capacity_units: i64 }
}
shape! {
    /// Provisioned capacity as described back, with the change history counters.
    pub struct ProvisionedThroughputDescription {
        last_increase_date_time: f64,
        last_decrease_date_time: f64,
        number_of_decreases_today: i64,
        read_capacity_units: i64,
        write_capacity_units: i64,
    }
}
shape! {
    /// On-demand throughput ceilings.
    pub struct OnDemandThroughput { max_read_request_units: i64, max_write_request_units: i64 }
}
shape! {
    /// Warm throughput asked for: the read and write units per second a table or index is
    /// prepared to serve at once.
    pub struct WarmThroughput { read_units_per_second: i64, write_units_per_second: i64 }
}
shape! {
    /// A table's warm throughput as described back.
    pub struct TableWarmThroughputDescription { read_units_per_second: i64, write_units_per_second: i64, status: String }
}
shape! {
    /// A global secondary index's warm throughput as described back.
    pub struct GlobalSecondaryIndexWarmThroughputDescription {
        read_units_per_second: i64,
        write_units_per_second: i64,
        status: String,
    }
}
shape! {
    /// Stream settings (stored and described; no stream records are produced).
    pub struct StreamSpecification { stream_enabled: bool, stream_view_type: String }
}
shape! {
    /// Server-side encryption settings (stored and described).
    pub struct SSESpecification {
        enabled: bool,
        #[serde(rename = "SSEType")]
        sse_type: String,
        #[serde(rename = "KMSMasterKeyId")]
        kms_master_key_id: String,
    }
}
shape! {
    /// Server-side encryption as described back.
    pub struct SSEDescription {
        status: String,
        #[serde(rename = "SSEType")]
        sse_type: String,
        #[serde(rename = "KMSMasterKeyArn")]
        kms_master_key_arn: String,
    }
}
shape! {
    /// A local secondary index to create with the table.
    pub struct LocalSecondaryIndex { index_name: String, key_schema: Vec<KeySchemaElement>, projection: Projection }
}
shape! {
    /// A global secondary index to create with the table.
    pub struct GlobalSecondaryIndex {
        index_name: String,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
        provisioned_throughput: ProvisionedThroughput,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: WarmThroughput,
    }
}
shape! {
    /// A local secondary index as described back.
    pub struct LocalSecondaryIndexDescription {
        index_name: String,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
        index_size_bytes: i64,
        item_count: i64,
        index_arn: String,
    }
}
shape! {
    /// A global secondary index as described back.
    pub struct GlobalSecondaryIndexDescription {
        index_name: String,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
        index_status: String,
        backfilling: bool,
        provisioned_throughput: ProvisionedThroughputDescription,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: GlobalSecondaryIndexWarmThroughputDescription,
        index_size_bytes: i64,
        item_count: i64,
        index_arn: String,
    }
}
shape! {
    /// The billing mode and when it last changed to on-demand.
    pub struct BillingModeSummary { billing_mode: String, last_update_to_pay_per_request_date_time: f64 }
}
shape! {
    /// The table class.
    pub struct TableClassSummary { table_class: String, last_update_date_time: f64 }
}
shape! {
    /// Everything DescribeTable says about a table.
    pub struct TableDescription {
        attribute_definitions: Vec<AttributeDefinition>,
        table_name: String,
        key_schema: Vec<KeySchemaElement>,
        table_status: String,
        creation_date_time: f64,
        provisioned_throughput: ProvisionedThroughputDescription,
        table_size_bytes: i64,
        item_count: i64,
        table_arn: String,
        table_id: String,
        billing_mode_summary: BillingModeSummary,
        local_secondary_indexes: Vec<LocalSecondaryIndexDescription>,
        global_secondary_indexes: Vec<GlobalSecondaryIndexDescription>,
        stream_specification: StreamSpecification,
        latest_stream_label: String,
        latest_stream_arn: String,
        #[serde(rename = "SSEDescription")]
        sse_description: SSEDescription,
        table_class_summary: TableClassSummary,
        deletion_protection_enabled: bool,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: TableWarmThroughputDescription,
    }
}
shape! {
    /// CreateTable request.
    pub struct CreateTableInput {
        attribute_definitions: Vec<AttributeDefinition>,
        table_name: String,
        key_schema: Vec<KeySchemaElement>,
        local_secondary_indexes: Vec<LocalSecondaryIndex>,
        global_secondary_indexes: Vec<GlobalSecondaryIndex>,
        billing_mode: String,
        provisioned_throughput: ProvisionedThroughput,
        stream_specification: StreamSpecification,
        #[serde(rename = "SSESpecification")]
        sse_specification: SSESpecification,
        tags: Vec<Tag>,
        table_class: String,
        deletion_protection_enabled: bool,
        resource_policy: String,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: WarmThroughput,
    }
}
shape! {
    /// CreateTable response.
    pub struct CreateTableOutput { table_description: TableDescription }
}
shape! {
    /// DescribeTable request.
    pub struct DescribeTableInput { table_name: String }
}
shape! {
    /// DescribeTable response.
    pub struct DescribeTableOutput { table: TableDescription }
}
shape! {
    /// ListTables request.
    pub struct ListTablesInput { exclusive_start_table_name: String, limit: i64 }
}
shape! {
    /// ListTables response.
    pub struct ListTablesOutput { table_names: Vec<String>, last_evaluated_table_name: String }
}
shape! {
    /// DeleteTable request.
    pub struct DeleteTableInput { table_name: String }
}
shape! {
    /// DeleteTable response.
    pub struct DeleteTableOutput { table_description: TableDescription }
}
shape! {
    /// Change the provisioned throughput of an existing global secondary index.
    pub struct UpdateGlobalSecondaryIndexAction {
        index_name: String,
        provisioned_throughput: ProvisionedThroughput,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: WarmThroughput,
    }
}
shape! {
    /// Add a global secondary index (existing items are backfilled).
    pub struct CreateGlobalSecondaryIndexAction {
        index_name: String,
        key_schema: Vec<KeySchemaElement>,
        projection: Projection,
        provisioned_throughput: ProvisionedThroughput,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: WarmThroughput,
    }
}
shape! {
    /// Remove a global secondary index.
    pub struct DeleteGlobalSecondaryIndexAction { index_name: String }
}
shape! {
    /// One of Update, Create or Delete of a global secondary index.
    pub struct GlobalSecondaryIndexUpdate {
        update: UpdateGlobalSecondaryIndexAction,
        create: CreateGlobalSecondaryIndexAction,
        delete: DeleteGlobalSecondaryIndexAction,
    }
}
shape! {
    /// UpdateTable request. `ReplicaUpdates` (global tables) is accepted and refused.
    pub struct UpdateTableInput {
        attribute_definitions: Vec<AttributeDefinition>,
        table_name: String,
        billing_mode: String,
        provisioned_throughput: ProvisionedThroughput,
        global_secondary_index_updates: Vec<GlobalSecondaryIndexUpdate>,
        stream_specification: StreamSpecification,
        #[serde(rename = "SSESpecification")]
        sse_specification: SSESpecification,
        replica_updates: Vec<serde_json::Value>,
        table_class: String,
        deletion_protection_enabled: bool,
        on_demand_throughput: OnDemandThroughput,
        warm_throughput: WarmThroughput,
    }
}
shape! {
    /// UpdateTable response.
    pub struct UpdateTableOutput { table_description: TableDescription }
}
