//! Parsing and evaluating a typical filter expression on a typical item.

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use monotable_expr::{parse_condition, ExpressionKind, Params};
use monotable_types::{AttributeValue, Item, Number};

const FILTER: &str =
    "#st = :active AND (price BETWEEN :lo AND :hi OR contains(tags, :tag)) AND attribute_exists(info.addr[0])";

fn n(x: i64) -> AttributeValue {
    AttributeValue::N(Number::from(x))
}

fn sample_item() -> Item {
    let mut info = Item::new();
    info.insert("addr".into(), AttributeValue::L(vec!["1 Main St".into(), "Springfield".into()]));
    info.insert("zip".into(), "12345".into());
    let mut item = Item::new();
    item.insert("pk".into(), "USER#123".into());
    item.insert("sk".into(), "ORDER#2024-01-01".into());
    item.insert("status".into(), "active".into());
    item.insert("price".into(), n(150));
    item.insert("qty".into(), n(3));
    item.insert("tags".into(), AttributeValue::Ss(vec!["new".into(), "sale".into(), "blue".into()]));
    item.insert("info".into(), AttributeValue::M(info));
    item.insert("note".into(), "a short note about this order".into());
    item
}

fn bench(c: &mut Criterion) {
    let names: HashMap<String, String> = [("#st".to_owned(), "status".to_owned())].into();
    let values: HashMap<String, AttributeValue> = [
        (":active".to_owned(), AttributeValue::from("active")),
        (":lo".to_owned(), n(100)),
        (":hi".to_owned(), n(200)),
        (":tag".to_owned(), AttributeValue::from("sale")),
    ]
    .into();
    let item = sample_item();

    c.bench_function("parse filter", |b| {
        b.iter(|| parse_condition(black_box(FILTER), ExpressionKind::Filter))
    });
    c.bench_function("parse + resolve filter", |b| {
        b.iter(|| {
            let mut p = Params::new(Some(&names), Some(&values));
            p.condition(black_box(FILTER), ExpressionKind::Filter)
        })
    });
    let mut p = Params::new(Some(&names), Some(&values));
    let condition = p.condition(FILTER, ExpressionKind::Filter).expect("valid filter");
    assert!(condition.eval(&item));
    c.bench_function("evaluate filter", |b| b.iter(|| black_box(&condition).eval(black_box(&item))));
}

criterion_group!(benches, bench);
criterion_main!(benches);
