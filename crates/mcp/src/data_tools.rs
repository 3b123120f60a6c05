//! The data tools on tables as they are: list, describe, Query and PartiQL. Answers are JSON
//! with items as plain JSON (`values`) and the capacity the endpoint reported.

use aws_sdk_dynamodb::types::{
    AttributeValue, KeySchemaElement, Projection, ReturnConsumedCapacity, TableDescription,
};
use aws_sdk_dynamodb::Client;
use serde_json::{json, Value};

use crate::error::{request, ToolError};
use crate::inputs::{Partiql, Query};
use crate::values::{consumed, item, to_json, value, SdkItem};

/// `list_tables`: every table name, all pages read.
pub(crate) async fn list_tables(client: &Client) -> Result<Value, ToolError> {
    let mut names = Vec::new();
    let mut start = None;
    loop {
        let out = client
            .list_tables()
            .set_exclusive_start_table_name(start)
            .send()
            .await
            .map_err(|e| request("ListTables", e))?;
        names.extend(out.table_names().iter().cloned());
        match out.last_evaluated_table_name() {
            Some(last) => start = Some(last.to_string()),
            None => break,
        }
    }
    Ok(json!({ "tables": names }))
}

fn key_schema(list: &[KeySchemaElement]) -> Value {
    list.iter().map(|k| json!({ "attribute": k.attribute_name(), "type": k.key_type().as_str() })).collect()
}

/// A secondary index's name, key and projection.
fn index_json(name: Option<&str>, key: &[KeySchemaElement], projection: Option<&Projection>) -> Value {
    let projection = projection.and_then(|p| p.projection_type()).map(|p| p.as_str());
    json!({ "name": name, "key": key_schema(key), "projection": projection })
}

fn describe_json(t: &TableDescription) -> Value {
    let gsis: Vec<Value> = t
        .global_secondary_indexes()
        .iter()
        .map(|i| {
            let mut out = index_json(i.index_name(), i.key_schema(), i.projection());
            out["status"] = json!(i.index_status().map(|s| s.as_str()));
            out["item_count"] = json!(i.item_count());
            out
        })
        .collect();
    let lsis: Vec<Value> = t
        .local_secondary_indexes()
        .iter()
        .map(|i| index_json(i.index_name(), i.key_schema(), i.projection()))
        .collect();
    json!({
        "table": t.table_name(),
        "status": t.table_status().map(|s| s.as_str()),
        "key": key_schema(t.key_schema()),
        "attributes": t.attribute_definitions().iter()
            .map(|a| json!({ "name": a.attribute_name(), "type": a.attribute_type().as_str() }))
            .collect::<Vec<_>>(),
        "billing": t.billing_mode_summary().and_then(|b| b.billing_mode()).map(|b| b.as_str()),
        "item_count": t.item_count(),
        "size_bytes": t.table_size_bytes(),
        "global_secondary_indexes": gsis,
        "local_secondary_indexes": lsis,
        "stream": t.stream_specification().map(|s| json!({
            "enabled": s.stream_enabled(),
            "view": s.stream_view_type().map(|v| v.as_str()),
        })),
    })
}

/// `describe_table`.
pub(crate) async fn describe_table(client: &Client, table: &str) -> Result<Value, ToolError> {
    let out = client.describe_table().table_name(table).send().await.map_err(|e| {
        let not_found = e.as_service_error().is_some_and(|s| s.is_resource_not_found_exception());
        match not_found {
            true => ToolError::Request(format!(
                "DescribeTable failed: there is no table {table:?}; list_tables names the tables there are"
            )),
            false => request("DescribeTable", e),
        }
    })?;
    let t = out.table().ok_or_else(|| ToolError::Request("DescribeTable returned no table".into()))?;
    Ok(describe_json(t))
}

/// A page of items as the data tools answer it.
pub(crate) fn page_json(items: &[SdkItem], last: Option<&SdkItem>) -> Value {
    json!({
        "count": items.len(),
        "items": items.iter().map(to_json).collect::<Vec<_>>(),
        "last_evaluated_key": last.map(to_json),
    })
}

/// `query`: one page of a Query with the agent's key condition.
pub(crate) async fn query(client: &Client, input: &Query) -> Result<Value, ToolError> {
    let values = input
        .values
        .iter()
        .map(|(k, v)| Ok((k.clone(), value(v, &format!("values.{k}"))?)))
        .collect::<Result<SdkItem, ToolError>>()?;
    let start = input.exclusive_start_key.as_ref().map(|k| item(k, "exclusive_start_key")).transpose()?;
    let out = client
        .query()
        .table_name(&input.table)
        .set_index_name(input.index.clone())
        .key_condition_expression(&input.key_condition)
        .set_expression_attribute_values((!values.is_empty()).then_some(values))
        .set_expression_attribute_names(
            (!input.names.is_empty()).then(|| input.names.clone().into_iter().collect()),
        )
        .set_limit(input.limit.map(|l| l.min(i32::MAX as u32) as i32))
        .scan_index_forward(!input.descending)
        .set_exclusive_start_key(start)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .map_err(|e| request("Query", e))?;
    let mut answer = page_json(out.items(), out.last_evaluated_key.as_ref());
    answer["consumed_capacity"] = consumed(out.consumed_capacity());
    Ok(answer)
}

/// Whether `statement` is a PartiQL SELECT: its first word, after blanks and comments
/// (`--` to the end of the line, `/* … */`), is `SELECT` in any case.
pub(crate) fn is_select(statement: &str) -> bool {
    let mut rest = statement;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("--") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    word.eq_ignore_ascii_case("select")
}

/// `partiql`: one ExecuteStatement; a statement other than SELECT only when `writable`.
pub(crate) async fn partiql(client: &Client, input: &Partiql, writable: bool) -> Result<Value, ToolError> {
    if !writable && !is_select(&input.statement) {
        return Err(ToolError::bad(
            "this server is read-only: partiql runs only SELECT statements. INSERT, UPDATE and DELETE need the server started with --writable",
        ));
    }
    let parameters = input
        .parameters
        .iter()
        .enumerate()
        .map(|(i, v)| value(v, &format!("parameters[{i}]")))
        .collect::<Result<Vec<AttributeValue>, _>>()?;
    let out = client
        .execute_statement()
        .statement(&input.statement)
        .set_parameters((!parameters.is_empty()).then_some(parameters))
        .set_limit(input.limit.map(|l| l.min(i32::MAX as u32) as i32))
        .set_next_token(input.next_token.clone())
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .send()
        .await
        .map_err(|e| request("ExecuteStatement", e))?;
    let mut answer = page_json(out.items(), out.last_evaluated_key.as_ref());
    answer["next_token"] = json!(out.next_token());
    answer["consumed_capacity"] = consumed(out.consumed_capacity());
    Ok(answer)
}

#[cfg(test)]
mod tests {
    use super::is_select;

    #[test]
    fn only_a_statement_whose_first_word_is_select_is_a_select() {
        assert!(is_select("SELECT * FROM t"));
        assert!(is_select("  select * from t"));
        assert!(is_select("-- note\n/* c */ SeLeCt * FROM t"));
        assert!(!is_select("INSERT INTO t VALUE {'pk': 'a'}"));
        assert!(!is_select("-- SELECT\nDELETE FROM t WHERE pk = 'a'"));
        assert!(!is_select("/* SELECT */ UPDATE t SET a = 1 WHERE pk = 'a'"));
        assert!(!is_select("SELECTED"));
        assert!(!is_select(""));
    }
}
