//! Continuous backups (point-in-time recovery): UpdateContinuousBackups,
//! DescribeContinuousBackups.

shape! {
    /// Point-in-time recovery settings of an UpdateContinuousBackups request.
    pub struct PointInTimeRecoverySpecification { point_in_time_recovery_enabled: bool, recovery_period_in_days: i64 }
}
shape! {
    /// Point-in-time recovery as described back.
    pub struct PointInTimeRecoveryDescription {
        point_in_time_recovery_status: String,
        recovery_period_in_days: i64,
        earliest_restorable_date_time: f64,
        latest_restorable_date_time: f64,
    }
}
shape! {
    /// The continuous-backup state of a table.
    pub struct ContinuousBackupsDescription {
        continuous_backups_status: String,
        point_in_time_recovery_description: PointInTimeRecoveryDescription,
    }
}
shape! {
    /// UpdateContinuousBackups request.
    pub struct UpdateContinuousBackupsInput {
        table_name: String,
        point_in_time_recovery_specification: PointInTimeRecoverySpecification,
    }
}
shape! {
    /// UpdateContinuousBackups response.
    pub struct UpdateContinuousBackupsOutput { continuous_backups_description: ContinuousBackupsDescription }
}
shape! {
    /// DescribeContinuousBackups request.
    pub struct DescribeContinuousBackupsInput { table_name: String }
}
shape! {
    /// DescribeContinuousBackups response.
    pub struct DescribeContinuousBackupsOutput { continuous_backups_description: ContinuousBackupsDescription }
}
