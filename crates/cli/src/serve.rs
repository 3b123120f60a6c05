//! `monotable serve`: the DynamoDB JSON protocol on a local endpoint.
//!
//! Storage is in memory by default, or durable in `--data-dir DIR` (`monotable-store`, see
//! docs/STORAGE.md). Expired TTL items are swept in the background either way. The endpoint
//! and an aws CLI example are printed on stdout as soon as the socket is bound; logs go to
//! stderr (`RUST_LOG=debug` shows one line per request).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Mount, Service};
use monotable_store::{SyncPolicy, TtlSweeper};
use tokio::net::TcpListener;

use crate::console::ConsoleMode;

/// How `monotable serve` authenticates requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AuthMode {
    /// Accept any well-formed SigV4 credentials, as DynamoDB Local does.
    Accept,
    /// Verify SigV4 signatures against the key pairs given with --credentials.
    Verify,
}

/// Arguments of `monotable serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "MONOTABLE_HOST", default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, short, env = "MONOTABLE_PORT", default_value_t = 8000)]
    port: u16,
    /// Keep all data in memory, lost on exit (the default).
    #[arg(long, conflicts_with = "data_dir")]
    in_memory: bool,
    /// Keep tables on disk in this directory (created if absent; refused if it holds
    /// something other than a monotable store).
    #[arg(long, value_name = "DIR", env = "MONOTABLE_DATA_DIR")]
    data_dir: Option<PathBuf>,
    /// With --data-dir: when a write reaches the disk: always, group (default), group:5ms or none.
    #[arg(long, value_name = "POLICY", default_value = "group", requires = "data_dir")]
    sync: String,
    /// The directory standing in for S3 in ExportTableToPointInTime and ImportTable: bucket
    /// `b` is its subdirectory `b`, which must exist. Default: `monotable-buckets` in the
    /// system's temporary directory.
    #[arg(long, value_name = "DIR", env = "MONOTABLE_BUCKET_DIR")]
    bucket_dir: Option<PathBuf>,
    /// A real S3 API for ExportTableToPointInTime and ImportTable instead of --bucket-dir: the
    /// URL of an S3-compatible server (path-style addressing), or `aws` for Amazon S3. Region
    /// and keys come from the AWS SDK's chain (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_PROFILE, ...).
    #[arg(long, value_name = "URL|aws", env = "MONOTABLE_S3_ENDPOINT", conflicts_with = "bucket_dir")]
    s3_endpoint: Option<String>,
    /// Authentication mode.
    #[arg(long, value_enum, default_value_t = AuthMode::Accept)]
    auth: AuthMode,
    /// Key pairs for --auth verify, as ACCESS_KEY_ID:SECRET_ACCESS_KEY, comma-separated.
    /// Prefer the environment variable: command lines are visible to other users.
    #[arg(long, env = "MONOTABLE_CREDENTIALS", hide_env_values = true)]
    credentials: Option<String>,
    /// Threads serving requests. Default: half the machine's cores (at least one), because
    /// the clients of a local endpoint, tests or a load generator, usually run on the same
    /// machine and need the other half.
    #[arg(long, env = "MONOTABLE_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// The web console at /console: auto (only on a loopback address), on or off.
    #[arg(long, value_enum, default_value_t = ConsoleMode::Auto)]
    console: ConsoleMode,
    /// A design document (YAML or JSON) for the console's single-table views.
    #[arg(long, value_name = "FILE")]
    design: Option<PathBuf>,
}

/// The default number of request-serving threads: half the available cores, at least one.
/// On two cores with the load generator beside it, one worker served 30% more GetItem and 18%
/// more PutItem per second than two (docs/BENCHMARKS.md): two workers and the client took
/// turns on the same cores.
fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get() / 2).max(1)
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    let auth = match args.auth {
        AuthMode::Accept => Auth::AcceptAny,
        AuthMode::Verify => {
            let list = args.credentials.as_deref().unwrap_or("");
            let credentials = Credentials::parse(list)?;
            anyhow::ensure!(
                !credentials.is_empty(),
                "--auth verify needs at least one key pair: --credentials ID:SECRET or MONOTABLE_CREDENTIALS"
            );
            Auth::Verify(credentials)
        }
    };
    // `--in-memory` is the default; clap only uses it to refuse `--data-dir` alongside it.
    let (engine, storage_note) = match &args.data_dir {
        None => (Engine::new(), "in memory".to_string()),
        Some(dir) => open_durable(dir, &args.sync)?,
    };
    if let Some(dir) = &args.bucket_dir {
        engine.set_bucket_root(dir);
    }
    let design = args.design.as_deref().map(crate::console::read_design).transpose()?;
    let console = crate::console::mount(args.console, &args.host, &engine, &auth, design);
    let workers = args.workers.map_or_else(default_workers, usize::from);
    // One worker is tokio's current-thread scheduler: the same one thread serving, without the
    // work-stealing scheduler's bookkeeping (2% fewer instructions per GetItem). Blocking-pool
    // requests, and so the no-stall guarantee, work the same under both.
    let mut builder = if workers == 1 {
        tokio::runtime::Builder::new_current_thread()
    } else {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(workers);
        b
    };
    let runtime = builder.enable_all().build().context("could not start the async runtime")?;
    if let Some(endpoint) = &args.s3_endpoint {
        let store = crate::s3::store(endpoint, &runtime)?;
        tracing::info!(?store, "exports and imports use S3");
        engine.set_object_store(std::sync::Arc::new(store));
    }
    let sweeper = TtlSweeper::new(engine.clone()).spawn();
    let result = runtime.block_on(serve(args.host, args.port, engine, storage_note, auth, console));
    drop(sweeper);
    result
}

fn open_durable(dir: &Path, sync: &str) -> anyhow::Result<(Engine, String)> {
    let sync: SyncPolicy = sync.parse()?;
    let store = monotable_store::open(dir, sync)
        .with_context(|| format!("could not open the data directory {}", dir.display()))?;
    let report = store.recovery();
    tracing::info!(
        dir = %dir.display(),
        %sync,
        micros = report.elapsed.as_micros() as u64,
        journals = report.journals,
        torn_tail_bytes = report.torn_tail_bytes,
        orphans_removed = report.orphans_removed,
        "opened the data directory"
    );
    let engine = Engine::with_storage(store)
        .map_err(|e| anyhow::anyhow!("could not load the tables in {}: {e}", dir.display()))?;
    Ok((engine, format!("data in {}, sync {sync}", dir.display())))
}

async fn serve(
    host: String,
    port: u16,
    engine: Engine,
    storage_note: String,
    auth: Auth,
    console: Option<Mount>,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind((host.as_str(), port))
        .await
        .with_context(|| format!("could not listen on {host}:{port}"))?;
    let endpoint = format!("http://{}", listener.local_addr()?);
    let auth_note = match &auth {
        Auth::Verify(c) => format!("verifying SigV4 signatures for {} access key(s)", c.len()),
        _ => "any well-formed SigV4 credentials are accepted".to_string(),
    };
    let banner = format!(
        "monotable is serving DynamoDB on {endpoint} ({storage_note}; {auth_note})\n\
         {aws_cli}  aws dynamodb list-tables --endpoint-url {endpoint}\n\
         {console_note}Stop with Ctrl-C.\n",
        aws_cli = aws_cli_credentials(&auth),
        console_note = if console.is_some() {
            format!("The web console is at {endpoint}/console/\n")
        } else {
            String::new()
        },
    );
    // Installed before the banner announces the endpoint (see `shutdown_signal`).
    let shutdown = shutdown_signal();
    // A closed stdout (`monotable serve | head -1`) must not stop the server.
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(banner.as_bytes()).and_then(|()| stdout.flush());
    drop(stdout);
    let service = Service::new(engine).with_auth(auth);
    monotable_server::serve_with(listener, service, console, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
}

/// The banner's lines before `aws dynamodb list-tables`: how to give the aws CLI credentials
/// the server takes. Under `--auth verify` only a configured key pair works; the banner says
/// so and never prints a secret.
fn aws_cli_credentials(auth: &Auth) -> &'static str {
    match auth {
        Auth::Verify(_) => {
            "Point the aws CLI at it with one of the key pairs of --credentials or MONOTABLE_CREDENTIALS:\n  \
             AWS_ACCESS_KEY_ID=<its access key id> AWS_SECRET_ACCESS_KEY=<its secret> \\\n  \
             AWS_DEFAULT_REGION=us-east-1 \\\n  "
        }
        _ => {
            "Point the aws CLI at it (any key pair will do):\n  \
             AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION=us-east-1 \\\n  "
        }
    }
}

pub(crate) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
}

/// Completes on Ctrl-C (SIGINT) or, on Unix, SIGTERM.
///
/// The handlers are installed when this is called, not when the future is first polled:
/// callers call it before announcing that they serve, so a signal sent right after the banner
/// (a supervisor, a test) shuts down gracefully instead of killing the process.
pub(crate) fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let interrupt = signal(SignalKind::interrupt()).ok();
        let terminate = signal(SignalKind::terminate()).ok();
        async move {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => tracing::info!("interrupted; shutting down"),
                () = wait(terminate) => tracing::info!("terminated; shutting down"),
            }
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        tracing::info!("interrupted; shutting down");
    }
}
