//! Tags, time to live, limits and endpoints.

use std::sync::Arc;

use super::tables::control_table;
use crate::api::*;
use crate::engine::core::catalog::save;
use crate::engine::core::util::lookup;
use crate::engine::core::Inner;
use crate::table::Table;
use crate::validate::Constraints;
use crate::{Error, ErrorKind};

/// The table a tag operation's `ResourceArn` names. `action` is the operation's IAM action
/// (`dynamodb:ListTagsOfResource`), named when the ARN is another account's: the caller holds
/// no permission there, so DynamoDB refuses it with `AccessDeniedException` "User: <caller> is
/// not authorized to perform: dynamodb:ListTagsOfResource on resource: <arn>" (dynalite's
/// test suite, test/listTagsOfResource.js and test/tagResource.js, written against DynamoDB;
/// monotable's caller is the account's root).
fn table_by_arn(inner: &Inner, arn: Option<&str>, action: &str) -> Result<Arc<Table>, Error> {
    let arn = arn.ok_or_else(|| {
        Error::validation("1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null")
    })?;
    let (account, name) = arn
        .strip_prefix("arn:")
        .and_then(|rest| rest.split_once(":table/"))
        .filter(|(_, name)| !name.is_empty() && !name.contains('/'))
        .map(|(head, name)| (head.rsplit(':').next().unwrap_or_default(), name))
        .ok_or_else(|| {
            Error::validation(format!("Invalid TableArn: Invalid ResourceArn provided as input {arn}"))
        })?;
    let own = inner.location.account();
    if account != own {
        return Err(Error::new(
            ErrorKind::AccessDenied,
            format!(
                "User: arn:aws:iam::{own}:root is not authorized to perform: {action} on resource: {arn}"
            ),
        ));
    }
    lookup(inner, name).ok_or_else(|| {
        Error::new(
            ErrorKind::ResourceNotFound,
            format!("Requested resource not found: ResourceArn: {arn} not found"),
        )
    })
}

pub(in crate::engine) fn tag_resource(
    inner: &Inner,
    input: TagResourceInput,
) -> Result<TagResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref(), "dynamodb:TagResource")?;
    let tags = input.tags.unwrap_or_default();
    if tags.is_empty() {
        return Err(Error::validation("Atleast one Tag needs to be provided as Input."));
    }
    super::tags::check_tags(&tags)?;
    {
        // The merged set is built aside so that a refused request leaves the tags unchanged.
        let mut meta = table.meta.lock();
        let mut merged = meta.tags.clone();
        for t in tags {
            merged.retain(|x| x.key != t.key);
            merged.push(t);
        }
        if merged.len() > super::tags::MAX_TAGS {
            return Err(super::tags::too_many());
        }
        meta.tags = merged;
    }
    save(inner, &table)?;
    Ok(TagResourceOutput {})
}

pub(in crate::engine) fn untag_resource(
    inner: &Inner,
    input: UntagResourceInput,
) -> Result<UntagResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref(), "dynamodb:UntagResource")?;
    let keys = input.tag_keys.unwrap_or_default();
    if keys.is_empty() {
        return Err(Error::validation("Atleast one Tag Key needs to be provided as Input."));
    }
    for key in &keys {
        super::tags::check_key(Some(key))?;
    }
    if keys.len() > super::tags::MAX_TAGS {
        return Err(super::tags::too_many());
    }
    table.meta.lock().tags.retain(|t| !keys.iter().any(|k| Some(k) == t.key.as_ref()));
    save(inner, &table)?;
    Ok(UntagResourceOutput {})
}

pub(in crate::engine) fn list_tags_of_resource(
    inner: &Inner,
    input: ListTagsOfResourceInput,
) -> Result<ListTagsOfResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref(), "dynamodb:ListTagsOfResource")?;
    let tags = table.meta.lock().tags.clone();
    Ok(ListTagsOfResourceOutput { tags: Some(tags), next_token: None })
}

pub(in crate::engine) fn update_time_to_live(
    inner: &Inner,
    input: UpdateTimeToLiveInput,
) -> Result<UpdateTimeToLiveOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("timeToLiveSpecification", input.time_to_live_specification.is_some());
    // DynamoDB lists attributeName's errors before enabled's, and the name must be 1 to 255
    // characters (ack-api-quirks DDB-TABLE-457, verified 2026-10-09: `ttl_empty_struct`,
    // `ttl_attr_empty_string`).
    if let Some(s) = &input.time_to_live_specification {
        let path = "timeToLiveSpecification.attributeName";
        match s.attribute_name.as_deref() {
            None => c.not_null(path, false),
            Some("") => c.fail("", path, "Member must have length greater than or equal to 1"),
            Some(name) if name.chars().count() > 255 => {
                c.fail(name, path, "Member must have length less than or equal to 255")
            }
            Some(_) => {}
        }
        c.not_null("timeToLiveSpecification.enabled", s.enabled.is_some());
    }
    c.finish()?;
    let table = control_table(inner, input.table_name.as_deref())?;
    let spec = input.time_to_live_specification.unwrap_or_default();
    {
        let mut meta = table.meta.lock();
        let current =
            meta.ttl.as_ref().filter(|t| t.enabled == Some(true)).and_then(|t| t.attribute_name.clone());
        // While TTL is on, a request naming another attribute (to enable or to disable) is
        // refused first; recorded against DynamoDB in ack-api-quirks ("UpdateTimeToLive
        // (Enabled=true, other attr) -> ValidationException 'TimeToLive is active on a different
        // AttributeName: current AttributeName is ttl_a'"; the same check precedes "already
        // enabled").
        if let Some(current) = current.as_deref().filter(|c| Some(*c) != spec.attribute_name.as_deref()) {
            return Err(Error::validation(format!(
                "TimeToLive is active on a different AttributeName: current AttributeName is {current}"
            )));
        }
        match (current.is_some(), spec.enabled == Some(true)) {
            (true, true) => return Err(Error::validation("TimeToLive is already enabled")),
            (false, false) => return Err(Error::validation("TimeToLive is already disabled")),
            _ => {}
        }
        meta.ttl = Some(spec.clone());
    }
    save(inner, &table)?;
    Ok(UpdateTimeToLiveOutput { time_to_live_specification: Some(spec) })
}

pub(in crate::engine) fn describe_time_to_live(
    inner: &Inner,
    input: DescribeTimeToLiveInput,
) -> Result<DescribeTimeToLiveOutput, Error> {
    let table = control_table(inner, input.table_name.as_deref())?;
    let ttl = table.meta.lock().ttl.clone();
    let description = match ttl {
        Some(t) if t.enabled == Some(true) => TimeToLiveDescription {
            time_to_live_status: Some("ENABLED".into()),
            attribute_name: t.attribute_name,
        },
        _ => TimeToLiveDescription { time_to_live_status: Some("DISABLED".into()), attribute_name: None },
    };
    Ok(DescribeTimeToLiveOutput { time_to_live_description: Some(description) })
}

pub(in crate::engine) fn describe_limits(
    _inner: &Inner,
    _input: DescribeLimitsInput,
) -> Result<DescribeLimitsOutput, Error> {
    Ok(DescribeLimitsOutput {
        account_max_read_capacity_units: Some(80_000),
        account_max_write_capacity_units: Some(80_000),
        table_max_read_capacity_units: Some(40_000),
        table_max_write_capacity_units: Some(40_000),
    })
}

pub(in crate::engine) fn describe_endpoints(
    _inner: &Inner,
    _input: DescribeEndpointsInput,
) -> Result<DescribeEndpointsOutput, Error> {
    Ok(DescribeEndpointsOutput {
        endpoints: Some(vec![Endpoint {
            address: Some("dynamodb.us-east-1.amazonaws.com".into()),
            cache_period_in_minutes: Some(1440),
        }]),
    })
}
