//! A table with a stream on one engine, reached in process or over TCP, with a repository
//! scope and a collector handler.

use std::convert::Infallible;

use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
use monotable::changes::{ChangeConsumer, ChangeRecord, ConsumerBuilder, Handler};
use monotable::embedded::Engine;
use monotable::{Conventions, Scope, Table};
use tokio::sync::oneshot;

use crate::common::{base_builder, caller, create_table, register, unique_name, OrgItem};

#[derive(Debug, Clone, Copy)]
pub enum Backend {
    /// `monotable::embedded` clients of one engine: no socket.
    InProcess,
    /// `monotable_server::serve` on 127.0.0.1:0, SDK clients over HTTP.
    Tcp,
}

pub struct Env {
    pub table: Table,
    pub streams: aws_sdk_dynamodbstreams::Client,
    pub engine: Engine,
    /// Dropping it stops the TCP server.
    _stop: Option<oneshot::Sender<()>>,
}

impl Env {
    /// The `org-1` scope of caller `alice`.
    pub fn scope(&self) -> Scope {
        caller("alice", &["org-1"], &[]).org("org-1").expect("org scope")
    }

    pub fn consumer(&self) -> ConsumerBuilder<OrgItem> {
        ChangeConsumer::<OrgItem>::builder(&self.table, self.streams.clone())
    }

    /// The raw DynamoDB client of the table (for items written without the library).
    pub fn client(&self) -> &aws_sdk_dynamodb::Client {
        self.table.client()
    }
}

fn streams_config(endpoint: &str) -> aws_sdk_dynamodbstreams::config::Builder {
    aws_sdk_dynamodbstreams::Config::builder()
        .behavior_version(aws_sdk_dynamodbstreams::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodbstreams::config::Region::from_static("us-east-1"))
        .credentials_provider(aws_credential_types::Credentials::new("k", "s", None, None, "test"))
        .endpoint_url(endpoint)
}

/// A fresh table (every test entity registered, lower conventions) whose stream has `view`,
/// or no stream.
pub async fn env(backend: Backend, view: Option<StreamViewType>) -> Env {
    let engine = Engine::new();
    let (client, streams, stop) = match backend {
        Backend::InProcess => (
            monotable::embedded::client_for(engine.clone()),
            monotable::embedded::streams_client_for(engine.clone()),
            None,
        ),
        Backend::Tcp => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let endpoint = format!("http://{}", listener.local_addr().expect("addr"));
            let (stop, stopped) = oneshot::channel::<()>();
            tokio::spawn(monotable_server::serve(
                listener,
                monotable_server::Service::new(engine.clone()),
                async {
                    let _ = stopped.await;
                },
            ));
            let db = aws_sdk_dynamodb::Config::builder()
                .behavior_version_latest()
                .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
                .credentials_provider(aws_sdk_dynamodb::config::Credentials::new(
                    "k", "s", None, None, "test",
                ))
                .endpoint_url(&endpoint)
                .build();
            let streams = aws_sdk_dynamodbstreams::Client::from_conf(streams_config(&endpoint).build());
            (aws_sdk_dynamodb::Client::from_conf(db), streams, Some(stop))
        }
    };
    let conv = Conventions::lower();
    let name = unique_name("mt-changes");
    create_table(&client, &conv, &name, 2).await;
    if let Some(view) = view {
        client
            .update_table()
            .table_name(&name)
            .stream_specification(
                StreamSpecification::builder()
                    .stream_enabled(true)
                    .stream_view_type(view)
                    .build()
                    .expect("spec"),
            )
            .send()
            .await
            .expect("enable the stream");
    }
    let table = register(base_builder(client, conv, &name)).build().await.expect("table");
    Env { table, streams, engine, _stop: stop }
}

/// The streams client of `env` with an interceptor added (same endpoint, same engine).
pub fn streams_with(
    env: &Env,
    interceptor: impl aws_sdk_dynamodbstreams::config::Intercept + 'static,
) -> aws_sdk_dynamodbstreams::Client {
    let conf = env.streams.config().to_builder().interceptor(interceptor).build();
    aws_sdk_dynamodbstreams::Client::from_conf(conf)
}

/// A handler that keeps every record it is given.
#[derive(Default)]
pub struct Collect(pub Vec<ChangeRecord<OrgItem>>);

impl Handler<OrgItem> for Collect {
    type Error = Infallible;
    async fn handle(&mut self, change: &ChangeRecord<OrgItem>) -> Result<(), Infallible> {
        self.0.push(change.clone());
        Ok(())
    }
}
