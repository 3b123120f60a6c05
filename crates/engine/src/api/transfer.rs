//! Exports to and imports from S3 (a local bucket directory): ExportTableToPointInTime,
//! DescribeExport, ListExports, ImportTable, DescribeImport, ListImports.

use super::table::{
    AttributeDefinition, GlobalSecondaryIndex, KeySchemaElement, OnDemandThroughput, ProvisionedThroughput,
    SSESpecification,
};

shape! {
    /// ExportTableToPointInTime request.
    pub struct ExportTableToPointInTimeInput {
        table_arn: String,
        export_time: f64,
        client_token: String,
        #[serde(rename = "S3Bucket")]
        s3_bucket: String,
        #[serde(rename = "S3BucketOwner")]
        s3_bucket_owner: String,
        #[serde(rename = "S3Prefix")]
        s3_prefix: String,
        #[serde(rename = "S3SseAlgorithm")]
        s3_sse_algorithm: String,
        #[serde(rename = "S3SseKmsKeyId")]
        s3_sse_kms_key_id: String,
        export_format: String,
        export_type: String,
        incremental_export_specification: serde_json::Value,
    }
}
shape! {
    /// Everything DescribeExport says about an export.
    pub struct ExportDescription {
        export_arn: String,
        export_status: String,
        start_time: f64,
        end_time: f64,
        export_manifest: String,
        table_arn: String,
        table_id: String,
        export_time: f64,
        client_token: String,
        #[serde(rename = "S3Bucket")]
        s3_bucket: String,
        #[serde(rename = "S3BucketOwner")]
        s3_bucket_owner: String,
        #[serde(rename = "S3Prefix")]
        s3_prefix: String,
        #[serde(rename = "S3SseAlgorithm")]
        s3_sse_algorithm: String,
        #[serde(rename = "S3SseKmsKeyId")]
        s3_sse_kms_key_id: String,
        failure_code: String,
        failure_message: String,
        export_format: String,
        billed_size_bytes: i64,
        item_count: i64,
        export_type: String,
    }
}
shape! {
    /// ExportTableToPointInTime response.
    pub struct ExportTableToPointInTimeOutput { export_description: ExportDescription }
}
shape! {
    /// DescribeExport request.
    pub struct DescribeExportInput { export_arn: String }
}
shape! {
    /// DescribeExport response.
    pub struct DescribeExportOutput { export_description: ExportDescription }
}
shape! {
    /// ListExports request.
    pub struct ListExportsInput { table_arn: String, max_results: i64, next_token: String }
}
shape! {
    /// One export in a ListExports page.
    pub struct ExportSummary { export_arn: String, export_status: String, export_type: String }
}
shape! {
    /// ListExports response.
    pub struct ListExportsOutput { export_summaries: Vec<ExportSummary>, next_token: String }
}
shape! {
    /// Where ImportTable reads: a bucket and a key prefix.
    pub struct S3BucketSource {
        #[serde(rename = "S3BucketOwner")]
        s3_bucket_owner: String,
        #[serde(rename = "S3Bucket")]
        s3_bucket: String,
        #[serde(rename = "S3KeyPrefix")]
        s3_key_prefix: String,
    }
}
shape! {
    /// The table ImportTable creates.
    pub struct TableCreationParameters {
        table_name: String,
        attribute_definitions: Vec<AttributeDefinition>,
        key_schema: Vec<KeySchemaElement>,
        billing_mode: String,
        provisioned_throughput: ProvisionedThroughput,
        on_demand_throughput: OnDemandThroughput,
        #[serde(rename = "SSESpecification")]
        sse_specification: SSESpecification,
        global_secondary_indexes: Vec<GlobalSecondaryIndex>,
    }
}
shape! {
    /// ImportTable request.
    pub struct ImportTableInput {
        client_token: String,
        #[serde(rename = "S3BucketSource")]
        s3_bucket_source: S3BucketSource,
        input_format: String,
        input_format_options: serde_json::Value,
        input_compression_type: String,
        table_creation_parameters: TableCreationParameters,
    }
}
shape! {
    /// Everything DescribeImport says about an import.
    pub struct ImportTableDescription {
        import_arn: String,
        import_status: String,
        table_arn: String,
        table_id: String,
        client_token: String,
        #[serde(rename = "S3BucketSource")]
        s3_bucket_source: S3BucketSource,
        error_count: i64,
        cloud_watch_log_group_arn: String,
        input_format: String,
        input_format_options: serde_json::Value,
        input_compression_type: String,
        table_creation_parameters: TableCreationParameters,
        start_time: f64,
        end_time: f64,
        processed_size_bytes: i64,
        processed_item_count: i64,
        imported_item_count: i64,
        failure_code: String,
        failure_message: String,
    }
}
shape! {
    /// ImportTable response.
    pub struct ImportTableOutput { import_table_description: ImportTableDescription }
}
shape! {
    /// DescribeImport request.
    pub struct DescribeImportInput { import_arn: String }
}
shape! {
    /// DescribeImport response.
    pub struct DescribeImportOutput { import_table_description: ImportTableDescription }
}
shape! {
    /// ListImports request.
    pub struct ListImportsInput { table_arn: String, page_size: i64, next_token: String }
}
shape! {
    /// One import in a ListImports page.
    pub struct ImportSummary {
        import_arn: String,
        import_status: String,
        table_arn: String,
        #[serde(rename = "S3BucketSource")]
        s3_bucket_source: S3BucketSource,
        cloud_watch_log_group_arn: String,
        input_format: String,
        start_time: f64,
        end_time: f64,
    }
}
shape! {
    /// ListImports response.
    pub struct ListImportsOutput { import_summary_list: Vec<ImportSummary>, next_token: String }
}
