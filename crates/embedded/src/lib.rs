//! An [`aws_sdk_dynamodb::Client`] that runs on an in-process monotable engine: no socket, no
//! port, no server task.
//!
//! The SDK builds, signs and sends its request exactly as it would to DynamoDB; the
//! [`EmbeddedHttpClient`] connector hands the request (head and body bytes) to the same
//! [`monotable_server::Service::handle`] the TCP server uses and gives the SDK the response.
//! Code written against `aws-sdk-dynamodb` therefore runs on the embedded engine unchanged,
//! errors included (a failed condition arrives as the SDK's typed
//! `ConditionalCheckFailedException`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), aws_sdk_dynamodb::Error> {
//! let client = monotable_embedded::client(); // a fresh, private in-memory database
//! let tables = client.list_tables().send().await?;
//! assert!(tables.table_names().is_empty());
//! # Ok(()) }
//! ```
//!
//! Each [`client`] call creates its own database. To share one, create an
//! [`Engine`] and pass clones of it to [`client_for`]. A client signs its requests for its
//! engine's region ([`Engine::location`]: `us-east-1` unless the engine was made with
//! [`Engine::new_at`]), so ARNs and stream records name that region. The SDK
//! needs a tokio runtime (for its timers), as it does against a real endpoint.

mod connector;

pub use connector::EmbeddedHttpClient;
pub use monotable_engine::{Engine, Location};

use aws_credential_types::Credentials;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::{Client, Config};
use monotable_server::Service;

/// The endpoint the embedded client's requests are addressed to. Nothing listens there; the
/// connector never opens a socket.
pub const ENDPOINT: &str = "http://embedded.monotable.invalid";

/// A client over a fresh in-memory engine that no other client sees.
pub fn client() -> Client {
    client_for(Engine::new())
}

/// A client over `engine`. Clients built from clones of one engine share its tables.
pub fn client_for(engine: Engine) -> Client {
    client_for_service(Service::new(engine))
}

/// A client over a configured protocol [`Service`] (for example one that verifies
/// signatures).
pub fn client_for_service(service: Service) -> Client {
    Client::from_conf(config_builder(service).build())
}

/// A DynamoDB Streams client over `engine`: the same in-process [`Service`] answers the
/// `DynamoDBStreams_20120810.*` operations, so records of the tables that [`client_for`]
/// clients of the same engine write are read as a Lambda trigger or a KCL consumer reads them.
pub fn streams_client_for(engine: Engine) -> aws_sdk_dynamodbstreams::Client {
    streams_client_for_service(Service::new(engine))
}

/// A DynamoDB Streams client over a fresh engine of its own (whose tables only it sees; use
/// [`streams_client_for`] to read the streams of another client's tables).
pub fn streams_client() -> aws_sdk_dynamodbstreams::Client {
    streams_client_for(Engine::new())
}

/// A DynamoDB Streams client over a configured protocol [`Service`].
pub fn streams_client_for_service(service: Service) -> aws_sdk_dynamodbstreams::Client {
    use aws_sdk_dynamodbstreams::config::{BehaviorVersion, Region};
    let region = Region::new(service.engine().location().region_name().to_owned());
    let config = aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region)
        .credentials_provider(Credentials::new("monotable", "monotable", None, None, "monotable-embedded"))
        .endpoint_url(ENDPOINT)
        .http_client(EmbeddedHttpClient::new(service))
        .build();
    aws_sdk_dynamodbstreams::Client::from_conf(config)
}

/// The SDK configuration [`client_for_service`] uses, for callers that want to change
/// something (retry policy, interceptors, region) before building a client. It carries
/// fixed dummy credentials, the region of the service's engine and the connector.
pub fn config_builder(service: Service) -> aws_sdk_dynamodb::config::Builder {
    let region = Region::new(service.engine().location().region_name().to_owned());
    Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(region)
        .credentials_provider(Credentials::new("monotable", "monotable", None, None, "monotable-embedded"))
        .endpoint_url(ENDPOINT)
        .http_client(EmbeddedHttpClient::new(service))
}
