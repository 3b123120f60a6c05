//! Tags, time to live, limits and endpoints.

shape! {
    /// A resource tag.
    pub struct Tag { key: String, value: String }
}
shape! {
    /// TagResource request.
    pub struct TagResourceInput { resource_arn: String, tags: Vec<Tag> }
}
shape! {
    /// TagResource response (empty).
    pub struct TagResourceOutput {}
}
shape! {
    /// UntagResource request.
    pub struct UntagResourceInput { resource_arn: String, tag_keys: Vec<String> }
}
shape! {
    /// UntagResource response (empty).
    pub struct UntagResourceOutput {}
}
shape! {
    /// ListTagsOfResource request.
    pub struct ListTagsOfResourceInput { resource_arn: String, next_token: String }
}
shape! {
    /// ListTagsOfResource response.
    pub struct ListTagsOfResourceOutput { tags: Vec<Tag>, next_token: String }
}
shape! {
    /// Time-to-live settings.
    pub struct TimeToLiveSpecification { enabled: bool, attribute_name: String }
}
shape! {
    /// UpdateTimeToLive request.
    pub struct UpdateTimeToLiveInput { table_name: String, time_to_live_specification: TimeToLiveSpecification }
}
shape! {
    /// UpdateTimeToLive response.
    pub struct UpdateTimeToLiveOutput { time_to_live_specification: TimeToLiveSpecification }
}
shape! {
    /// DescribeTimeToLive request.
    pub struct DescribeTimeToLiveInput { table_name: String }
}
shape! {
    /// Time-to-live status (`ENABLED`, `DISABLED`…) and attribute.
    pub struct TimeToLiveDescription { time_to_live_status: String, attribute_name: String }
}
shape! {
    /// DescribeTimeToLive response.
    pub struct DescribeTimeToLiveOutput { time_to_live_description: TimeToLiveDescription }
}
shape! {
    /// DescribeLimits request (no members).
    pub struct DescribeLimitsInput {}
}
shape! {
    /// DescribeLimits response.
    pub struct DescribeLimitsOutput {
        account_max_read_capacity_units: i64,
        account_max_write_capacity_units: i64,
        table_max_read_capacity_units: i64,
        table_max_write_capacity_units: i64,
    }
}
shape! {
    /// DescribeEndpoints request (no members).
    pub struct DescribeEndpointsInput {}
}
shape! {
    /// One endpoint.
    pub struct Endpoint { address: String, cache_period_in_minutes: i64 }
}
shape! {
    /// DescribeEndpoints response.
    pub struct DescribeEndpointsOutput { endpoints: Vec<Endpoint> }
}
