//! Resource-based policies: PutResourcePolicy, GetResourcePolicy, DeleteResourcePolicy.

shape! {
    /// PutResourcePolicy request.
    pub struct PutResourcePolicyInput {
        resource_arn: String,
        policy: String,
        expected_revision_id: String,
        confirm_remove_self_resource_access: bool,
    }
}
shape! {
    /// PutResourcePolicy response.
    pub struct PutResourcePolicyOutput { revision_id: String }
}
shape! {
    /// GetResourcePolicy request.
    pub struct GetResourcePolicyInput { resource_arn: String }
}
shape! {
    /// GetResourcePolicy response.
    pub struct GetResourcePolicyOutput { policy: String, revision_id: String }
}
shape! {
    /// DeleteResourcePolicy request.
    pub struct DeleteResourcePolicyInput { resource_arn: String, expected_revision_id: String }
}
shape! {
    /// DeleteResourcePolicy response.
    pub struct DeleteResourcePolicyOutput { revision_id: String }
}
