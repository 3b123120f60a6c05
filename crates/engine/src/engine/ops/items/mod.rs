//! GetItem, PutItem, UpdateItem and DeleteItem: each validates its request in DynamoDB's
//! order and hands a prepared [`Write`] to the core's conditional single-item write
//! ([`run_write`]) or reads through the core's read path ([`read_one`]).

mod get_ref;

use std::sync::Arc;

use monotable_expr::{Condition, ExpressionKind, Params, Projection, UpdatePlan};
use monotable_types::{AttributeValue, Item};

use crate::api::*;
use crate::engine::core::capacity::{self, Report, WriteCost};
use crate::engine::core::legacy;
use crate::engine::core::params::{check_placeholders, expr_err};
use crate::engine::core::read_one::{read_one, read_projection};
use crate::engine::core::util::validated_table;
use crate::engine::core::write::{
    collection_metrics, key_bytes, run_write, sums_collection_off_the_worker, Mutation, Write,
};
use crate::engine::core::Inner;
use crate::table::{Change, Schema};
use crate::validate::{self, Constraints};
use crate::Error;

pub(in crate::engine) use get_ref::get_item_ref;

/// Common enum constraints of the single-item writes.
fn write_constraints(
    c: &mut Constraints,
    return_values: Option<&str>,
    rcc: Option<&str>,
    ricm: Option<&str>,
    rvoccf: Option<&str>,
) {
    c.one_of(return_values, "returnValues", &["ALL_NEW", "UPDATED_OLD", "ALL_OLD", "NONE", "UPDATED_NEW"]);
    capacity::check(c, rcc);
    c.one_of(ricm, "returnItemCollectionMetrics", &["SIZE", "NONE"]);
    c.one_of(rvoccf, "returnValuesOnConditionCheckFailure", &["ALL_OLD", "NONE"]);
}

/// Resolves the condition of a write from `ConditionExpression` or legacy `Expected`.
fn write_condition(
    params: &mut Params<'_>,
    expression: Option<&str>,
    expected: Option<&std::collections::HashMap<String, ExpectedAttributeValue>>,
    operator: Option<&str>,
) -> Result<Option<Condition>, Error> {
    if let Some(text) = expression {
        return params.condition(text, ExpressionKind::Condition).map(Some).map_err(expr_err);
    }
    match expected {
        Some(e) => legacy::expected(e, operator),
        None if operator.is_some() => Err(Error::validation(
            "ConditionalOperator can only be used when Filter or Expected has two or more elements",
        )),
        None => Ok(None),
    }
}

/// The capacity report of a single-item write (computed only when asked for).
fn write_report(report: Report, schema: &Schema, change: &Change, table: &str) -> Option<ConsumedCapacity> {
    match report {
        Report::None => None,
        _ => WriteCost::of(schema, change).report(report, table),
    }
}

pub(in crate::engine) fn get_item(inner: &Inner, input: GetItemInput) -> Result<GetItemOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("key", input.key.is_some());
    capacity::check(&mut c, input.return_consumed_capacity.as_deref());
    // dynalite's test suite, written against DynamoDB (test/getItem.js).
    c.non_empty(input.attributes_to_get.as_ref().map(Vec::len), "attributesToGet");
    c.finish()?;
    legacy::check_mixing(
        &[("AttributesToGet", input.attributes_to_get.is_some())],
        &[("ProjectionExpression", input.projection_expression.is_some())],
        input.expression_attribute_names.is_some(),
        false,
    )?;
    check_placeholders(input.expression_attribute_names.as_ref(), None)?;
    let projection = read_projection(
        input.projection_expression.as_deref(),
        input.attributes_to_get.as_deref(),
        input.expression_attribute_names.as_ref(),
    )?;
    let table = validated_table(inner, input.table_name.as_deref())?;
    let schema = table.schema();
    let key = key_bytes(&schema, input.key.as_ref().unwrap_or(&Item::new()))?;
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    read_one(&table, &key, input.consistent_read == Some(true), report, projection.as_ref())
}

fn return_values_failure(rv: Option<&str>, allowed: &[&str]) -> Result<(), Error> {
    match rv {
        Some(v) if !allowed.contains(&v) => Err(Error::validation("Return values set to invalid value")),
        _ => Ok(()),
    }
}

/// The members PutItem and DeleteItem share, borrowed from either request, and the steps the
/// two run alike: the first checks, the condition, and the run with its `ALL_OLD` output.
struct OldImageWrite<'a> {
    table_name: Option<&'a str>,
    return_values: Option<&'a str>,
    return_consumed_capacity: Option<&'a str>,
    return_item_collection_metrics: Option<&'a str>,
    return_values_on_condition_check_failure: Option<&'a str>,
    expected: Option<&'a std::collections::HashMap<String, ExpectedAttributeValue>>,
    conditional_operator: Option<&'a str>,
    condition_expression: Option<&'a str>,
    names: Option<&'a ExpressionAttributeNames>,
    values: Option<&'a ExpressionAttributeValues>,
}

/// An [`OldImageWrite`] view of a `PutItemInput` or a `DeleteItemInput` (same member names).
macro_rules! old_image_write {
    ($input:expr) => {
        OldImageWrite {
            table_name: $input.table_name.as_deref(),
            return_values: $input.return_values.as_deref(),
            return_consumed_capacity: $input.return_consumed_capacity.as_deref(),
            return_item_collection_metrics: $input.return_item_collection_metrics.as_deref(),
            return_values_on_condition_check_failure: $input
                .return_values_on_condition_check_failure
                .as_deref(),
            expected: $input.expected.as_ref(),
            conditional_operator: $input.conditional_operator.as_deref(),
            condition_expression: $input.condition_expression.as_deref(),
            names: $input.expression_attribute_names.as_ref(),
            values: $input.expression_attribute_values.as_ref(),
        }
    };
}

impl OldImageWrite<'_> {
    /// DynamoDB's first checks, in its order: member constraints (with the request's required
    /// member `required`), the allowed `ReturnValues`, then legacy/expression mixing.
    fn check(&self, required: &'static str, present: bool) -> Result<(), Error> {
        let mut c = Constraints::default();
        c.name(self.table_name, "tableName", true);
        c.not_null(required, present);
        write_constraints(
            &mut c,
            self.return_values,
            self.return_consumed_capacity,
            self.return_item_collection_metrics,
            self.return_values_on_condition_check_failure,
        );
        c.finish()?;
        return_values_failure(self.return_values, &["NONE", "ALL_OLD"])?;
        legacy::check_mixing(
            &[("Expected", self.expected.is_some())],
            &[("ConditionExpression", self.condition_expression.is_some())],
            self.names.is_some(),
            self.values.is_some(),
        )
    }

    /// The write's condition, its only expression: placeholder-map checks, the condition (or
    /// its legacy `Expected` form), then the unused-placeholder check, in DynamoDB's order.
    fn condition(&self) -> Result<Option<Condition>, Error> {
        check_placeholders(self.names, self.values)?;
        let mut params = Params::new(self.names, self.values);
        let condition = write_condition(
            &mut params,
            self.condition_expression,
            self.expected,
            self.conditional_operator,
        )?;
        params.finish().map_err(expr_err)?;
        Ok(condition)
    }

    fn return_old_on_failure(&self) -> bool {
        self.return_values_on_condition_check_failure == Some("ALL_OLD")
    }

    /// Runs `write` and builds the response members PutItem and DeleteItem share: collection
    /// metrics, `ALL_OLD` attributes and consumed capacity.
    fn run(&self, inner: &Inner, write: &Write) -> Result<OldImageOutput, Error> {
        sums_collection_off_the_worker(&write.table, self.return_item_collection_metrics)?;
        let (change, schema) = run_write(inner, write)?;
        let report = Report::parse(self.return_consumed_capacity);
        Ok(OldImageOutput {
            item_collection_metrics: collection_metrics(
                &write.table,
                &schema,
                &change,
                self.return_item_collection_metrics,
            )?,
            attributes: match self.return_values {
                Some("ALL_OLD") => change.old.clone(),
                _ => None,
            },
            consumed_capacity: write_report(report, &schema, &change, &write.table.name),
        })
    }
}

/// The response members of a write that can return only the old item (PutItem, DeleteItem).
struct OldImageOutput {
    item_collection_metrics: Option<ItemCollectionMetrics>,
    attributes: Option<SharedItem>,
    consumed_capacity: Option<ConsumedCapacity>,
}

impl From<OldImageOutput> for PutItemOutput {
    fn from(o: OldImageOutput) -> PutItemOutput {
        PutItemOutput {
            item_collection_metrics: o.item_collection_metrics,
            attributes: o.attributes,
            consumed_capacity: o.consumed_capacity,
        }
    }
}

impl From<OldImageOutput> for DeleteItemOutput {
    fn from(o: OldImageOutput) -> DeleteItemOutput {
        DeleteItemOutput {
            item_collection_metrics: o.item_collection_metrics,
            attributes: o.attributes,
            consumed_capacity: o.consumed_capacity,
        }
    }
}

pub(in crate::engine) fn put_item(inner: &Inner, mut input: PutItemInput) -> Result<PutItemOutput, Error> {
    let item = input.item.take();
    let w = old_image_write!(input);
    w.check("item", item.is_some())?;
    let item = item.unwrap_or_default();
    validate::check_item_names(item.keys())?;
    validate::check_values(item.values()).map_err(|e| {
        let depth = item.values().map(AttributeValue::depth).max().unwrap_or(0);
        validate::enveloped_nesting(&e, depth).unwrap_or(e)
    })?;
    let condition = w.condition()?;
    let table = validated_table(inner, w.table_name)?;
    let schema = table.schema();
    validate::check_item_key(&schema.key, &item)?;
    let size = validate::check_item_size(&item)?;
    validate::check_index_keys(&schema, &item)?;
    let mut key = Vec::with_capacity(64);
    schema.key.encode_from(&item, &mut key);
    let write = Write {
        // Only updates build on the key item.
        key_item: Item::new(),
        table: Arc::clone(&table),
        key,
        mutation: Mutation::Put(SharedItem::from(item), size),
        condition,
        return_old_on_failure: w.return_old_on_failure(),
    };
    w.run(inner, &write).map(PutItemOutput::from)
}

pub(in crate::engine) fn delete_item(
    inner: &Inner,
    mut input: DeleteItemInput,
) -> Result<DeleteItemOutput, Error> {
    let key_item = input.key.take();
    let w = old_image_write!(input);
    w.check("key", key_item.is_some())?;
    let condition = w.condition()?;
    let table = validated_table(inner, w.table_name)?;
    let schema = table.schema();
    let key_item = key_item.unwrap_or_default();
    let key = key_bytes(&schema, &key_item)?;
    let write = Write {
        table: Arc::clone(&table),
        key,
        key_item,
        mutation: Mutation::Delete,
        condition,
        return_old_on_failure: w.return_old_on_failure(),
    };
    w.run(inner, &write).map(DeleteItemOutput::from)
}

pub(in crate::engine) fn update_item(
    inner: &Inner,
    mut input: UpdateItemInput,
) -> Result<UpdateItemOutput, Error> {
    let mut c = Constraints::default();
    c.name(input.table_name.as_deref(), "tableName", true);
    c.not_null("key", input.key.is_some());
    write_constraints(
        &mut c,
        input.return_values.as_deref(),
        input.return_consumed_capacity.as_deref(),
        input.return_item_collection_metrics.as_deref(),
        input.return_values_on_condition_check_failure.as_deref(),
    );
    c.finish()?;
    legacy::check_mixing(
        &[("AttributeUpdates", input.attribute_updates.is_some()), ("Expected", input.expected.is_some())],
        &[
            ("UpdateExpression", input.update_expression.is_some()),
            ("ConditionExpression", input.condition_expression.is_some()),
        ],
        input.expression_attribute_names.is_some(),
        input.expression_attribute_values.is_some(),
    )?;
    check_placeholders(
        input.expression_attribute_names.as_ref(),
        input.expression_attribute_values.as_ref(),
    )?;
    if let Some(u) = &input.attribute_updates {
        validate::check_values(u.values().filter_map(|u| u.value.as_ref()))?;
    }
    let table = validated_table(inner, input.table_name.as_deref())?;
    let schema = table.schema();
    let key_names: Vec<&str> = schema.key.attrs().map(|a| a.name.as_str()).collect();
    let mut params =
        Params::new(input.expression_attribute_names.as_ref(), input.expression_attribute_values.as_ref());
    let plan = match (&input.update_expression, &input.attribute_updates) {
        (Some(text), _) => params.update(text, &key_names).map_err(expr_err)?,
        (None, Some(u)) => legacy::attribute_updates(u, &schema.key)?,
        (None, None) => UpdatePlan::default(),
    };
    // UpdateItem reports a ConditionExpression's undefined value in the "1 validation error
    // detected: " envelope (paritysuite/dynamodb-conformance, tests/tier3/error-messages/
    // updateItem.test.ts, eu-west-2 and us-east-1, 2026-10-09).
    let condition = match input.condition_expression.as_deref() {
        Some(text) => Some(params.condition(text, ExpressionKind::Condition).map_err(|e| {
            if e.kind() == monotable_expr::ErrorKind::UndefinedValue {
                Error::validation(format!("1 validation error detected: {}", e.message()))
            } else {
                expr_err(e)
            }
        })?),
        None => write_condition(
            &mut params,
            None,
            input.expected.as_ref(),
            input.conditional_operator.as_deref(),
        )?,
    };
    params.finish().map_err(expr_err)?;
    let key_item = input.key.take().unwrap_or_default();
    let key = key_bytes(&schema, &key_item)?;
    let write = Write {
        table: Arc::clone(&table),
        key,
        key_item,
        mutation: Mutation::Update(plan),
        condition,
        return_old_on_failure: input.return_values_on_condition_check_failure.as_deref() == Some("ALL_OLD"),
    };
    sums_collection_off_the_worker(&table, input.return_item_collection_metrics.as_deref())?;
    let (change, schema) = run_write(inner, &write)?;
    let report = Report::parse(input.return_consumed_capacity.as_deref());
    let attributes = update_return_values(input.return_values.as_deref(), &change);
    Ok(UpdateItemOutput {
        item_collection_metrics: collection_metrics(
            &table,
            &schema,
            &change,
            input.return_item_collection_metrics.as_deref(),
        )?,
        attributes,
        consumed_capacity: write_report(report, &schema, &change, &table.name),
    })
}

/// The `Attributes` of an UpdateItem response for each `ReturnValues` mode. `UPDATED_*`
/// project the paths the update targeted, as they are in the old or new item.
fn update_return_values(rv: Option<&str>, change: &Change) -> Option<SharedItem> {
    let changed = |item: &Option<SharedItem>| -> Option<SharedItem> {
        let out = Projection { paths: change.updated_paths.clone() }.apply(item.as_deref()?);
        (!out.is_empty()).then(|| SharedItem::from(out))
    };
    match rv {
        Some("ALL_OLD") => change.old.clone(),
        Some("ALL_NEW") => change.new.clone(),
        Some("UPDATED_OLD") => changed(&change.old),
        Some("UPDATED_NEW") => changed(&change.new),
        _ => None,
    }
}
