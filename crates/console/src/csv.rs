//! Items as CSV (RFC 4180, section 2): a header line of attribute names, one record per item,
//! CRLF line ends; a field that holds a comma, a double quote, CR or LF is enclosed in double
//! quotes with each double quote inside doubled. Every other field is written as is.

use serde_json::{Map, Value};

/// The CSV text of `items` (DynamoDB JSON) under `columns`, header first.
pub fn write(columns: &[String], items: &[Value]) -> String {
    let mut out = String::new();
    record(&mut out, columns.iter().map(String::as_str));
    for item in items {
        let cells: Vec<String> = columns.iter().map(|c| item.get(c).map(cell).unwrap_or_default()).collect();
        record(&mut out, cells.iter().map(String::as_str));
    }
    out
}

fn record<'a>(out: &mut String, fields: impl Iterator<Item = &'a str>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.contains([',', '"', '\r', '\n']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(field);
        }
    }
    out.push_str("\r\n");
}

/// One attribute's text: a string, number or binary (base64) as is, a boolean as
/// `true`/`false`, NULL as an empty field, sets, lists and maps as plain JSON.
fn cell(value: &Value) -> String {
    match plain(value) {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// DynamoDB JSON → plain JSON; a number stays text unless JSON can hold it exactly.
fn plain(value: &Value) -> Value {
    let Some((ty, v)) = value.as_object().and_then(|o| o.iter().next()) else {
        return Value::Null;
    };
    match (ty.as_str(), v) {
        ("N", Value::String(n)) => Value::String(n.clone()),
        ("NULL", _) => Value::Null,
        ("NS", Value::Array(list)) => Value::Array(list.iter().map(number).collect()),
        ("L", Value::Array(list)) => Value::Array(list.iter().map(nested).collect()),
        ("M", Value::Object(map)) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), nested(v))).collect::<Map<_, _>>())
        }
        (_, v) => v.clone(),
    }
}

/// A value inside a list or map, where numbers are JSON numbers when exact.
fn nested(value: &Value) -> Value {
    match value.get("N") {
        Some(n) => number(n),
        None => plain(value),
    }
}

fn number(text: &Value) -> Value {
    let Some(text) = text.as_str() else { return Value::Null };
    match serde_json::from_str::<serde_json::Number>(text) {
        Ok(n) if n.to_string() == text => Value::Number(n),
        _ => Value::String(text.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::write;

    #[test]
    fn fields_with_commas_quotes_or_line_breaks_are_quoted_and_quotes_doubled() {
        let columns = ["pk".to_string(), "note".to_string(), "n".to_string(), "m".to_string()];
        let items = [
            json!({"pk": {"S": "a"}, "note": {"S": "say \"hi\", then\r\nleave"}, "n": {"N": "1.50"}}),
            json!({"pk": {"S": "b"}, "m": {"M": {"x": {"N": "2"}, "l": {"L": [{"S": "y"}, {"NULL": true}]}}}}),
        ];
        assert_eq!(
            write(&columns, &items),
            "pk,note,n,m\r\n\
             a,\"say \"\"hi\"\", then\r\nleave\",1.50,\r\n\
             b,,,\"{\"\"l\"\":[\"\"y\"\",null],\"\"x\"\":2}\"\r\n"
        );
    }
}
