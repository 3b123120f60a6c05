//! Tags, time to live, limits and endpoints.

use std::sync::Arc;

use super::control::{control_table, save};
use super::util::lookup;
use super::Inner;
use crate::api::*;
use crate::table::Table;
use crate::validate::Constraints;
use crate::{Error, ErrorKind};

fn table_by_arn(inner: &Inner, arn: Option<&str>) -> Result<Arc<Table>, Error> {
    let arn = arn.ok_or_else(|| {
        Error::validation("1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null")
    })?;
    let name = arn
        .strip_prefix("arn:")
        .and_then(|rest| rest.split_once(":table/"))
        .map(|(_, name)| name)
        .filter(|n| !n.is_empty() && !n.contains('/'))
        .ok_or_else(|| {
            Error::validation(format!("Invalid TableArn: Invalid ResourceArn provided as input {arn}"))
        })?;
    lookup(inner, name).ok_or_else(|| {
        Error::new(
            ErrorKind::ResourceNotFound,
            format!("Requested resource not found: ResourceArn: {arn} not found"),
        )
    })
}

pub(super) fn tag_resource(inner: &Inner, input: TagResourceInput) -> Result<TagResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref())?;
    let tags = input.tags.unwrap_or_default();
    if tags.is_empty() {
        return Err(Error::validation("Atleast one Tag needs to be provided as Input."));
    }
    {
        let mut meta = table.meta.lock();
        for t in tags {
            meta.tags.retain(|x| x.key != t.key);
            meta.tags.push(t);
        }
        if meta.tags.len() > 50 {
            return Err(Error::new(ErrorKind::LimitExceeded, "Tag limit exceeded"));
        }
    }
    save(inner, &table)?;
    Ok(TagResourceOutput {})
}

pub(super) fn untag_resource(inner: &Inner, input: UntagResourceInput) -> Result<UntagResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref())?;
    let keys = input.tag_keys.unwrap_or_default();
    if keys.is_empty() {
        return Err(Error::validation("Atleast one Tag Key needs to be provided as Input."));
    }
    table.meta.lock().tags.retain(|t| !keys.iter().any(|k| Some(k) == t.key.as_ref()));
    save(inner, &table)?;
    Ok(UntagResourceOutput {})
}

pub(super) fn list_tags_of_resource(
    inner: &Inner,
    input: ListTagsOfResourceInput,
) -> Result<ListTagsOfResourceOutput, Error> {
    let table = table_by_arn(inner, input.resource_arn.as_deref())?;
    let tags = table.meta.lock().tags.clone();
    Ok(ListTagsOfResourceOutput { tags: Some(tags), next_token: None })
}

pub(super) fn update_time_to_live(
    inner: &Inner,
    input: UpdateTimeToLiveInput,
) -> Result<UpdateTimeToLiveOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("timeToLiveSpecification", input.time_to_live_specification.is_some());
    if let Some(s) = &input.time_to_live_specification {
        c.not_null("timeToLiveSpecification.enabled", s.enabled.is_some());
        c.not_null("timeToLiveSpecification.attributeName", s.attribute_name.is_some());
    }
    c.finish()?;
    let table = control_table(inner, input.table_name.as_deref())?;
    let spec = input.time_to_live_specification.unwrap_or_default();
    {
        let mut meta = table.meta.lock();
        let enabled_now = meta.ttl.as_ref().is_some_and(|t| t.enabled == Some(true));
        match (enabled_now, spec.enabled == Some(true)) {
            (true, true) => return Err(Error::validation("TimeToLive is already enabled")),
            (false, false) => return Err(Error::validation("TimeToLive is already disabled")),
            _ => {}
        }
        meta.ttl = Some(spec.clone());
    }
    save(inner, &table)?;
    Ok(UpdateTimeToLiveOutput { time_to_live_specification: Some(spec) })
}

pub(super) fn describe_time_to_live(
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

pub(super) fn describe_limits(
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

pub(super) fn describe_endpoints(
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
