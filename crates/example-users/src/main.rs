//! Runs the users example and prints what it saw: on the embedded engine, or on the
//! DynamoDB-compatible endpoint named by `MONOTABLE_TEST_ENDPOINT` (how `.ci/peers` runs the
//! examples against servers this project did not write; switching is configuration only, S21).

use monotable::dynamodb::config::{Credentials, Region};

fn client() -> monotable::dynamodb::Client {
    match std::env::var("MONOTABLE_TEST_ENDPOINT") {
        Ok(endpoint) if !endpoint.is_empty() => {
            let conf = monotable::dynamodb::Config::builder()
                .behavior_version_latest()
                .endpoint_url(endpoint)
                .region(Region::new("us-east-1"))
                .credentials_provider(Credentials::new("test", "test", None, None, "example"))
                .build();
            monotable::dynamodb::Client::from_conf(conf)
        }
        _ => monotable::embedded::client(),
    }
}

#[tokio::main]
async fn main() -> Result<(), monotable::Error> {
    let report = monotable_example_users::run(client()).await?;
    println!("{report:#?}");
    Ok(())
}
