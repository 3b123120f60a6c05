//! Encoding an operation's output shape as the response body.
//!
//! Every output goes through sonic-rs (the same bytes serde_json writes, for fewer
//! instructions), except the items of the read responses that carry many of them: GetItem's
//! `Item`, Query's and Scan's `Items` and BatchGetItem's `Responses` are written by
//! [`SharedItem::write_json`]: straight from a stored item's packed bytes, or by
//! [`monotable_types::write_item`] for an item the engine built, instead of through serde's
//! nested maps (a 25-item Query spent more than half its instructions in serde there). The
//! rest of such a response is still serialised by sonic-rs and spliced after the items; a
//! GetItem answer without a capacity report has no rest, and is written whole without it. A
//! write's output with no member (PutItem, UpdateItem or DeleteItem without `ReturnValues` or
//! a capacity report) is `{}`, written without the serialiser.
//!
//! TagResource and UntagResource answer with an empty body, as DynamoDB does (erlcloud pull
//! request 502, "TagResource and UntagResource both return *empty* HTTP responses").
//!
//! Invariant: apart from those two empty bodies, the bytes equal `serde_json::to_vec(&output)`
//! (tests below), so clients see the same JSON whichever path wrote it.

use std::any::Any;

use monotable_engine::{BatchGetItemOutput, DeleteItemOutput, GetItemOutput, PutItemOutput, QueryOutput};
use monotable_engine::{ScanOutput, SharedItem, TagResourceOutput, UntagResourceOutput, UpdateItemOutput};
use serde::Serialize;

use crate::ServerError;

/// Encodes `output` as the response body.
pub(crate) fn output<O: Serialize + Any>(mut output: O) -> Result<Vec<u8>, ServerError> {
    let any = &mut output as &mut dyn Any;
    if let Some(q) = any.downcast_mut::<QueryOutput>() {
        let items = q.items.take();
        return with_items(items.as_deref(), q);
    }
    if let Some(s) = any.downcast_mut::<ScanOutput>() {
        let items = s.items.take();
        return with_items(items.as_deref(), s);
    }
    if let Some(g) = any.downcast_ref::<GetItemOutput>() {
        return get_item(g);
    }
    if let Some(b) = any.downcast_mut::<BatchGetItemOutput>() {
        let responses = b.responses.take();
        return with_responses(responses.as_ref(), b);
    }
    if is_empty_write(any) {
        return Ok(EMPTY.to_vec());
    }
    if any.is::<TagResourceOutput>() || any.is::<UntagResourceOutput>() {
        return Ok(Vec::new());
    }
    serialize(&output)
}

/// An output shape with no member: every shape's members are optional and skipped when absent
/// (the engine's `shape!`), so an all-absent shape is exactly this.
const EMPTY: &[u8] = b"{}";

/// Whether `output` is a single-item write's output with no member, the usual answer to a
/// PutItem, UpdateItem or DeleteItem: written as [`EMPTY`] without running the serialiser.
fn is_empty_write(output: &dyn Any) -> bool {
    is_default::<PutItemOutput>(output)
        || is_default::<UpdateItemOutput>(output)
        || is_default::<DeleteItemOutput>(output)
}

/// Whether `output` is a `T` with every member absent.
fn is_default<T: Default + PartialEq + 'static>(output: &dyn Any) -> bool {
    output.downcast_ref::<T>().is_some_and(|t| *t == T::default())
}

fn serialize<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, ServerError> {
    sonic_rs::to_vec(value).map_err(|e| ServerError::Internal(format!("could not encode the response: {e}")))
}

/// Appends the members of the JSON object `object` (`{...}`, as serialised) after the members
/// already in `out`, and closes the object.
fn close_with(out: &mut Vec<u8>, object: &[u8]) {
    match object.get(1..) {
        Some(rest) if object.len() > 2 => {
            out.push(b',');
            out.extend_from_slice(rest);
        }
        _ => out.push(b'}'),
    }
}

/// `{"Items":[...], <rest>}`: `rest` is the output with its items taken out.
fn with_items(items: Option<&[SharedItem]>, rest: &impl Serialize) -> Result<Vec<u8>, ServerError> {
    let tail = serialize(rest)?;
    let Some(items) = items else { return Ok(tail) };
    let mut out = Vec::with_capacity(tail.len() + 16 + items.len() * 320);
    out.extend_from_slice(b"{\"Items\":");
    write_items(items, &mut out);
    close_with(&mut out, &tail);
    Ok(out)
}

/// Appends `[item, item, ...]`.
fn write_items(items: &[SharedItem], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        item.write_json(out);
    }
    out.push(b']');
}

/// `{"Responses":{"table":[...],...}, <rest>}` for BatchGetItem.
fn with_responses(
    responses: Option<&std::collections::HashMap<String, Vec<SharedItem>>>,
    rest: &impl Serialize,
) -> Result<Vec<u8>, ServerError> {
    let tail = serialize(rest)?;
    let Some(responses) = responses else { return Ok(tail) };
    let mut out = Vec::with_capacity(tail.len() + 64 + responses.values().map(Vec::len).sum::<usize>() * 320);
    out.extend_from_slice(b"{\"Responses\":{");
    for (i, (table, items)) in responses.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        monotable_types::write_str(table, &mut out);
        out.push(b':');
        write_items(items, &mut out);
    }
    out.push(b'}');
    close_with(&mut out, &tail);
    Ok(out)
}

/// GetItem's response, `{"Item":{...}, <rest>}`, from the output in place. The rest is the
/// consumed capacity when one was asked for; without it (the usual lookup) the response is
/// the item alone, written without the serialiser.
pub(crate) fn get_item(output: &GetItemOutput) -> Result<Vec<u8>, ServerError> {
    let Some(item) = &output.item else { return serialize(output) };
    // `{"Item":` and `}` around the item: one allocation when no capacity is reported.
    let mut out = Vec::with_capacity(item.json_len_hint() + 9);
    out.extend_from_slice(b"{\"Item\":");
    item.write_json(&mut out);
    match &output.consumed_capacity {
        None => out.push(b'}'),
        // The rest as serde lays it out, spliced as for the other read outputs (asked for
        // only, so the copy of the report is off the usual path).
        Some(_) => {
            let rest = GetItemOutput { item: None, consumed_capacity: output.consumed_capacity.clone() };
            close_with(&mut out, &serialize(&rest)?);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use monotable_engine::{Capacity, ConsumedCapacity};
    use monotable_types::{AttributeValue, Item, Number, PackedItem};

    use super::*;

    /// Item `i`, held packed (a stored item passed through) for even `i`, decoded for odd.
    fn item(i: u32) -> SharedItem {
        let item: Item = [
            ("pk", AttributeValue::S(format!("p\"{i}\n"))),
            ("n", AttributeValue::N(Number::parse(&i.to_string()).unwrap())),
            ("l", AttributeValue::L(vec![AttributeValue::Null, AttributeValue::B(vec![1, 2, 3])])),
        ]
        .into();
        if i.is_multiple_of(2) {
            SharedItem::from_packed(PackedItem::encode(&item))
        } else {
            SharedItem::from(item)
        }
    }

    fn capacity() -> ConsumedCapacity {
        ConsumedCapacity {
            table_name: Some("t".into()),
            capacity_units: Some(12.5),
            table: Some(Capacity { capacity_units: Some(12.5), ..Capacity::default() }),
            ..ConsumedCapacity::default()
        }
    }

    fn same<O: Serialize + Any + Clone>(value: O) {
        let reference = serde_json::to_vec(&value).unwrap();
        let ours = output(value).unwrap();
        assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&reference));
    }

    #[test]
    fn query_and_scan_pages_are_the_bytes_serde_json_writes() {
        let last: Item = [("pk", AttributeValue::S("p9".into()))].into();
        for items in [None, Some(vec![]), Some(vec![item(1)]), Some((0..25).map(item).collect())] {
            for rest in [false, true] {
                let q = QueryOutput {
                    items: items.clone(),
                    count: rest.then_some(3),
                    scanned_count: rest.then_some(4),
                    last_evaluated_key: rest.then(|| last.clone()),
                    consumed_capacity: rest.then(capacity),
                };
                same(q.clone());
                same(ScanOutput {
                    items: q.items,
                    count: q.count,
                    scanned_count: q.scanned_count,
                    last_evaluated_key: q.last_evaluated_key,
                    consumed_capacity: q.consumed_capacity,
                });
            }
        }
    }

    #[test]
    fn get_item_responses_are_the_bytes_serde_json_writes() {
        same(GetItemOutput::default());
        same(GetItemOutput { item: Some(item(7)), consumed_capacity: None });
        same(GetItemOutput { item: Some(item(7)), consumed_capacity: Some(capacity()) });
        same(GetItemOutput { item: None, consumed_capacity: Some(capacity()) });
    }

    #[test]
    fn batch_get_responses_are_the_bytes_serde_json_writes() {
        same(BatchGetItemOutput::default());
        let mut responses = std::collections::HashMap::new();
        responses.insert("t\"1".to_string(), vec![item(1), item(2)]);
        responses.insert("t2".to_string(), vec![]);
        responses.insert("t3".to_string(), vec![item(3)]);
        same(BatchGetItemOutput { responses: Some(responses.clone()), ..BatchGetItemOutput::default() });
        same(BatchGetItemOutput {
            responses: Some(responses),
            unprocessed_keys: Some(std::collections::HashMap::new()),
            consumed_capacity: Some(vec![capacity(), capacity()]),
        });
    }

    #[test]
    fn write_outputs_are_the_bytes_serde_json_writes_with_and_without_members() {
        same(PutItemOutput::default());
        same(PutItemOutput { attributes: Some(item(1)), ..PutItemOutput::default() });
        same(PutItemOutput { consumed_capacity: Some(capacity()), ..PutItemOutput::default() });
        same(UpdateItemOutput::default());
        same(UpdateItemOutput { attributes: Some(item(1)), ..UpdateItemOutput::default() });
        same(DeleteItemOutput::default());
        same(DeleteItemOutput {
            consumed_capacity: Some(capacity()),
            attributes: Some(item(2)),
            ..DeleteItemOutput::default()
        });
    }

    #[test]
    fn other_outputs_go_through_serde() {
        same(monotable_engine::ListTablesOutput {
            table_names: Some(vec!["a".into(), "b\"".into()]),
            last_evaluated_table_name: None,
        });
    }
}
