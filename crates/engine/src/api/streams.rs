//! DynamoDB Streams shapes (`DynamoDBStreams_20120810.*`): ListStreams, DescribeStream,
//! GetShardIterator, GetRecords.

use monotable_types::Item;

use super::table::KeySchemaElement;

shape! {
    /// ListStreams request.
    pub struct ListStreamsInput {
        table_name: String,
        limit: i64,
        exclusive_start_stream_arn: String,
    }
}
shape! {
    /// One stream in a ListStreams answer.
    pub struct StreamSummary { stream_arn: String, table_name: String, stream_label: String }
}
shape! {
    /// ListStreams response.
    pub struct ListStreamsOutput { streams: Vec<StreamSummary>, last_evaluated_stream_arn: String }
}
shape! {
    /// DescribeStream request.
    pub struct DescribeStreamInput {
        stream_arn: String,
        limit: i64,
        exclusive_start_shard_id: String,
        shard_filter: ShardFilter,
    }
}
shape! {
    /// DescribeStream's `ShardFilter`: `Type` `CHILD_SHARDS` lists the children of `ShardId`.
    pub struct ShardFilter { r#type: String, shard_id: String }
}
shape! {
    /// The sequence numbers a shard holds; no ending number while the shard is open.
    pub struct SequenceNumberRange { starting_sequence_number: String, ending_sequence_number: String }
}
shape! {
    /// One shard of a stream.
    pub struct Shard {
        shard_id: String,
        sequence_number_range: SequenceNumberRange,
        parent_shard_id: String,
    }
}
shape! {
    /// A stream as DescribeStream describes it.
    pub struct StreamDescription {
        stream_arn: String,
        stream_label: String,
        stream_status: String,
        stream_view_type: String,
        creation_request_date_time: f64,
        table_name: String,
        key_schema: Vec<KeySchemaElement>,
        shards: Vec<Shard>,
        last_evaluated_shard_id: String,
    }
}
shape! {
    /// DescribeStream response.
    pub struct DescribeStreamOutput { stream_description: StreamDescription }
}
shape! {
    /// GetShardIterator request.
    pub struct GetShardIteratorInput {
        stream_arn: String,
        shard_id: String,
        shard_iterator_type: String,
        sequence_number: String,
    }
}
shape! {
    /// GetShardIterator response.
    pub struct GetShardIteratorOutput { shard_iterator: String }
}
shape! {
    /// GetRecords request.
    pub struct GetRecordsInput { shard_iterator: String, limit: i64 }
}
shape! {
    /// GetRecords response. `NextShardIterator` is absent once a closed shard is read to its end.
    pub struct GetRecordsOutput { records: Vec<Record>, next_shard_iterator: String }
}
shape! {
    /// One change event. Its member names are camelCase, unlike the rest of the API.
    pub struct Record {
        #[serde(rename = "eventID")]
        event_id: String,
        #[serde(rename = "eventName")]
        event_name: String,
        #[serde(rename = "eventVersion")]
        event_version: String,
        #[serde(rename = "eventSource")]
        event_source: String,
        #[serde(rename = "awsRegion")]
        aws_region: String,
        #[serde(rename = "dynamodb")]
        dynamodb: StreamRecord,
        #[serde(rename = "userIdentity")]
        user_identity: Identity,
    }
}
shape! {
    /// The DynamoDB part of a record.
    pub struct StreamRecord {
        approximate_creation_date_time: f64,
        keys: Item,
        new_image: Item,
        old_image: Item,
        sequence_number: String,
        size_bytes: i64,
        stream_view_type: String,
    }
}
shape! {
    /// Who made a change; present only on TTL deletions (`Service`, `dynamodb.amazonaws.com`).
    pub struct Identity { principal_id: String, r#type: String }
}
