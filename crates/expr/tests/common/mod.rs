//! Helpers shared by the integration tests: terse value builders and placeholder maps.
#![allow(dead_code)]

use std::collections::HashMap;

use monotable_types::{AttributeValue, Item, Number};

pub fn s(x: &str) -> AttributeValue {
    AttributeValue::S(x.to_owned())
}

pub fn n(x: &str) -> AttributeValue {
    AttributeValue::N(Number::parse(x).expect("test number"))
}

pub fn num(x: &str) -> Number {
    Number::parse(x).expect("test number")
}

pub fn b(x: &[u8]) -> AttributeValue {
    AttributeValue::B(x.to_vec())
}

pub fn ss(xs: &[&str]) -> AttributeValue {
    AttributeValue::Ss(xs.iter().map(|x| x.to_string()).collect())
}

pub fn ns(xs: &[&str]) -> AttributeValue {
    AttributeValue::Ns(xs.iter().map(|x| num(x)).collect())
}

pub fn bs(xs: &[&[u8]]) -> AttributeValue {
    AttributeValue::Bs(xs.iter().map(|x| x.to_vec()).collect())
}

pub fn l(xs: Vec<AttributeValue>) -> AttributeValue {
    AttributeValue::L(xs)
}

pub fn m(xs: Vec<(&str, AttributeValue)>) -> AttributeValue {
    AttributeValue::M(item(xs))
}

pub fn item(xs: Vec<(&str, AttributeValue)>) -> Item {
    xs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

pub fn names(xs: &[(&str, &str)]) -> HashMap<String, String> {
    xs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

pub fn values(xs: Vec<(&str, AttributeValue)>) -> HashMap<String, AttributeValue> {
    xs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

/// The values most tests use: `:v`/`:s` strings, `:n` a number, `:l` a list, `:ss` a set.
pub fn std_values() -> HashMap<String, AttributeValue> {
    values(vec![
        (":v", s("x")),
        (":s", s("a")),
        (":t", s("b")),
        (":n", n("1")),
        (":l", l(vec![s("x")])),
        (":ss", ss(&["a", "b"])),
        (":ns", ns(&["1", "2"])),
    ])
}
