//! OnDemandThroughput and WarmThroughput on tables and GSIs, through the real SDK in process.
//!
//! Sources: the ack-api-quirks DynamoDB findings verified 2026-10-08/09 — DDB-TABLE-039
//! (CreateTable: maxima 0, -1, -2 are "outside of valid range"; warm 1/1 or 0/0 on an on-demand
//! table is "lower than initial throughput for OnDemand. See: <link>"; a read-only warm
//! throughput describes as 12001/4000 ACTIVE; PROVISIONED 10/10 with warm 5/5 is "lower than
//! ReadCapacityUnits of ProvisionedThroughput"), DDB-TABLE-059 (UpdateTable: maxima on a
//! PROVISIONED table "cannot be specified when the table BillingMode is PROVISIONED"),
//! DDB-TABLE-061 (an on-demand table's warm throughput is 12000/4000, a provisioned one's
//! its capacity), DDB-TABLE-155 (GSI: a decrease is refused "for index gsi1", the same value
//! accepted), the ValidationException catalogue (-1 clears a maximum on UpdateTable; an empty
//! GSI WarmThroughput names the index); ScyllaDB's test_gsi.py::test_gsi_create_table_response
//! (no WarmThroughput in a CreateTable response that did not ask for one).

mod common;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, GlobalSecondaryIndex, GlobalSecondaryIndexUpdate, KeySchemaElement,
    KeyType, OnDemandThroughput, Projection, ProjectionType, ProvisionedThroughput, ScalarAttributeType,
    UpdateGlobalSecondaryIndexAction, WarmThroughput,
};
use aws_sdk_dynamodb::Client;
use common::hash_table;

const INITIAL: &str = "See: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial";

fn on_demand(read: Option<i64>, write: Option<i64>) -> OnDemandThroughput {
    OnDemandThroughput::builder().set_max_read_request_units(read).set_max_write_request_units(write).build()
}

fn warm(read: Option<i64>, write: Option<i64>) -> WarmThroughput {
    WarmThroughput::builder().set_read_units_per_second(read).set_write_units_per_second(write).build()
}

fn invalid(detail: &str) -> (String, String) {
    ("ValidationException".into(), format!("One or more parameter values were invalid: {detail}"))
}

fn error(e: aws_sdk_dynamodb::Error) -> (String, String) {
    (e.code().unwrap_or_default().to_string(), e.message().unwrap_or_default().to_string())
}

fn gsi(warm_throughput: Option<WarmThroughput>) -> GlobalSecondaryIndex {
    GlobalSecondaryIndex::builder()
        .index_name("gsi1")
        .key_schema(KeySchemaElement::builder().attribute_name("g").key_type(KeyType::Hash).build().unwrap())
        .projection(Projection::builder().projection_type(ProjectionType::All).build())
        .set_warm_throughput(warm_throughput)
        .build()
        .unwrap()
}

fn g_attr() -> AttributeDefinition {
    AttributeDefinition::builder().attribute_name("g").attribute_type(ScalarAttributeType::S).build().unwrap()
}

async fn described_warm(client: &Client, table: &str) -> ((i64, i64, String), Option<(i64, i64, String)>) {
    let d = client.describe_table().table_name(table).send().await.unwrap();
    let t = d.table().unwrap();
    let w = t.warm_throughput().unwrap();
    let table_warm = (
        w.read_units_per_second().unwrap(),
        w.write_units_per_second().unwrap(),
        w.status().unwrap().as_str().to_string(),
    );
    let index_warm = t.global_secondary_indexes().first().and_then(|g| g.warm_throughput()).map(|w| {
        (
            w.read_units_per_second().unwrap(),
            w.write_units_per_second().unwrap(),
            w.status().unwrap().as_str().to_string(),
        )
    });
    (table_warm, index_warm)
}

/// A CreateTable case: its name, the settings sent and the error expected.
type CreateCase = (&'static str, Option<OnDemandThroughput>, Option<WarmThroughput>, (String, String));

#[tokio::test]
async fn create_table_refuses_bad_on_demand_maxima_and_low_warm_throughput() {
    let client = monotable_embedded::client();
    let outside = |m: &str| {
        invalid(&format!("Requested {m} for OnDemandThroughput for table is outside of valid range"))
    };
    let cases: Vec<CreateCase> = vec![
        ("maxima 0/0", Some(on_demand(Some(0), Some(0))), None, outside("MaxReadRequestUnits")),
        ("maxima -1/-1", Some(on_demand(Some(-1), Some(-1))), None, outside("MaxReadRequestUnits")),
        ("write maximum -2", Some(on_demand(None, Some(-2))), None, outside("MaxWriteRequestUnits")),
        (
            "warm 1/1",
            None,
            Some(warm(Some(1), Some(1))),
            invalid(&format!("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. {INITIAL}")),
        ),
        (
            "warm write 3999",
            None,
            Some(warm(None, Some(3999))),
            invalid(&format!("Requested WriteUnitsPerSecond for WarmThroughput for table is lower than initial throughput for OnDemand. {INITIAL}")),
        ),
    ];
    for (name, o, w, expected) in cases {
        let e = hash_table(&client, "tput")
            .set_on_demand_throughput(o)
            .set_warm_throughput(w)
            .send()
            .await
            .unwrap_err();
        assert_eq!(error(e.into()), expected, "{name}");
    }
    let provisioned = |client: &Client| {
        let capacity =
            ProvisionedThroughput::builder().read_capacity_units(10).write_capacity_units(10).build();
        hash_table(client, "tput")
            .billing_mode(BillingMode::Provisioned)
            .provisioned_throughput(capacity.unwrap())
    };
    let e = provisioned(&client).warm_throughput(warm(Some(5), Some(5))).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        invalid("Requested ReadUnitsPerSecond for WarmThroughput for table is lower than ReadCapacityUnits of ProvisionedThroughput")
    );
    let e = provisioned(&client).on_demand_throughput(on_demand(Some(100), None)).send().await.unwrap_err();
    assert_eq!(
        error(e.into()),
        invalid("MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED")
    );
    assert!(client.list_tables().send().await.unwrap().table_names().is_empty());
}

#[tokio::test]
async fn warm_throughput_is_described_with_defaults_and_what_was_asked() {
    let client = monotable_embedded::client();
    // Nothing asked: the CreateTable response has no WarmThroughput, DescribeTable has the
    // on-demand initial values for the table and the GSI.
    let out = hash_table(&client, "plain")
        .attribute_definitions(g_attr())
        .global_secondary_indexes(gsi(None))
        .send()
        .await
        .unwrap();
    let created = out.table_description().unwrap();
    assert!(created.warm_throughput().is_none());
    assert!(created.global_secondary_indexes()[0].warm_throughput().is_none());
    let active = "ACTIVE".to_string();
    assert_eq!(
        described_warm(&client, "plain").await,
        ((12000, 4000, active.clone()), Some((12000, 4000, active.clone())))
    );

    // One member asked: the other keeps its default; the response echoes it.
    let out = hash_table(&client, "warm")
        .attribute_definitions(g_attr())
        .global_secondary_indexes(gsi(Some(warm(None, Some(5000)))))
        .warm_throughput(warm(Some(12001), None))
        .on_demand_throughput(on_demand(Some(100), None))
        .send()
        .await
        .unwrap();
    let w = out.table_description().unwrap().warm_throughput().unwrap();
    assert_eq!((w.read_units_per_second(), w.write_units_per_second()), (Some(12001), Some(4000)));
    assert_eq!(
        described_warm(&client, "warm").await,
        ((12001, 4000, active.clone()), Some((12000, 5000, active.clone())))
    );
    let d = client.describe_table().table_name("warm").send().await.unwrap();
    let o = d.table().unwrap().on_demand_throughput().unwrap();
    assert_eq!((o.max_read_request_units(), o.max_write_request_units()), (Some(100), None));

    // A provisioned table's warm throughput is its capacity.
    hash_table(&client, "prov")
        .billing_mode(BillingMode::Provisioned)
        .provisioned_throughput(
            ProvisionedThroughput::builder().read_capacity_units(3).write_capacity_units(2).build().unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(described_warm(&client, "prov").await.0, (3, 2, active));
}

/// What an UpdateTable answered: success or the error's code and message.
type Outcome = Result<(), (String, String)>;

/// Sends an UpdateTable of table `tput` built by `build` and returns its outcome.
async fn update(
    client: &Client,
    build: impl FnOnce(
        aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
    ) -> aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
) -> Outcome {
    build(client.update_table().table_name("tput")).send().await.map(|_| ()).map_err(|e| error(e.into()))
}

fn index_warm_update(w: WarmThroughput) -> GlobalSecondaryIndexUpdate {
    let action = UpdateGlobalSecondaryIndexAction::builder().index_name("gsi1").warm_throughput(w).build();
    GlobalSecondaryIndexUpdate::builder().update(action.unwrap()).build()
}

#[tokio::test]
async fn update_table_raises_warm_throughput_and_never_lowers_it() {
    let client = monotable_embedded::client();
    let create =
        hash_table(&client, "tput").attribute_definitions(g_attr()).global_secondary_indexes(gsi(None));
    create.send().await.unwrap();
    let decrease = |target: &str| {
        invalid(&format!("Requested ReadUnitsPerSecond for WarmThroughput for {target} is lower than current WarmThroughput, decreasing WarmThroughput is not supported"))
    };
    // WarmThroughput alone is an update ("At least one of ..." does not apply).
    let steps: Vec<(WarmThroughput, bool, Outcome)> = vec![
        (warm(Some(12001), Some(4001)), false, Ok(())),
        (warm(Some(12001), None), false, Ok(())),
        (warm(Some(12000), None), false, Err(decrease("table"))),
        (warm(Some(100), Some(100)), true, Err(decrease("index gsi1"))),
        (
            warm(None, None),
            true,
            Err(invalid("WarmThroughput must have at least one of ReadUnitsPerSecond or WriteUnitsPerSecond specified for index: gsi1")),
        ),
        (warm(Some(12000), Some(4000)), true, Ok(())),
        (warm(Some(13000), None), true, Ok(())),
    ];
    for (w, on_index, expected) in steps {
        let got = match on_index {
            true => update(&client, |u| u.global_secondary_index_updates(index_warm_update(w.clone()))).await,
            false => update(&client, |u| u.warm_throughput(w.clone())).await,
        };
        assert_eq!(got, expected, "{w:?} on index: {on_index}");
    }
    let active = "ACTIVE".to_string();
    assert_eq!(
        described_warm(&client, "tput").await,
        ((12001, 4001, active.clone()), Some((13000, 4000, active)))
    );
}

#[tokio::test]
async fn update_table_sets_and_clears_on_demand_maxima() {
    let client = monotable_embedded::client();
    hash_table(&client, "tput").send().await.unwrap();
    let maxima = |client: Client| async move {
        let d = client.describe_table().table_name("tput").send().await.unwrap();
        d.table()
            .unwrap()
            .on_demand_throughput()
            .map(|o| (o.max_read_request_units(), o.max_write_request_units()))
    };
    update(&client, |u| u.on_demand_throughput(on_demand(Some(50), Some(60)))).await.unwrap();
    assert_eq!(maxima(client.clone()).await, Some((Some(50), Some(60))));
    // -1 removes a maximum on UpdateTable.
    update(&client, |u| u.on_demand_throughput(on_demand(Some(-1), None))).await.unwrap();
    assert_eq!(maxima(client.clone()).await, Some((None, Some(60))));
    assert_eq!(
        update(&client, |u| u.on_demand_throughput(on_demand(Some(0), None))).await,
        Err(invalid(
            "Requested MaxReadRequestUnits for OnDemandThroughput for table is outside of valid range"
        ))
    );
    // After a switch to PROVISIONED there are no maxima, and none may be given.
    let capacity =
        ProvisionedThroughput::builder().read_capacity_units(1).write_capacity_units(1).build().unwrap();
    update(&client, |u| u.billing_mode(BillingMode::Provisioned).provisioned_throughput(capacity))
        .await
        .unwrap();
    assert_eq!(maxima(client.clone()).await, None);
    assert_eq!(
        update(&client, |u| u.on_demand_throughput(on_demand(Some(100), Some(100)))).await,
        Err(invalid("MaxReadRequestUnits for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED"))
    );
}

#[tokio::test]
async fn a_gsi_added_by_update_table_checks_and_keeps_its_warm_throughput() {
    // The CreateTable rules for an index (ValidationException catalogue: "also 'for index
    // <IDX>'") apply to a GSI created by UpdateTable.
    let client = monotable_embedded::client();
    hash_table(&client, "tput").send().await.unwrap();
    let create = |w: WarmThroughput| {
        let action = aws_sdk_dynamodb::types::CreateGlobalSecondaryIndexAction::builder()
            .index_name("gsi1")
            .key_schema(
                KeySchemaElement::builder().attribute_name("g").key_type(KeyType::Hash).build().unwrap(),
            )
            .projection(Projection::builder().projection_type(ProjectionType::All).build())
            .warm_throughput(w)
            .build()
            .unwrap();
        GlobalSecondaryIndexUpdate::builder().create(action).build()
    };
    assert_eq!(
        update(&client, |u| u.attribute_definitions(g_attr()).global_secondary_index_updates(create(warm(Some(100), None)))).await,
        Err(invalid(&format!("Requested ReadUnitsPerSecond for WarmThroughput for index gsi1 is lower than initial throughput for OnDemand. {INITIAL}")))
    );
    update(&client, |u| {
        u.attribute_definitions(g_attr()).global_secondary_index_updates(create(warm(Some(15000), None)))
    })
    .await
    .unwrap();
    let active = "ACTIVE".to_string();
    assert_eq!(
        described_warm(&client, "tput").await,
        ((12000, 4000, active.clone()), Some((15000, 4000, active)))
    );
}
