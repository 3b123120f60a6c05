//! PartiQL statements (ExecuteStatement) from the page's editor, with parameters and the
//! endpoint's `NextToken` for the next page of a SELECT.
//!
//! A read-only console runs only SELECT: a statement whose first word is anything else (INSERT,
//! UPDATE, DELETE, or a comment hiding one) is refused before it reaches the endpoint.

use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
use serde_json::{json, Value};

use super::read::{capacity, entry};
use super::{flag, limit, optional_string, string, Ctx};
use crate::capture::Capture;
use crate::error::ApiError;
use crate::value::value_from_json;

/// ExecuteStatement: `{statement, parameters?: [DynamoDB JSON], limit?, nextToken?,
/// consistent?}`. Answers `{items, nextToken, consumed, request}`.
pub async fn execute(ctx: &Ctx<'_>, input: &Value) -> Result<Value, ApiError> {
    let statement = string(input, "statement")?;
    if !ctx.writable && !is_select(statement) {
        return Err(ApiError::Forbidden(
            "The console is read-only: only SELECT statements run; start it with --writable to change data."
                .into(),
        ));
    }
    let parameters = match input.get("parameters") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) if list.is_empty() => None,
        Some(Value::Array(list)) => Some(list.iter().map(value_from_json).collect::<Result<Vec<_>, _>>()?),
        Some(_) => return Err(ApiError::bad("`parameters` must be a list of DynamoDB JSON values")),
    };
    let capture = Capture::new();
    let out = ctx
        .client
        .execute_statement()
        .statement(statement)
        .set_parameters(parameters)
        .limit(limit(input)?)
        .set_next_token(optional_string(input, "nextToken")?.map(str::to_string))
        .consistent_read(flag(input, "consistent", false)?)
        .return_consumed_capacity(ReturnConsumedCapacity::Total)
        .customize()
        .interceptor(capture.clone())
        .send()
        .await?;
    Ok(json!({
        "items": out.items().iter().map(|item| entry(ctx, item)).collect::<Vec<_>>(),
        "count": out.items().len(),
        "nextToken": out.next_token(),
        "consumed": out.consumed_capacity().map(capacity),
        "request": capture.sent(),
    }))
}

/// Whether the statement's first word is SELECT (any case).
fn is_select(statement: &str) -> bool {
    let word: String = statement.trim_start().chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    word.eq_ignore_ascii_case("select")
}

#[cfg(test)]
mod tests {
    use super::is_select;

    #[test]
    fn only_a_statement_that_starts_with_select_is_a_read() {
        assert!(is_select("SELECT * FROM \"t\""));
        assert!(is_select("  select pk FROM t"));
        for write in [
            "INSERT INTO t VALUE {'pk': 'a'}",
            "UPDATE t SET a = 1 WHERE pk = 'a'",
            "DELETE FROM t WHERE pk = 'a'",
            "-- SELECT\nDELETE FROM t",
            "SELECTED",
            "",
        ] {
            assert!(!is_select(write), "{write}");
        }
    }
}
