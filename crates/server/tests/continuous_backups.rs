//! UpdateContinuousBackups / DescribeContinuousBackups through the real SDK in process.
//!
//! Sources: API reference API_UpdateContinuousBackups, API_PointInTimeRecoverySpecification
//! (RecoveryPeriodInDays "Valid Range: Minimum value of 1. Maximum value of 35"); the
//! ack-api-quirks DynamoDB findings verified 2026-10-08/09: DDB-TABLE-083 (a disabled
//! description is only {PointInTimeRecoveryStatus: DISABLED}; ContinuousBackupsStatus settles
//! at ENABLED), DDB-TABLE-084 (the period defaults to 35, is kept while enabled, forgotten on
//! disable; "Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time
//! recovery."; 36 is a constraint error), DDB-TABLE-098 ("Table not found: <name>",
//! TableNotFoundException).

mod common;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::PointInTimeRecoveryDescription;
use aws_sdk_dynamodb::types::{PointInTimeRecoverySpecification, PointInTimeRecoveryStatus};
use aws_sdk_dynamodb::Client;
use common::hash_table;

async fn client_with_table() -> Client {
    let client = monotable_embedded::client();
    hash_table(&client, "kept").send().await.expect("create table");
    client
}

fn spec(enabled: bool, days: Option<i32>) -> PointInTimeRecoverySpecification {
    PointInTimeRecoverySpecification::builder()
        .point_in_time_recovery_enabled(enabled)
        .set_recovery_period_in_days(days)
        .build()
        .unwrap()
}

async fn update(client: &Client, enabled: bool, days: Option<i32>) -> Result<(), (String, String)> {
    client
        .update_continuous_backups()
        .table_name("kept")
        .point_in_time_recovery_specification(spec(enabled, days))
        .send()
        .await
        .map(|_| ())
        .map_err(|e| {
            let e = e.into_service_error();
            (e.code().unwrap_or_default().to_string(), e.message().unwrap_or_default().to_string())
        })
}

async fn described(client: &Client, table: &str) -> PointInTimeRecoveryDescription {
    let out = client.describe_continuous_backups().table_name(table).send().await.expect("describe");
    let d = out.continuous_backups_description().expect("description");
    assert_eq!(d.continuous_backups_status().as_str(), "ENABLED");
    d.point_in_time_recovery_description().expect("pitr description").clone()
}

fn assert_missing_table(e: aws_sdk_dynamodb::Error) {
    assert_eq!(e.code(), Some("TableNotFoundException"));
    assert_eq!(e.message(), Some("Table not found: missing"));
}

#[tokio::test]
async fn a_new_table_has_recovery_disabled_and_nothing_else_described() {
    let client = client_with_table().await;
    let p = described(&client, "kept").await;
    assert_eq!(p.point_in_time_recovery_status(), Some(&PointInTimeRecoveryStatus::Disabled));
    assert_eq!(p.recovery_period_in_days(), None);
    assert!(p.earliest_restorable_date_time().is_none() && p.latest_restorable_date_time().is_none());
}

#[tokio::test]
async fn enabling_describes_the_window_and_the_period_defaults_to_35_days() {
    let client = client_with_table().await;
    let out = client
        .update_continuous_backups()
        .table_name("arn:aws:dynamodb:us-east-1:000000000000:table/kept")
        .point_in_time_recovery_specification(spec(true, None))
        .send()
        .await
        .unwrap();
    let p = out.continuous_backups_description().unwrap().point_in_time_recovery_description().unwrap();
    assert_eq!(p.point_in_time_recovery_status(), Some(&PointInTimeRecoveryStatus::Enabled));
    assert_eq!(p.recovery_period_in_days(), Some(35));
    let (earliest, latest) =
        (p.earliest_restorable_date_time().unwrap(), p.latest_restorable_date_time().unwrap());
    assert!(earliest.secs() <= latest.secs());
    // The period changes in place and survives an enable without one.
    update(&client, true, Some(7)).await.unwrap();
    update(&client, true, None).await.unwrap();
    let p = described(&client, "kept").await;
    assert_eq!(p.recovery_period_in_days(), Some(7));
    assert_eq!(p.earliest_restorable_date_time(), Some(earliest));
    // Disabling forgets it: a later enable is back to 35.
    update(&client, false, None).await.unwrap();
    update(&client, true, None).await.unwrap();
    let p = described(&client, "kept").await;
    assert_eq!(p.recovery_period_in_days(), Some(35));
}

#[tokio::test]
async fn bad_settings_and_missing_tables_are_refused_with_dynamodbs_texts() {
    let client = client_with_table().await;
    let validation = |m: &str| ("ValidationException".to_string(), m.to_string());
    for (enabled, days, expected) in [
        (true, Some(36), validation("1 validation error detected: Value '36' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value less than or equal to 35")),
        (true, Some(0), validation("1 validation error detected: Value '0' at 'pointInTimeRecoverySpecification.recoveryPeriodInDays' failed to satisfy constraint: Member must have value greater than or equal to 1")),
        (false, Some(7), validation("Invalid Request: Cannot specify RecoveryPeriodInDays when disabling point-in-time recovery.")),
    ] {
        assert_eq!(update(&client, enabled, days).await.unwrap_err(), expected, "{enabled} {days:?}");
    }
    assert_missing_table(
        client.describe_continuous_backups().table_name("missing").send().await.unwrap_err().into(),
    );
    let update = client.update_continuous_backups().table_name("missing");
    assert_missing_table(
        update.point_in_time_recovery_specification(spec(true, None)).send().await.unwrap_err().into(),
    );
}
