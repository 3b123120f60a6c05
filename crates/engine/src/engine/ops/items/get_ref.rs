//! GetItem on a borrowed request ([`GetItemRef`]): the plain lookup SDKs send on the hot path,
//! a table name and a key of strings, numbers or binary values, served without building the
//! owned [`GetItemInput`] (its table name, key map, attribute names and values are one heap
//! allocation each) and without running the general request checks.
//!
//! Invariant: [`get_item_ref`] answers (`Some`) only a request that [`get_item`](super::get_item)
//! accepts, and then with exactly the output `get_item` gives for the same request.
//! Every request that could fail a check is declined (`None`): an unknown table, a table ARN,
//! a key that does not name exactly the table's key attributes with their types, an empty or
//! oversized key value, a number that does not parse, a `ReturnConsumedCapacity` outside its
//! enumeration, a repeated key attribute. The caller then runs `get_item` on the owned
//! request, which reports DynamoDB's error in DynamoDB's order; no error text lives here.
//! (The one error this path returns is the storage's own, which `get_item` returns
//! alike.) `tests/get_item_ref.rs` checks the invariant on generated requests.

use monotable_types::{AttributeType, Number, ValueRef};

use crate::api::{GetItemOutput, GetItemRef};
use crate::engine::core::capacity::Report;
use crate::engine::core::read_one::read_one;
use crate::engine::core::util::lookup;
use crate::engine::core::Inner;
use crate::keys::{encode_bytes, encode_number};
use crate::table::KeySchema;
use crate::validate::{MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::Error;

/// See the module documentation.
pub(in crate::engine) fn get_item_ref(
    inner: &Inner,
    input: &GetItemRef<'_>,
) -> Option<Result<GetItemOutput, Error>> {
    let report = match input.return_consumed_capacity {
        None | Some("NONE") => Report::None,
        Some("TOTAL") => Report::Total,
        Some("INDEXES") => Report::Indexes,
        Some(_) => return None,
    };
    // An existing table's name passes the name checks (CreateTable made the same ones). An ARN
    // finds its table too, but is declined: the general path checks it as a name first.
    let table = lookup(inner, input.table_name)?;
    if table.name != input.table_name {
        return None;
    }
    let key = key_bytes(&table.schema().key, input.key)?;
    Some(read_one(&table, &key, input.consistent_read == Some(true), report, None))
}

/// The storage key of `given`, when it names each of the table's key attributes exactly once,
/// with its type, within the key value rules (`validate::check_key`); `None` otherwise.
fn key_bytes(schema: &KeySchema, given: &[(&str, ValueRef<'_>)]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(64);
    let mut wanted = 0;
    for (position, attr) in schema.attrs().enumerate() {
        wanted += 1;
        let mut named = given.iter().filter(|(name, _)| *name == attr.name);
        let (_, value) = named.next()?;
        if named.next().is_some() {
            return None;
        }
        // A base table's key is its partition attribute, then at most one sort attribute.
        let limit = if position == 0 { MAX_PARTITION_KEY_BYTES } else { MAX_SORT_KEY_BYTES };
        match (attr.ty, *value) {
            (AttributeType::S, ValueRef::S(s)) if !s.is_empty() && s.len() <= limit => {
                encode_bytes(s.as_bytes(), &mut out)
            }
            (AttributeType::B, ValueRef::B(b)) if !b.is_empty() && b.len() <= limit => {
                encode_bytes(b, &mut out)
            }
            // A number is at most 38 digits, 21 bytes by DynamoDB's size rule: always within
            // both key limits.
            (AttributeType::N, ValueRef::N(text)) => encode_number(&Number::parse(text).ok()?, &mut out),
            _ => return None,
        }
    }
    (given.len() == wanted).then_some(out)
}
