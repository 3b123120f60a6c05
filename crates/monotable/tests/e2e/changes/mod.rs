//! Change streams through the real SDKs: writes by `Repository` (aws-sdk-dynamodb), records
//! read by `ChangeConsumer` (aws-sdk-dynamodbstreams), each scenario once against the embedded
//! engine in process and once against `monotable_server` over TCP on 127.0.0.1.

mod setup;

mod checkpoint;
mod errors;
mod lambda;
mod views;

/// Runs the scenario `async fn $name(Backend)` as two tests, `$name::in_process` and
/// `$name::over_tcp`.
macro_rules! both {
    ($name:ident) => {
        mod $name {
            #[tokio::test]
            async fn in_process() {
                super::$name(crate::changes::setup::Backend::InProcess).await
            }
            #[tokio::test]
            async fn over_tcp() {
                super::$name(crate::changes::setup::Backend::Tcp).await
            }
        }
    };
}
pub(crate) use both;
