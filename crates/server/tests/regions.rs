//! Tables live in a region of an account. Sources: the developer guide's "Identity and access
//! management" resource ARNs (`arn:${Partition}:dynamodb:${Region}:${Account}:table/${TableName}`:
//! a table belongs to one region of one account) and "DynamoDB local usage notes" ("If you use
//! the -sharedDb option, DynamoDB creates a single database file ... Every program that connects
//! to DynamoDB accesses this file"; without it the database is chosen by the access key id and
//! region of the application's configuration).

mod common;

use aws_sdk_dynamodb::config::Region;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
use aws_sdk_dynamodb::Client;
use common::TestServer;
use monotable_engine::{Engine, Location};
use monotable_server::{Auth, Credentials, Service, MAX_LOCATIONS};

fn per_region() -> Service {
    Service::per_location(Engine::new(), |location| Ok(Engine::new_at(location.clone())))
}

fn client_in(service: &Service, region: &'static str) -> Client {
    let config =
        monotable_embedded::config_builder(service.clone()).region(Region::from_static(region)).build();
    Client::from_conf(config)
}

async fn create(client: &Client, name: &str) -> String {
    let stream = StreamSpecification::builder()
        .stream_enabled(true)
        .stream_view_type(StreamViewType::KeysOnly)
        .build();
    let out =
        common::hash_table(client, name).stream_specification(stream.unwrap()).send().await.expect("create");
    out.table_description().and_then(|d| d.table_arn()).expect("an ARN").to_owned()
}

async fn names(client: &Client) -> Vec<String> {
    client.list_tables().send().await.expect("list tables").table_names().to_vec()
}

#[tokio::test]
async fn each_region_has_tables_of_its_own_whose_arns_name_it() {
    let service = per_region();
    let (east1, east2) = (client_in(&service, "us-east-1"), client_in(&service, "us-east-2"));
    let arn = create(&east2, "Orders").await;
    assert_eq!(arn, "arn:aws:dynamodb:us-east-2:000000000000:table/Orders");
    assert_eq!(names(&east2).await, ["Orders"]);
    assert!(names(&east1).await.is_empty(), "a table of us-east-2 is not in us-east-1");
    let err = east1.describe_table().table_name("Orders").send().await.expect_err("no such table here");
    assert_eq!(err.into_service_error().code(), Some("ResourceNotFoundException"));

    // The same name in another region is another table.
    assert_eq!(create(&east1, "Orders").await, "arn:aws:dynamodb:us-east-1:000000000000:table/Orders");
    east1.delete_table().table_name("Orders").send().await.expect("delete in us-east-1");
    assert_eq!(names(&east2).await, ["Orders"], "deleting in us-east-1 leaves us-east-2's table");
}

#[tokio::test]
async fn a_shared_service_answers_every_region_from_one_database() {
    let service = Service::new(Engine::new());
    create(&client_in(&service, "eu-west-1"), "Shared").await;
    assert_eq!(names(&client_in(&service, "ap-south-1")).await, ["Shared"]);
    assert_eq!(names(&client_in(&service, "local")).await, ["Shared"]);
}

#[tokio::test]
async fn streams_of_another_region_carry_its_name() {
    let service = per_region();
    let client = client_in(&service, "eu-central-1");
    create(&client, "Events").await;
    let described = client.describe_table().table_name("Events").send().await.unwrap();
    let stream_arn = described.table().and_then(|t| t.latest_stream_arn()).unwrap().to_owned();
    assert!(
        stream_arn.starts_with("arn:aws:dynamodb:eu-central-1:000000000000:table/Events/stream/"),
        "{stream_arn}"
    );
    client
        .put_item()
        .table_name("Events")
        .item("pk", aws_sdk_dynamodb::types::AttributeValue::S("a".into()))
        .send()
        .await
        .unwrap();

    let streams_config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodbstreams::config::Region::from_static("eu-central-1"))
        .credentials_provider(aws_credential_types::Credentials::new("k", "s", None, None, "test"))
        .endpoint_url(monotable_embedded::ENDPOINT)
        .http_client(monotable_embedded::EmbeddedHttpClient::new(service.clone()))
        .build();
    let streams = aws_sdk_dynamodbstreams::Client::from_conf(streams_config);
    let shard = streams.describe_stream().stream_arn(&stream_arn).send().await.unwrap();
    let shard_id = shard.stream_description().unwrap().shards()[0].shard_id().unwrap().to_owned();
    let iterator = streams
        .get_shard_iterator()
        .stream_arn(&stream_arn)
        .shard_id(shard_id)
        .shard_iterator_type(aws_sdk_dynamodbstreams::types::ShardIteratorType::TrimHorizon)
        .send()
        .await
        .unwrap();
    let records =
        streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
    assert_eq!(records.records().len(), 1);
    assert_eq!(records.records()[0].aws_region(), Some("eu-central-1"));
}

#[tokio::test]
async fn under_verification_each_key_sees_its_own_accounts_tables() {
    let credentials =
        Credentials::parse("AKIDONE:one-secret:111111111111,AKIDTWO:two-secret:222222222222").unwrap();
    let service = per_region().with_auth(Auth::Verify(credentials));
    let server = TestServer::start(service).await;
    let one = common::sdk_client(&server.endpoint(), "AKIDONE", "one-secret");
    let two = common::sdk_client(&server.endpoint(), "AKIDTWO", "two-secret");
    assert_eq!(create(&one, "Ledger").await, "arn:aws:dynamodb:us-east-1:111111111111:table/Ledger");
    assert!(names(&two).await.is_empty(), "another account's table is not listed");
    assert_eq!(create(&two, "Ledger").await, "arn:aws:dynamodb:us-east-1:222222222222:table/Ledger");
    // Tagging names the account: the other account's ARN is refused.
    let err = two
        .list_tags_of_resource()
        .resource_arn("arn:aws:dynamodb:us-east-1:111111111111:table/Ledger")
        .send()
        .await
        .expect_err("another account's table");
    assert_eq!(err.into_service_error().code(), Some("AccessDeniedException"));
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_client_cannot_open_regions_without_bound() {
    let service = per_region();
    let mut refused = None;
    for i in 0..MAX_LOCATIONS + 1 {
        let region: &'static str = Box::leak(format!("test-region-{i}").into_boxed_str());
        match client_in(&service, region).list_tables().send().await {
            Ok(_) => {}
            Err(e) => {
                refused = Some((i, e.into_service_error()));
                break;
            }
        }
    }
    let (at, err) = refused.expect("a location past the limit is refused");
    assert_eq!(at, MAX_LOCATIONS - 1, "the home location counts as one");
    assert_eq!(err.code(), Some("LimitExceededException"));
    assert!(err.message().unwrap_or_default().contains("--shared-db"), "{:?}", err.message());
    // Locations already open keep working.
    client_in(&service, "test-region-0").list_tables().send().await.expect("an open location still answers");
}

#[test]
fn the_home_engine_is_the_services_own() {
    let service = Service::per_location(Engine::new_at(Location::region("eu-west-3")), |l| {
        Ok(Engine::new_at(l.clone()))
    });
    assert_eq!(service.engine().location().region_name(), "eu-west-3");
}
