//! `cost::estimate` on hand-computed cases. Every expected figure is worked out in the
//! comment above it from DynamoDB's published rules and the built-in us-east-1 prices:
//! $0.125 per million read request units, $0.625 per million write request units,
//! $0.00013 per RCU-hour, $0.00065 per WCU-hour, $0.25 per GB-month, 730 hours a month
//! (<https://aws.amazon.com/dynamodb/pricing/on-demand/>,
//! <https://aws.amazon.com/dynamodb/pricing/provisioned/>). A month of 730 hours has
//! 730 × 3600 = 2,628,000 seconds.

use std::collections::BTreeMap;

use monotable_design::cost::{
    self, CostError, Estimate, IndexCopy, Measured, MeasuredEntity, MeasuredPattern, Prices, Traffic,
};
use monotable_design::{Billing, Design, Operation};

const GB: f64 = 1_073_741_824.0;

/// Users with a GSI of the users' e-mail, a transaction and an LSI of users by name.
fn design(gsi_projection: &str) -> Design {
    Design::from_yaml(&format!(
        r#"
version: 1
app: shop
unit: api
model: main
conventions: {{pk: PK, sk: SK, entity_type: EntityType}}
indexes:
  - {{name: GSI1, kind: gsi, pk: GSI1PK, sk: GSI1SK, projection: {gsi_projection}}}
  - {{name: LSI1, kind: lsi, sk: LSI1SK}}
entities:
  - {{name: User, pk: "USER#{{id}}", sk: PROFILE, indexes: {{GSI1: {{pk: "EMAIL#{{email}}", sk: USER}}, LSI1: {{sk: "NAME#{{name}}"}}}}}}
  - {{name: Unique, pk: "UNIQUE#{{email}}", sk: EMAIL}}
access_patterns:
  - {{name: get-user, entities: [User], index: table, operation: get, scope: tenant}}
  - {{name: put-user, entities: [User], index: table, operation: put, scope: tenant}}
  - {{name: user-by-email, entities: [User], index: GSI1, operation: query, scope: tenant}}
  - {{name: register, entities: [User, Unique], index: table, operation: transact_write, scope: tenant}}
  - {{name: change-email, entities: [User], index: table, operation: update, scope: tenant}}
"#
    ))
    .unwrap()
}

fn read(name: &str, index: &str, eventual: f64, strong: Option<f64>) -> MeasuredPattern {
    MeasuredPattern {
        name: name.into(),
        operation: if index == "table" { Operation::Get } else { Operation::Query },
        index: index.into(),
        items: 1.0,
        read_units_eventual: eventual,
        read_units_strong: strong,
        write_units_table: 0.0,
        write_units_indexes: BTreeMap::new(),
    }
}

fn write(name: &str, operation: Operation, table: f64, indexes: &[(&str, f64)]) -> MeasuredPattern {
    MeasuredPattern {
        name: name.into(),
        operation,
        index: "table".into(),
        items: 1.0,
        read_units_eventual: 0.0,
        read_units_strong: None,
        write_units_table: table,
        write_units_indexes: indexes.iter().map(|(i, u)| (i.to_string(), *u)).collect(),
    }
}

fn entity(name: &str, item_bytes: f64, copies: &[(&str, f64, f64)]) -> MeasuredEntity {
    MeasuredEntity {
        name: name.into(),
        item_bytes,
        indexes: copies
            .iter()
            .map(|(i, projected, keys)| {
                (i.to_string(), IndexCopy { projected_bytes: *projected, keys_only_bytes: *keys })
            })
            .collect(),
    }
}

/// Users of 924 bytes (1 KB with the 100 bytes of overhead), no index copies: reads of
/// 0.5/1 unit, writes of 1 unit.
fn small_users() -> Measured {
    Measured {
        entities: vec![entity("User", 924.0, &[])],
        patterns: vec![
            read("get-user", "table", 0.5, Some(1.0)),
            write("put-user", Operation::Put, 1.0, &[]),
        ],
    }
}

fn run(design: &Design, measured: &Measured, traffic: &str) -> Result<Estimate, CostError> {
    cost::estimate(design, measured, &Traffic::parse(traffic)?, &Prices::us_east_1())
}

fn assert_note(e: &Estimate, note: &str) {
    assert!(e.notes.iter().any(|n| n == note), "no note {note:?} in {:?}", e.notes);
}

fn close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() < 0.005, "{actual} is not within a cent of {expected}");
}

#[test]
fn the_built_in_prices_are_us_east_1_standard_with_their_date_and_source() {
    let p = Prices::us_east_1();
    assert_eq!(
        (p.region.as_str(), p.table_class.as_str(), p.currency.as_str()),
        ("us-east-1", "standard", "USD")
    );
    assert_eq!(p.read_on, "2026-12-06");
    assert!(p.source.iter().any(|s| s == "https://aws.amazon.com/dynamodb/pricing/on-demand/"));
    assert_eq!((p.on_demand.read_per_million, p.on_demand.write_per_million), (0.125, 0.625));
    assert_eq!((p.provisioned.read_unit_hour, p.provisioned.write_unit_hour), (0.00013, 0.00065));
    assert_eq!(
        (p.storage.gb_month, p.storage.bytes_per_gb, p.storage.item_overhead_bytes),
        (0.25, GB, 100.0)
    );
    assert_eq!(p.hours_per_month, 730.0);
}

#[test]
fn on_demand_bills_request_units_per_million() {
    // get-user: 10/s × 2,628,000 s = 26,280,000 eventually consistent reads × 0.5 RRU
    //   = 13,140,000 RRU × $0.125/M = $1.6425.
    // put-user: 1,000,000 writes × 1 WRU × $0.625/M = $0.625.
    // Storage: 1,000,000 users × (924 + 100) B = 1,024,000,000 B / 2^30 = 0.953674 GB
    //   × $0.25 = $0.238419. Total $1.6425 + $0.625 + $0.238419 = $2.505919.
    let e = run(
        &design("all"),
        &small_users(),
        "patterns: {get-user: {per_second: 10}, put-user: {per_month: 1000000}}\nentities: {User: {count: 1000000}}",
    )
    .unwrap();
    assert_eq!(e.patterns[0].read_units_per_month, 13_140_000.0);
    close(e.patterns[0].on_demand_usd, 1.6425);
    close(e.patterns[1].on_demand_usd, 0.625);
    close(e.on_demand.reads_usd, 1.6425);
    close(e.on_demand.writes_usd, 0.625);
    close(e.on_demand.storage_usd, 0.238419);
    close(e.on_demand.total_usd, 2.505919);
}

#[test]
fn a_strongly_consistent_read_takes_the_strong_units() {
    // 26,280,000 strongly consistent reads × 1 RRU × $0.125/M = $3.285.
    let e = run(&design("all"), &small_users(), "patterns: {get-user: {per_second: 10, consistent: true}}")
        .unwrap();
    assert_eq!(e.patterns[0].read_units_per_request, 1.0);
    close(e.on_demand.reads_usd, 3.285);
}

#[test]
fn provisioned_capacity_is_the_mean_over_the_target_utilization_rounded_up() {
    // Reads: 13,140,000 RRU / 2,628,000 s = 5 RCU/s; / 0.70 = 7.14 → 8 RCU
    //   × 730 h × $0.00013 = $0.7592.
    // Writes: 1,000,000 / 2,628,000 = 0.3805 WCU/s; / 0.70 = 0.54 → 1 WCU × 730 × $0.00065 = $0.4745.
    // GSI1 carries nothing and still needs its least capacity, 1 RCU and 1 WCU:
    //   730 × $0.00013 + 730 × $0.00065 = $0.0949 + $0.4745.
    // Total with storage: $0.7592 + $0.0949 + $0.4745 + $0.4745 + $0.238419 = $2.041719.
    let e = run(
        &design("all"),
        &small_users(),
        "patterns: {get-user: {per_second: 10}, put-user: {per_month: 1000000}}\nentities: {User: {count: 1000000}}",
    )
    .unwrap();
    let table = &e.provisioned.table;
    assert_eq!((table.read_units, table.write_units), (8, 1));
    close(table.reads_usd, 0.7592);
    close(table.writes_usd, 0.4745);
    let gsi = e.indexes[0].provisioned.as_ref().unwrap();
    assert_eq!((gsi.read_units, gsi.write_units), (1, 1));
    close(e.provisioned.cost.total_usd, 2.041719);
}

#[test]
fn the_peak_factor_and_target_utilization_size_the_capacity() {
    // Reads: 5 RCU/s × peak 2 / 0.50 = 20 RCU × 730 × $0.00013 = $1.898.
    // Writes: 0.3805 × 2 / 0.50 = 1.52 → 2 WCU × 730 × $0.00065 = $0.949.
    let e = run(
        &design("all"),
        &small_users(),
        "patterns: {get-user: {per_second: 10}, put-user: {per_month: 1000000}}\n\
         provisioned: {target_utilization_percent: 50, peak_factor: 2}",
    )
    .unwrap();
    assert_eq!((e.provisioned.table.read_units, e.provisioned.table.write_units), (20, 2));
    close(e.provisioned.table.reads_usd, 1.898);
    close(e.provisioned.table.writes_usd, 0.949);
}

#[test]
fn a_mean_exactly_at_the_target_needs_no_extra_unit() {
    // 7 reads/s × 0.5 RRU = 3.5 RCU/s; / 0.70 = 5 RCU exactly (in floats 5.000000000000001).
    let e = run(&design("all"), &small_users(), "patterns: {get-user: {per_second: 7}}").unwrap();
    assert_eq!(e.provisioned.table.read_units, 5);
}

/// Users of 2,500 bytes copied whole to GSI1 (2,500 bytes) or as keys (100 bytes):
/// a put takes ⌈2500/1024⌉ = 3 WRU on the table and 3 on GSI1.
fn wide_users() -> Measured {
    Measured {
        entities: vec![entity("User", 2500.0, &[("GSI1", 2500.0, 100.0)])],
        patterns: vec![write("put-user", Operation::Put, 3.0, &[("GSI1", 3.0)])],
    }
}

#[test]
fn a_gsi_with_all_projected_costs_its_copies_and_a_keys_only_projection_shows_the_saving() {
    // put-user: 1,000,000 writes × (3 + 3) WRU = 6,000,000 WRU × $0.625/M = $3.75; GSI1's
    //   share 3,000,000 WRU = $1.875.
    // GSI1 storage: 1,000,000 × (2,500 + 100) B = 2.6e9 B / 2^30 = 2.421439 GB × $0.25 = $0.605360.
    // KEYS_ONLY: a 100 B copy takes ⌈100/1024⌉ = 1 WRU, so 1,000,000 WRU: saves 2,000,000 WRU
    //   = $1.25; entries 1,000,000 × 200 B = 2e8 B, saving 2.4e9 B = 2.235174 GB = $0.558794.
    //   On-demand saving $1.25 + $0.558794 = $1.808794.
    // Provisioned GSI1 writes: 3,000,000 / 2,628,000 = 1.1416/s; / 0.70 = 1.63 → 2 WCU; with
    //   KEYS_ONLY 0.3805 / 0.70 = 0.54 → 1 WCU: saves 1 × 730 × $0.00065 = $0.4745, plus
    //   storage $0.558794 = $1.033294.
    let e = run(
        &design("all"),
        &wide_users(),
        "patterns: {put-user: {per_month: 1000000}}\nentities: {User: {count: 1000000}}",
    )
    .unwrap();
    close(e.on_demand.writes_usd, 3.75);
    let gsi = &e.indexes[0];
    assert_eq!((gsi.name.as_str(), gsi.projection.as_str()), ("GSI1", "all"));
    assert_eq!(gsi.write_units_per_month, 3_000_000.0);
    close(gsi.on_demand_usd, 1.875);
    close(gsi.storage_usd, 0.605360);
    assert_eq!(gsi.provisioned.as_ref().unwrap().write_units, 2);
    let saving = gsi.keys_only.as_ref().unwrap();
    assert_eq!(saving.write_units_per_month, 1_000_000.0);
    assert_eq!(saving.storage_bytes, 2e8);
    close(saving.on_demand_usd, 1.808794);
    close(saving.provisioned_usd, 1.033294);
}

#[test]
fn an_update_that_moves_the_index_key_writes_two_copies_both_narrower_under_keys_only() {
    // Changing an indexed key attribute deletes the old index entry and puts the new one: two
    // index writes ("Provisioned throughput considerations for global secondary indexes",
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html). Measured:
    // 3 WRU on the table and 2 × 3 = 6 on GSI1 for the 2,500 B copies.
    // KEYS_ONLY: 6 / 3 = 2 copies × 1 WRU = 2 WRU; 1,000,000 updates save 4,000,000 WRU
    //   × $0.625/M = $2.50 (no items, so no storage saving).
    let measured = Measured {
        entities: vec![entity("User", 2500.0, &[("GSI1", 2500.0, 100.0)])],
        patterns: vec![write("change-email", Operation::Update, 3.0, &[("GSI1", 6.0)])],
    };
    let e = run(&design("all"), &measured, "patterns: {change-email: {per_month: 1000000}}").unwrap();
    let saving = e.indexes[0].keys_only.as_ref().unwrap();
    assert_eq!(saving.write_units_per_month, 2_000_000.0);
    close(saving.on_demand_usd, 2.50);
}

#[test]
fn a_keys_only_gsi_costs_its_measured_copies_and_shows_no_saving() {
    // Measured with KEYS_ONLY copies: 1 WRU on GSI1 per put; 1,000,000 × 1 = $0.625.
    // Storage 1,000,000 × (100 + 100) B = 2e8 B / 2^30 × $0.25 = $0.046566.
    let measured = Measured {
        entities: vec![entity("User", 2500.0, &[("GSI1", 100.0, 100.0)])],
        patterns: vec![write("put-user", Operation::Put, 3.0, &[("GSI1", 1.0)])],
    };
    let e = run(
        &design("keys_only"),
        &measured,
        "patterns: {put-user: {per_month: 1000000}}\nentities: {User: {count: 1000000}}",
    )
    .unwrap();
    let gsi = &e.indexes[0];
    assert_eq!(gsi.projection, "keys_only");
    close(gsi.on_demand_usd, 0.625);
    close(gsi.storage_usd, 0.046566);
    assert_eq!(gsi.keys_only, None);
}

#[test]
fn a_transaction_bills_its_doubled_units() {
    // register writes a User and a Unique item of under 1 KB in one transaction: 2 items × 1 WRU
    // × 2 = 4 WRU ("Capacity management for transactions",
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html).
    // 1/s × 2,628,000 s × 4 = 10,512,000 WRU × $0.625/M = $6.57.
    // Provisioned: 4 WCU/s / 0.70 = 5.71 → 6 WCU × 730 × $0.00065 = $2.847.
    let measured =
        Measured { entities: vec![], patterns: vec![write("register", Operation::TransactWrite, 4.0, &[])] };
    let e = run(&design("all"), &measured, "patterns: {register: {per_second: 1}}").unwrap();
    assert_eq!(e.patterns[0].write_units_per_request, 4.0);
    close(e.on_demand.writes_usd, 6.57);
    assert_eq!(e.provisioned.table.write_units, 6);
    close(e.provisioned.table.writes_usd, 2.847);
}

#[test]
fn a_large_item_takes_three_strong_read_units_and_ten_write_units() {
    // A 9.5 KB item (9,728 B): a strongly consistent read takes ⌈9728/4096⌉ = 3 RRU, a write
    // ⌈9728/1024⌉ = 10 WRU ("DynamoDB item sizes and formats", "Read/write capacity mode").
    // 1,000,000 strong reads × 3 = 3,000,000 RRU × $0.125/M = $0.375.
    // 1,000,000 writes × 10 = 10,000,000 WRU × $0.625/M = $6.25.
    // Storage: 1,000 × (9,728 + 100) B = 9,828,000 B / 2^30 = 0.009153 GB × $0.25 = $0.002288.
    let item = 9728.0_f64;
    let (strong, writes) = ((item / 4096.0).ceil(), (item / 1024.0).ceil());
    assert_eq!((strong, writes), (3.0, 10.0));
    let measured = Measured {
        entities: vec![entity("User", item, &[])],
        patterns: vec![
            read("get-user", "table", strong / 2.0, Some(strong)),
            write("put-user", Operation::Put, writes, &[]),
        ],
    };
    let e = run(
        &design("all"),
        &measured,
        "patterns: {get-user: {per_month: 1000000, consistent: true}, put-user: {per_month: 1000000}}\n\
         entities: {User: {count: 1000}}",
    )
    .unwrap();
    close(e.on_demand.reads_usd, 0.375);
    close(e.on_demand.writes_usd, 6.25);
    assert_eq!(e.storage.table_bytes, 9_828_000.0);
    close(e.on_demand.storage_usd, 0.002288);
}

#[test]
fn a_gb_is_two_to_the_thirtieth_bytes() {
    // 1,048,576 items × (924 + 100) B = 2^30 B = exactly 1 GB × $0.25 (decimal GB would make
    // it 1.0737 GB, $0.27).
    let e = run(&design("all"), &small_users(), "entities: {User: {count: 1048576}}").unwrap();
    assert_eq!(e.storage.gb, 1.0);
    assert_eq!(e.storage.usd, 0.25);
}

#[test]
fn items_grow_to_their_mean_over_the_estimated_month() {
    // Month 3 of 1,000,000 users growing 200,000 a month holds on average
    // 1,000,000 + 200,000 × 2.5 = 1,500,000 users × 1,024 B.
    let e = run(
        &design("all"),
        &small_users(),
        "month: 3\nentities: {User: {count: 1000000, growth_per_month: 200000}}",
    )
    .unwrap();
    assert_eq!(e.storage.table_bytes, 1_500_000.0 * 1024.0);
}

#[test]
fn writes_to_an_lsi_use_the_tables_capacity() {
    // An LSI has no capacity of its own ("Provisioned throughput considerations for local
    // secondary indexes", https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/LSI.html):
    // 2,628,000 puts × (1 + 1) WRU / 2,628,000 s = 2 WCU/s; / 0.70 = 2.86 → 3 WCU on the table.
    let measured = Measured {
        entities: vec![entity("User", 500.0, &[("LSI1", 500.0, 60.0)])],
        patterns: vec![write("put-user", Operation::Put, 1.0, &[("LSI1", 1.0)])],
    };
    let e = run(&design("all"), &measured, "patterns: {put-user: {per_second: 1}}").unwrap();
    assert_eq!(e.provisioned.table.write_units, 3);
    let lsi = e.indexes.iter().find(|i| i.name == "LSI1").unwrap();
    assert_eq!(lsi.provisioned, None);
    assert_eq!(lsi.write_units_per_month, 2_628_000.0);
}

#[test]
fn patterns_without_traffic_count_as_zero_and_are_noted() {
    let e = run(&design("all"), &small_users(), "patterns: {get-user: {per_month: 10}}").unwrap();
    let note = e.notes.iter().find(|n| n.starts_with("no traffic given for")).unwrap();
    assert_eq!(
        note,
        "no traffic given for put-user, user-by-email, register, change-email: counted as zero requests"
    );
    assert_eq!(e.patterns[1].requests_per_month, 0.0);
    // Patterns neither measured nor given traffic have no row, and say so.
    assert_eq!(e.patterns.len(), 2);
    assert_note(&e, "not measured, and left out: user-by-email, register, change-email");
}

#[test]
fn unknown_pattern_and_entity_names_are_refused_by_name() {
    let e = run(&design("all"), &small_users(), "patterns: {get-usr: {per_month: 1}, zzz: {per_month: 1}}");
    assert_eq!(e.unwrap_err(), CostError::UnknownPatterns(vec!["get-usr".into(), "zzz".into()]));
    let e = run(&design("all"), &small_users(), "entities: {Usr: {count: 1}}");
    let err = e.unwrap_err();
    assert_eq!(err, CostError::UnknownEntities(vec!["Usr".into()]));
    assert_eq!(err.to_string(), "traffic file: the design has no entity type Usr");
}

#[test]
fn a_strongly_consistent_read_of_a_gsi_or_a_write_is_refused() {
    let mut measured = small_users();
    measured.patterns.push(read("user-by-email", "GSI1", 0.5, None));
    let e = run(&design("all"), &measured, "patterns: {user-by-email: {per_month: 1, consistent: true}}");
    assert_eq!(e.unwrap_err(), CostError::NoStrongRead { pattern: "user-by-email".into() });
    let e = run(&design("all"), &measured, "patterns: {put-user: {per_month: 1, consistent: true}}");
    assert_eq!(e.unwrap_err(), CostError::NoStrongRead { pattern: "put-user".into() });
}

#[test]
fn traffic_of_an_unmeasured_pattern_is_refused() {
    let e = run(&design("all"), &small_users(), "patterns: {register: {per_month: 1}}");
    let err = e.unwrap_err();
    assert_eq!(err, CostError::NotMeasured { kind: "pattern", name: "register".into() });
    assert_eq!(err.to_string(), "measurements: pattern register has traffic but was not measured");
}

#[test]
fn a_rate_given_twice_or_not_at_all_is_refused() {
    let both = Traffic::parse("patterns: {get-user: {per_second: 1, per_month: 5}}");
    assert_eq!(both.unwrap_err(), CostError::Rate { pattern: "get-user".into() });
    let neither = Traffic::parse(r#"{"patterns": {"get-user": {"consistent": true}}}"#);
    assert_eq!(neither.unwrap_err(), CostError::Rate { pattern: "get-user".into() });
}

#[test]
fn nan_negative_and_out_of_range_numbers_are_errors() {
    for (text, what) in [
        ("patterns: {get-user: {per_second: .nan}}", "patterns.get-user.per_second"),
        ("patterns: {get-user: {per_month: -1}}", "patterns.get-user.per_month"),
        ("entities: {User: {count: .inf}}", "entities.User.count"),
        ("provisioned: {target_utilization_percent: 120}", "provisioned.target_utilization_percent"),
        ("provisioned: {peak_factor: 0.5}", "provisioned.peak_factor"),
    ] {
        match Traffic::parse(text) {
            Err(CostError::BadNumber { what: w, .. }) => assert_eq!(w, what),
            other => panic!("{text}: {other:?}"),
        }
    }
    let mut measured = small_users();
    measured.entities[0].item_bytes = f64::NAN;
    match run(&design("all"), &measured, "entities: {User: {count: 1}}") {
        Err(CostError::BadNumber { what, .. }) => assert_eq!(what, "measured User.item_bytes"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn numbers_too_large_for_a_bill_are_an_error_not_an_infinity() {
    let e = run(
        &design("all"),
        &small_users(),
        "patterns: {put-user: {per_month: 1e308}}\nentities: {User: {count: 1e308}}",
    );
    assert!(matches!(e, Err(CostError::BadNumber { .. })), "{e:?}");
}

#[test]
fn a_price_file_of_the_same_format_overrides_the_prices() {
    // Doubled write price: 1,000,000 × 1 WRU × $1.25/M = $1.25.
    let text = include_str!("../src/cost/prices-us-east-1.yaml")
        .replace("write_per_million: 0.625", "write_per_million: 1.25");
    let prices = Prices::parse(&text).unwrap();
    let traffic = Traffic::parse("patterns: {put-user: {per_month: 1000000}}").unwrap();
    let e = cost::estimate(&design("all"), &small_users(), &traffic, &prices).unwrap();
    close(e.on_demand.writes_usd, 1.25);
    let bad = text.replace("hours_per_month: 730", "hours_per_month: 0");
    assert!(matches!(Prices::parse(&bad), Err(CostError::BadNumber { .. })));
    assert!(matches!(Prices::parse("region: [}"), Err(CostError::PricesParse(_))));
}

#[test]
fn the_estimate_prints_as_tables_and_serialises_as_json() {
    let e = run(
        &design("all"),
        &wide_users(),
        "patterns: {put-user: {per_month: 1000000}}\nentities: {User: {count: 1000000}}",
    )
    .unwrap();
    let text = e.to_text();
    assert!(
        text.starts_with("DynamoDB estimate for month 1: us-east-1 standard prices (USD) read 2026-12-06"),
        "{text}"
    );
    // 1,000,000 puts × 6 WRU / 2,628,000 s = 2.28 WCU/s.
    assert!(
        text.lines().any(|l| l.starts_with("put-user") && l.ends_with("$3.75        0.00        2.28")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("GSI1") && l.ends_with("$1.81 / $1.03")), "{text}");
    assert!(text.lines().any(|l| l.starts_with("Total")), "{text}");
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["indexes"][0]["keys_only"]["write_units_per_month"], 1_000_000.0);
    assert_eq!(json["patterns"][0]["operation"], "put");
}

#[test]
fn traffic_built_in_code_is_checked_like_a_file() {
    // The default is the first month with no requests and no items: nothing to pay on-demand.
    let mut traffic = Traffic::default();
    let e = cost::estimate(&design("all"), &small_users(), &traffic, &Prices::us_east_1()).unwrap();
    assert_eq!((e.month, e.on_demand.total_usd), (1, 0.0));
    traffic.month = 0;
    let err = cost::estimate(&design("all"), &small_users(), &traffic, &Prices::us_east_1()).unwrap_err();
    assert!(matches!(err, CostError::BadNumber { ref what, .. } if what == "month"), "{err:?}");
}

#[test]
fn a_design_provisioned_below_the_traffic_is_noted() {
    // 10 reads/s × 0.5 RRU = 5 RCU/s; / 0.70 → 8 RCU, more than the design's 5. GSI1 needs
    // its least, 1 and 1, which the design's capacity (set on each GSI too) covers.
    let mut d = design("all");
    d.table.billing = Billing::Provisioned { read: 5, write: 1 };
    let e = run(&d, &small_users(), "patterns: {get-user: {per_second: 10}}").unwrap();
    assert_note(&e, "the design provisions 5 RCU and 1 WCU for the table; this traffic needs 8 and 1");
    assert_eq!(e.notes.iter().filter(|n| n.starts_with("the design provisions")).count(), 1);
    d.table.billing = Billing::Provisioned { read: 8, write: 1 };
    let e = run(&d, &small_users(), "patterns: {get-user: {per_second: 10}}").unwrap();
    assert!(!e.notes.iter().any(|n| n.starts_with("the design provisions")), "{:?}", e.notes);
    // 2,628,000 puts a month copied to GSI1 at 3 WRU: 3 WCU/s; / 0.70 → 5 WCU on GSI1 (and
    // on the table), more than the design's 1.
    let e = run(&d, &wide_users(), "patterns: {put-user: {per_second: 1}}").unwrap();
    assert_note(&e, "the design provisions 8 RCU and 1 WCU for GSI1; this traffic needs 1 and 5");
}

#[test]
fn the_traffic_file_docs_cost_md_shows_parses() {
    let doc = include_str!("../../../docs/cost.md");
    let start = doc.find("```yaml\n").unwrap() + "```yaml\n".len();
    let example = &doc[start..start + doc[start..].find("```").unwrap()];
    let t = Traffic::parse(example).unwrap();
    assert_eq!(t.patterns["get-user"].per_second, Some(40.0));
    assert!(t.patterns["get-user"].consistent);
    assert_eq!(t.entities["User"].growth_per_month, 50_000.0);
    assert_eq!((t.provisioned.target_utilization_percent, t.provisioned.peak_factor), (70.0, 2.0));
}
