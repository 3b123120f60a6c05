//! `monotable console`: the web console for any DynamoDB endpoint, and the `/console` mount
//! that `monotable serve` adds to its own port.
//!
//! The console reaches its endpoint only through `aws_sdk_dynamodb::Client`. For `serve` that
//! client is the in-process one (`monotable-embedded`) over the served engine; for
//! `monotable console --endpoint URL` it is the SDK client of [`crate::endpoint`]: the standard
//! AWS configuration chain (environment, profile, SSO, instance role), so real DynamoDB works as
//! is, and placeholder credentials for a local endpoint.

use std::path::{Path, PathBuf};

use anyhow::Context;
use monotable_console::{Access, Console, Options};
use monotable_design::Design;
use monotable_engine::Engine;
use monotable_server::{Auth, Mount, Service};
use tokio::net::TcpListener;

/// Arguments of `monotable console`.
#[derive(Debug, clap::Args)]
pub struct ConsoleArgs {
    /// The DynamoDB endpoint to browse (omit, or `aws`, for Amazon DynamoDB in the region of
    /// the AWS configuration, `AWS_REGION`).
    #[arg(long, value_name = "URL")]
    endpoint: Option<String>,
    /// Allow writes: editing and deleting items, creating and deleting tables, importing.
    #[arg(long)]
    writable: bool,
    /// A design document (YAML or JSON) for the single-table views.
    #[arg(long, value_name = "FILE")]
    design: Option<PathBuf>,
    /// Address to listen on. A non-loopback address serves the console to the network.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, short, default_value_t = 8001)]
    port: u16,
}

/// Whether `monotable serve` mounts the console at `/console`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ConsoleMode {
    /// Mount it when the server listens on a loopback address.
    Auto,
    /// Mount it on any address.
    On,
    /// Never mount it.
    Off,
}

/// Reads a design document for the console.
pub fn read_design(path: &Path) -> anyhow::Result<Design> {
    let text = std::fs::read_to_string(path).with_context(|| format!("could not read {}", path.display()))?;
    Design::parse(&text).with_context(|| format!("{} is not a design document", path.display()))
}

fn is_loopback(host: &str) -> bool {
    monotable_server::is_loopback_host(host)
}

/// The `/console` mount for `monotable serve`, or `None` when `mode` and `host` say no. The
/// console always writes (a local engine is the developer's own); under `--auth verify` it
/// asks for one of the server's key pairs and signs the session's calls with it, so the
/// protocol's own signature check decides.
pub fn mount(
    mode: ConsoleMode,
    host: &str,
    engine: &Engine,
    auth: &Auth,
    design: Option<Design>,
) -> Option<Mount> {
    let loopback = is_loopback(host);
    if mode == ConsoleMode::Off || (mode == ConsoleMode::Auto && !loopback) {
        return None;
    }
    let service = Service::new(engine.clone()).with_auth(auth.clone());
    let access = match auth {
        Auth::Verify(_) => Access::Login(std::sync::Arc::new(move |id: &str, secret: &str| {
            let credentials =
                aws_credential_types::Credentials::new(id, secret, None, None, "monotable-console");
            aws_sdk_dynamodb::Client::from_conf(
                monotable_embedded::config_builder(service.clone()).credentials_provider(credentials).build(),
            )
        })),
        _ => Access::Open(monotable_embedded::client_for_service(service)),
    };
    let options =
        Options { writable: true, design, loopback_only: loopback, label: "monotable serve".into() };
    let console = Console::new(access, options);
    // Off the worker: the console's engine calls run where they are polled (see
    // `Console::handle_off_worker`).
    Some(Mount::new(monotable_console::PREFIX, move |parts, body| {
        let console = console.clone();
        Box::pin(async move { console.handle_off_worker(parts, body).await })
    }))
}

pub fn run(args: ConsoleArgs) -> anyhow::Result<()> {
    crate::serve::init_logging();
    let design = args.design.as_deref().map(read_design).transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async move {
        // The client every `--endpoint` gets (crate::endpoint): the standard AWS chain,
        // us-east-1 by default, placeholder credentials for a loopback endpoint without any.
        let endpoint = args.endpoint.as_deref().unwrap_or(crate::endpoint::AWS);
        let client = crate::endpoint::client(endpoint, crate::endpoint::Retries::Standard).await;
        let label = match &args.endpoint {
            Some(url) => url.clone(),
            None => {
                format!("DynamoDB {}", client.config().region().map(ToString::to_string).unwrap_or_default())
            }
        };
        let options =
            Options { writable: args.writable, design, loopback_only: is_loopback(&args.host), label };
        let console = Console::new(Access::Open(client), options);
        let listener = TcpListener::bind((args.host.as_str(), args.port))
            .await
            .with_context(|| format!("could not listen on {}:{}", args.host, args.port))?;
        let address = listener.local_addr()?;
        // Installed before the banner (see `serve::shutdown_signal`).
        let shutdown = crate::serve::shutdown_signal();
        println!(
            "monotable console on http://{address}/console/ ({}) for {}\nStop with Ctrl-C.",
            if args.writable { "writable" } else { "read-only" },
            args.endpoint.as_deref().unwrap_or("the AWS default endpoint")
        );
        monotable_console::serve(listener, console, shutdown).await?;
        anyhow::Ok(())
    })
}
