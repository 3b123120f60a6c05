//! ImportTable's CSV input (developer guide, "Amazon S3 import formats for DynamoDB"):
//! records separated by newlines, fields by the delimiter (`,` unless
//! `InputFormatOptions.Csv.Delimiter` says otherwise), double quotes escaped by doubling them;
//! the first record is the header unless `HeaderList` is given, in which case it is data.
//! "All columns other than the hash range and keys of your base table and secondary indexes
//! are imported as DynamoDB strings"; key columns take their `AttributeDefinitions` type.
//! An empty field is left out of the item (monotable's choice: the guide does not say).

use std::collections::HashMap;

use base64::Engine as _;
use monotable_types::{AttributeType, AttributeValue, Item, Number};

/// Splits `text` into records of fields. A quote opens a quoted field only at the start of a
/// field; inside one, `""` is a quote and the delimiter and newlines are ordinary text.
pub(super) fn records(text: &str, delimiter: char) -> Result<Vec<Vec<String>>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let (mut quoted, mut at_field_start, mut any) = (false, true, false);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_field_start => {
                quoted = true;
                at_field_start = false;
            }
            '"' => return Err("a double quote inside an unquoted field must be escaped".into()),
            c if c == delimiter => {
                record.push(std::mem::take(&mut field));
                at_field_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
                at_field_start = true;
                any = false;
            }
            _ => {
                field.push(c);
                at_field_start = false;
            }
        }
    }
    if quoted {
        return Err("a quoted field is not closed".into());
    }
    if any {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// One data record as an item: key columns typed, every other column a string.
pub(super) fn item(
    header: &[String],
    record: &[String],
    types: &HashMap<String, AttributeType>,
) -> Result<Item, String> {
    if record.len() != header.len() {
        return Err(format!("the record has {} fields, the header {}", record.len(), header.len()));
    }
    // Collected, then sorted once: the header's column order is not name order.
    let mut item = Vec::with_capacity(header.len());
    for (name, value) in header.iter().zip(record) {
        if value.is_empty() {
            continue;
        }
        let typed = match types.get(name) {
            Some(AttributeType::N) => {
                AttributeValue::N(Number::parse(value).map_err(|e| format!("{name}: {e}"))?)
            }
            Some(AttributeType::B) => AttributeValue::B(
                base64::engine::general_purpose::STANDARD
                    .decode(value)
                    .map_err(|e| format!("{name}: {e}"))?,
            ),
            _ => AttributeValue::S(value.clone()),
        };
        item.push((name.as_str(), typed));
    }
    Ok(item.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_follow_the_guides_quoting() {
        // The guide's example: "id,value \"\"\"123\"\"\",Women's Full Lenth Dress" imports the
        // value "123" with its quotes.
        let parsed = records("id,value\n\"\"\"123\"\"\",Women's Full Lenth Dress\n", ',').unwrap();
        assert_eq!(parsed, vec![vec!["id", "value"], vec!["\"123\"", "Women's Full Lenth Dress"]]);
        assert_eq!(records("a;\"b;c\nd\"\r\ne;f", ';').unwrap(), vec![vec!["a", "b;c\nd"], vec!["e", "f"]]);
        assert!(records("id,value\n\"123\",x\"y", ',').is_err());
        assert!(records("\"open", ',').is_err());
        assert!(records("", ',').unwrap().is_empty());
    }

    #[test]
    fn key_columns_are_typed_and_the_rest_are_strings() {
        let header = vec!["pk".to_string(), "n".to_string(), "empty".to_string()];
        let types = HashMap::from([("pk".to_string(), AttributeType::N)]);
        let item = item(&header, &["7".into(), "8".into(), String::new()], &types).unwrap();
        assert_eq!(item.get("pk"), Some(&AttributeValue::N(Number::parse("7").unwrap())));
        assert_eq!(item.get("n"), Some(&AttributeValue::S("8".into())));
        assert!(!item.contains_key("empty"));
    }
}
