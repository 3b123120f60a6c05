//! A shortcut decoder for the request layouts that SDKs send on the hot path: GetItem and
//! PutItem bodies whose strings have no escapes and whose attribute values are `S`, `N`,
//! `BOOL` or `NULL` (keys: `S` or `N`).
//!
//! It borrows every string from the body and allocates only what the input shape owns, where
//! serde_json's derive goes through its generic visitor machinery (about 4,700 instructions
//! for a two-attribute GetItem, most of a request's protocol work).
//!
//! Invariant: the shortcut returns `Some` only for bodies that serde_json decodes without
//! error, and then the very value serde_json would produce; anything it does not recognise
//! (an escape, a control character, an unknown or repeated member, `null`, another value type,
//! a number the parser refuses, trailing bytes) makes it return `None`, and the body goes to
//! serde_json, whose result and errors stand. `tests::the_shortcut_agrees_with_serde_json`
//! checks this on generated bodies.

use std::any::Any;
use std::collections::HashMap;

use monotable_engine::api::{GetItemInput, GetItemRef, PutItemInput};
use monotable_types::{AttributeValue, Item, Name, Number, ValueRef};

/// The shortcut's decode of `body` into `I`, for the shapes it knows; `None` sends the body
/// to serde_json.
pub(crate) fn decode<I: 'static>(body: &str) -> Option<I> {
    let mut slot: Option<I> = None;
    let any = &mut slot as &mut dyn Any;
    // The type tests are resolved at compile time for each `I`.
    if let Some(slot) = any.downcast_mut::<Option<GetItemInput>>() {
        *slot = get_item(body);
    } else if let Some(slot) = any.downcast_mut::<Option<PutItemInput>>() {
        *slot = put_item(body);
    }
    slot
}

fn get_item(body: &str) -> Option<GetItemInput> {
    let mut c = Cursor::new(body);
    let mut input = GetItemInput::default();
    c.object(|c, member| match member {
        "TableName" => set(&mut input.table_name, || c.string()),
        "Key" => set(&mut input.key, || c.item(Values::Key)),
        "ConsistentRead" => set(&mut input.consistent_read, || c.boolean()),
        "ReturnConsumedCapacity" => set(&mut input.return_consumed_capacity, || c.string()),
        "ProjectionExpression" => set(&mut input.projection_expression, || c.string()),
        "ExpressionAttributeNames" => set(&mut input.expression_attribute_names, || c.names()),
        _ => None,
    })?;
    c.end()?;
    Some(input)
}

fn put_item(body: &str) -> Option<PutItemInput> {
    let mut c = Cursor::new(body);
    let mut input = PutItemInput::default();
    c.object(|c, member| match member {
        "TableName" => set(&mut input.table_name, || c.string()),
        "Item" => set(&mut input.item, || c.item(Values::Scalars)),
        "ReturnValues" => set(&mut input.return_values, || c.string()),
        "ReturnConsumedCapacity" => set(&mut input.return_consumed_capacity, || c.string()),
        "ReturnItemCollectionMetrics" => set(&mut input.return_item_collection_metrics, || c.string()),
        "ConditionExpression" => set(&mut input.condition_expression, || c.string()),
        "ReturnValuesOnConditionCheckFailure" => {
            set(&mut input.return_values_on_condition_check_failure, || c.string())
        }
        "ExpressionAttributeNames" => set(&mut input.expression_attribute_names, || c.names()),
        "ExpressionAttributeValues" => set(&mut input.expression_attribute_values, || c.values()),
        _ => None,
    })?;
    c.end()?;
    Some(input)
}

/// A GetItem body of the plain-lookup layout, borrowed from the body: `TableName`, a `Key` of
/// at most two `S` or `N` attributes, and maybe `ConsistentRead` and `ReturnConsumedCapacity`.
/// It is what [`monotable_engine::Engine::get_item_ref`] takes.
///
/// Invariant: the body decodes with serde_json into the `GetItemInput` holding exactly these
/// members (the shortcut's invariant, for this narrower grammar).
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlainGet<'a> {
    table_name: &'a str,
    key: PlainKey<'a>,
    key_len: usize,
    consistent_read: Option<bool>,
    return_consumed_capacity: Option<&'a str>,
}

impl PlainGet<'_> {
    /// The request as the engine's borrowed GetItem takes it.
    pub(crate) fn request(&self) -> GetItemRef<'_> {
        GetItemRef {
            table_name: self.table_name,
            key: &self.key[..self.key_len],
            consistent_read: self.consistent_read,
            return_consumed_capacity: self.return_consumed_capacity,
        }
    }
}

/// Room for a plain lookup's key: a base table's key has one or two attributes.
type PlainKey<'a> = [(&'a str, ValueRef<'a>); 2];

/// `body` as a [`PlainGet`], when it has that layout (and no escape in any string); `None`
/// sends it to the general decode.
pub(crate) fn plain_get(body: &str) -> Option<PlainGet<'_>> {
    let mut c = Cursor::new(body);
    let (mut table_name, mut key, mut consistent_read, mut return_consumed_capacity) =
        (None, None, None, None);
    c.object(|c, member| match member {
        "TableName" => set(&mut table_name, || c.str()),
        "Key" => set(&mut key, || c.key()),
        "ConsistentRead" => set(&mut consistent_read, || c.boolean()),
        "ReturnConsumedCapacity" => set(&mut return_consumed_capacity, || c.str()),
        _ => None,
    })?;
    c.end()?;
    let (key, key_len) = key?;
    Some(PlainGet { table_name: table_name?, key, key_len, consistent_read, return_consumed_capacity })
}

/// Reads a member into its slot. A repeated member is serde's to refuse (its derive reports
/// a duplicate field), so the shortcut declines it.
fn set<T>(slot: &mut Option<T>, read: impl FnOnce() -> Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(read()?);
    Some(())
}

/// Which attribute value types the shortcut reads.
#[derive(Clone, Copy, PartialEq)]
enum Values {
    /// `S` and `N` (the types a key may have, but `B`).
    Key,
    /// `S`, `N`, `BOOL` and `NULL`.
    Scalars,
}

/// A position in the body. Every method returns `None` for anything outside the shortcut's
/// grammar; none of them panics.
struct Cursor<'a> {
    /// The body as text (checked once to be UTF-8, by `check_encoding`): every string is then
    /// a slice between two ASCII quotes, which lie on character boundaries, and needs no check
    /// of its own.
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Cursor<'a> {
        Cursor { text, at: 0 }
    }

    /// Skips JSON whitespace and returns the next byte without consuming it.
    fn peek(&mut self) -> Option<u8> {
        while let Some(&b) = self.text.as_bytes().get(self.at) {
            // Every whitespace byte is at most a space: one comparison settles the usual case
            // (SDK bodies have no whitespace between tokens).
            if b > b' ' || !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                return Some(b);
            }
            self.at += 1;
        }
        None
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    /// Nothing but whitespace remains.
    fn end(&mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// A string with no escape and no control character, borrowed from the body.
    fn str(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = self.text.as_bytes().get(self.at..)?;
        // The first quote, backslash or control character, found a word at a time.
        let len = monotable_types::clean_len(rest);
        if rest.get(len) != Some(&b'"') {
            return None;
        }
        let text = self.text.get(self.at..self.at + len)?;
        self.at += len + 1;
        Some(text)
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.peek()?;
        let rest = self.text.as_bytes().get(self.at..)?;
        rest.starts_with(word).then(|| self.at += word.len())
    }

    fn boolean(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| true),
            b'f' => self.literal(b"false").map(|()| false),
            _ => None,
        }
    }

    /// An object: `member` is called with each member's name and must read its value.
    fn object(&mut self, mut member: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(());
        }
        loop {
            let name = self.str()?;
            self.eat(b':')?;
            member(self, name)?;
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// A key of at most two attributes, in body order (repeats included), and how many.
    fn key(&mut self) -> Option<(PlainKey<'a>, usize)> {
        let mut key = [("", ValueRef::Null); 2];
        let mut len = 0;
        self.object(|c, name| {
            *key.get_mut(len)? = (name, c.key_value()?);
            len += 1;
            Some(())
        })?;
        Some((key, len))
    }

    /// An attribute map. Repeated names are kept as `Item`'s own decode keeps them (the last
    /// one wins), by collecting the same way.
    fn item(&mut self, values: Values) -> Option<Item> {
        let mut pairs: Vec<(Name, AttributeValue)> = Vec::new();
        self.object(|c, name| {
            pairs.push((Name::from(name), c.value(values)?));
            Some(())
        })?;
        Some(pairs.into_iter().collect())
    }

    /// One attribute value: exactly one member, of a type `values` allows.
    fn value(&mut self, values: Values) -> Option<AttributeValue> {
        self.tagged(|c, tag| match tag {
            "S" => Some(AttributeValue::S(c.string()?)),
            "N" => Some(AttributeValue::N(Number::parse(c.str()?).ok()?)),
            "BOOL" if values == Values::Scalars => Some(AttributeValue::Bool(c.boolean()?)),
            "NULL" if values == Values::Scalars => {
                c.literal(b"true")?;
                Some(AttributeValue::Null)
            }
            _ => None,
        })
    }

    /// A key value (`S` or `N`) borrowed from the body. The number is checked to parse, as
    /// [`Cursor::value`] checks it, and passed on as its text.
    fn key_value(&mut self) -> Option<ValueRef<'a>> {
        self.tagged(|c, tag| match tag {
            "S" => c.str().map(ValueRef::S),
            "N" => c.str().filter(|text| Number::parse(text).is_ok()).map(ValueRef::N),
            _ => None,
        })
    }

    /// An attribute value's object: exactly one member, whose tag `read` reads the value of.
    fn tagged<T>(&mut self, mut read: impl FnMut(&mut Self, &'a str) -> Option<T>) -> Option<T> {
        let mut found = None;
        self.object(|c, tag| {
            if found.is_some() {
                return None;
            }
            found = Some(read(c, tag)?);
            Some(())
        })?;
        found
    }

    /// `ExpressionAttributeValues`: placeholders to values, the last repeat winning as in the
    /// `HashMap` serde builds.
    fn values(&mut self) -> Option<HashMap<String, AttributeValue>> {
        let mut values = HashMap::new();
        self.object(|c, placeholder| {
            values.insert(placeholder.to_owned(), c.value(Values::Scalars)?);
            Some(())
        })?;
        Some(values)
    }

    /// `ExpressionAttributeNames`: placeholders to names, the last repeat winning as in the
    /// `HashMap` serde builds.
    fn names(&mut self) -> Option<HashMap<String, String>> {
        let mut names = HashMap::new();
        self.object(|c, placeholder| {
            names.insert(placeholder.to_owned(), c.string()?);
            Some(())
        })?;
        Some(names)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde::de::DeserializeOwned;

    use super::*;

    /// Decodes with the shortcut and with serde_json; when the shortcut answers, serde_json
    /// must have succeeded with the same value. Returns whether the shortcut answered.
    fn agree<I: DeserializeOwned + PartialEq + std::fmt::Debug + 'static>(body: &str) -> bool {
        let fast = decode::<I>(body);
        let slow = serde_json::from_str::<I>(body);
        if let Some(fast) = &fast {
            match &slow {
                Ok(slow) => assert_eq!(fast, slow, "{body}"),
                Err(e) => panic!("the shortcut accepted what serde_json refuses ({e}): {body}"),
            }
        }
        fast.is_some()
    }

    /// When `plain_get` reads `body`, serde_json must decode it into the request the reading
    /// stands for. Returns whether `plain_get` read it.
    fn plain_agrees(body: &str) -> bool {
        let Some(plain) = plain_get(body) else { return false };
        let slow = match serde_json::from_str::<GetItemInput>(body) {
            Ok(slow) => slow,
            Err(e) => panic!("plain_get read what serde_json refuses ({e}): {body}"),
        };
        let get = plain.request();
        let key: Item = get.key.iter().map(|(n, v)| (Name::from(*n), v.to_value().unwrap())).collect();
        let read = GetItemInput {
            table_name: Some(get.table_name.to_owned()),
            key: Some(key),
            consistent_read: get.consistent_read,
            return_consumed_capacity: get.return_consumed_capacity.map(str::to_owned),
            ..Default::default()
        };
        assert_eq!(read, slow, "{body}");
        true
    }

    #[test]
    fn plain_lookups_are_read_in_place() {
        assert!(plain_agrees(r#"{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1.50"}}}"#));
        assert!(plain_agrees(
            r#" { "Key" : { "pk" : { "S" : "é" } } , "TableName" : "t", "ConsistentRead": false,
                "ReturnConsumedCapacity": "TOTAL" } "#
        ));
        let plain = plain_get(r#"{"TableName":"t","Key":{"b":{"N":"-0"},"a":{"S":"x"}}}"#).unwrap();
        assert_eq!(plain.request().key, &[("b", ValueRef::N("-0")), ("a", ValueRef::S("x"))]);
        // Repeats are passed on as read, for the engine to decline.
        assert!(plain_agrees(r#"{"TableName":"t","Key":{"a":{"S":"1"},"a":{"S":"2"}}}"#));
        assert_eq!(plain_get(r#"{"TableName":"t","Key":{"a":{"S":"1"},"a":{"S":"2"}}}"#).unwrap().key_len, 2);
    }

    #[test]
    fn other_get_item_layouts_are_not_plain_lookups() {
        for body in [
            r#"{"Key":{"pk":{"S":"a"}}}"#,
            r#"{"TableName":"t"}"#,
            r#"{"TableName":"t","Key":{"a":{"S":"1"},"b":{"S":"2"},"c":{"S":"3"}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"B":"AA=="}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"BOOL":true}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"N":"1e999"}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a\u0041"}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a"}},"ProjectionExpression":"a"}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a"}},"ConsistentRead":null}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a"}},"TableName":"t"}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a"}}} x"#,
        ] {
            assert!(plain_get(body).is_none(), "{body}");
        }
    }

    #[test]
    fn sdk_layouts_take_the_shortcut() {
        assert!(agree::<GetItemInput>(r#"{"TableName":"t","Key":{"pk":{"S":"a"},"sk":{"N":"1.50"}}}"#));
        assert!(agree::<GetItemInput>(
            r#" { "Key" : { "pk" : { "S" : "é" } } , "TableName" : "t", "ConsistentRead": true } "#
        ));
        assert!(agree::<PutItemInput>(
            r##"{"TableName":"t","Item":{"b":{"S":"2"},"a":{"N":"-0"},"t":{"BOOL":false},"z":{"NULL":true}},
                "ConditionExpression":"attribute_not_exists(#p)","ExpressionAttributeNames":{"#p":"pk"},
                "ExpressionAttributeValues":{":v":{"S":"x"}},"ReturnValues":"ALL_OLD"}"##
        ));
        assert!(agree::<PutItemInput>(r#"{"TableName":"t","Item":{"a":{"S":"1"},"a":{"S":"2"}}}"#));
    }

    #[test]
    fn anything_unusual_goes_to_serde_json() {
        for body in [
            r#"{"TableName":"t\"","Key":{}}"#,
            r#"{"TableName":"t","TableName":"u"}"#,
            r#"{"TableName":null}"#,
            r#"{"TableName":"t","Unknown":1}"#,
            r#"{"TableName":"t","Key":{"pk":{"B":"AA=="}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"S":"a","N":"1"}}}"#,
            r#"{"TableName":"t","Key":{"pk":{"N":"1e999"}}}"#,
            r#"{"TableName":"t","Key":{"pk":{}}}"#,
            r#"{"TableName":"t"} x"#,
            r#"{"TableName":"t",}"#,
            "{\"TableName\":\"a\tb\"}",
            r#"{"ConsistentRead":"true"}"#,
            r#"{"TableName":"t""#,
        ] {
            assert!(!agree::<GetItemInput>(body), "{body}");
        }
        assert!(!agree::<PutItemInput>(r#"{"Item":{"m":{"M":{}}}}"#));
        assert!(!agree::<PutItemInput>(r#"{"Item":{"z":{"NULL":false}}}"#));
    }

    fn string() -> impl Strategy<Value = String> + Clone {
        prop_oneof![
            Just("\"t\"".to_owned()),
            Just("\"a b\"".to_owned()),
            Just("\"é😀\"".to_owned()),
            Just("\"\"".to_owned()),
            Just("\"x\\\"y\"".to_owned()),
            Just("\"x\\u0041\"".to_owned()),
        ]
    }

    fn value() -> impl Strategy<Value = String> + Clone {
        prop_oneof![
            string().prop_map(|s| format!("{{\"S\":{s}}}")),
            prop_oneof![Just("1"), Just("-0.50"), Just("1e3"), Just("abc"), Just("1E200"), Just("")]
                .prop_map(|n| format!("{{\"N\":\"{n}\"}}")),
            Just("{\"BOOL\":true}".to_owned()),
            Just("{\"NULL\":true}".to_owned()),
            Just("{\"NULL\":false}".to_owned()),
            Just("{\"B\":\"AA==\"}".to_owned()),
            Just("{}".to_owned()),
            Just("{\"S\":\"a\",\"S\":\"b\"}".to_owned()),
            Just("{\"S\":null}".to_owned()),
        ]
    }

    /// A JSON object of `"name":value` pairs.
    fn map_of(pairs: Vec<(&str, String)>) -> String {
        let members: Vec<String> = pairs.iter().map(|(n, v)| format!("\"{n}\":{v}")).collect();
        format!("{{{}}}", members.join(","))
    }

    fn item() -> impl Strategy<Value = String> + Clone {
        proptest::collection::vec((prop_oneof![Just("a"), Just("b"), Just("pk")], value()), 0..4)
            .prop_map(map_of)
    }

    /// An object of `members`, then maybe a trailing byte.
    fn object(members: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
        (proptest::collection::vec(members, 0..5), prop_oneof![Just(""), Just(" "), Just("\n"), Just("x")])
            .prop_map(|(members, tail)| format!("{{ {} }}{tail}", members.join(" , ")))
    }

    /// Bodies built from fragments of the grammar and from near misses.
    fn body() -> impl Strategy<Value = String> {
        object(prop_oneof![
            string().prop_map(|s| format!("\"TableName\":{s}")),
            item().prop_map(|i| format!("\"Key\":{i}")),
            item().prop_map(|i| format!("\"Item\":{i}")),
            prop_oneof![Just("true"), Just("false"), Just("null"), Just("1")]
                .prop_map(|b| format!("\"ConsistentRead\":{b}")),
            string().prop_map(|s| format!("\"ReturnValues\":{s}")),
            string().prop_map(|s| format!("\"ReturnConsumedCapacity\":{s}")),
            string().prop_map(|s| format!("\"ConditionExpression\":{s}")),
            string().prop_map(|s| format!("\"ExpressionAttributeNames\":{{\"#a\":{s}}}")),
            value().prop_map(|v| format!("\"ExpressionAttributeValues\":{{\":v\":{v},\":v\":{v}}}")),
            Just("\"Other\":[1]".to_owned()),
        ])
    }

    /// GetItem bodies: a table name and a key (mostly of key values), the two optional plain
    /// members, sometimes another member, in either order, maybe with a trailing byte.
    fn get_body() -> impl Strategy<Value = String> {
        let key_value = prop_oneof![
            prop_oneof![Just("a"), Just("é😀"), Just("")].prop_map(|s| format!("{{\"S\":\"{s}\"}}")),
            prop_oneof![Just("1"), Just("-0.50"), Just("abc")].prop_map(|n| format!("{{\"N\":\"{n}\"}}")),
        ];
        let plain_key = proptest::collection::vec((prop_oneof![Just("pk"), Just("sk")], key_value), 0..4)
            .prop_map(map_of);
        let optional = |member: &'static str, values: BoxedStrategy<String>| {
            proptest::option::weighted(0.3, values.prop_map(move |v| format!("\"{member}\":{v}")))
        };
        (
            string(),
            prop_oneof![3 => plain_key, 1 => item()],
            optional(
                "ConsistentRead",
                prop_oneof![Just("true"), Just("null")].prop_map(str::to_owned).boxed(),
            ),
            optional("ReturnConsumedCapacity", string().boxed()),
            optional("ProjectionExpression", string().boxed()),
            any::<bool>(),
            prop_oneof![4 => Just(""), 1 => Just(" x")],
        )
            .prop_map(|(table, key, consistent, capacity, projection, key_first, tail)| {
                let mut members = vec![format!("\"TableName\":{table}"), format!("\"Key\":{key}")];
                if key_first {
                    members.reverse();
                }
                members.extend([consistent, capacity, projection].into_iter().flatten());
                format!("{{{}}}{tail}", members.join(","))
            })
    }

    /// The generated bodies exercise both sides: many take the shortcut, many do not.
    #[test]
    fn generated_bodies_cover_both_paths() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let (mut fast, mut slow, mut plain) = (0, 0, 0);
        for _ in 0..2000 {
            plain += usize::from(plain_agrees(&get_body().new_tree(&mut runner).unwrap().current()));
            let body = body().new_tree(&mut runner).unwrap().current();
            for took in [agree::<GetItemInput>(&body), agree::<PutItemInput>(&body)] {
                if took {
                    fast += 1
                } else {
                    slow += 1
                }
            }
        }
        assert!(fast > 400 && slow > 400 && plain > 100, "shortcut {fast}, serde_json {slow}, plain {plain}");
    }

    proptest! {
        #[test]
        fn the_shortcut_agrees_with_serde_json(body in body()) {
            agree::<GetItemInput>(&body);
            agree::<PutItemInput>(&body);
            plain_agrees(&body);
        }

        #[test]
        fn plain_lookups_agree_with_serde_json(body in get_body()) {
            plain_agrees(&body);
        }
    }
}
