//! `monotable serve`: the DynamoDB JSON protocol on a local endpoint.
//!
//! Storage is in memory by default, or durable in `--data-dir DIR` (`monotable-store`, see
//! docs/STORAGE.md). Tables live in the region (and, under `--auth verify`, the account) a
//! request is signed for, one engine each, unless `--shared-db` gives every request the
//! tables of `--region`. Expired TTL items are swept in the background either way. The endpoint
//! and an aws CLI example are printed on stdout as soon as the socket is bound; logs go to
//! stderr (`RUST_LOG=debug` shows one line per request).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use std::sync::Arc;

use anyhow::Context;
use monotable_engine::{Engine, Location, ObjectStore, Storage};
use monotable_server::{Auth, Credentials, Limits, Mount, Service};
use monotable_store::{SweeperHandle, SyncPolicy, TtlSweeper};
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
    /// Key pairs for --auth verify, as ACCESS_KEY_ID:SECRET_ACCESS_KEY, comma-separated; a
    /// third part, a twelve-digit account id (default 000000000000), puts the key's tables in
    /// that account. Prefer the environment variable: command lines are visible to other users.
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
    /// The region whose tables the console shows and --shared-db serves. Default: AWS_REGION,
    /// else AWS_DEFAULT_REGION, else the AWS profile's region, else us-east-1, as the AWS SDKs
    /// choose.
    #[arg(long, value_name = "REGION")]
    region: Option<String>,
    /// Under --auth accept, a web origin whose pages may call the server besides the
    /// loopback ones (http(s)://localhost, 127.0.0.0/8, [::1], any port), as the browser
    /// sends it: `--allow-origin https://app.example:3000`. Repeatable. Other origins, and
    /// while listening on loopback a Host header that is not a loopback name, are refused
    /// with 403. Under --auth verify any origin is answered, as DynamoDB does.
    #[arg(long, value_name = "ORIGIN", value_parser = parse_origin)]
    allow_origin: Vec<String>,
    /// The most bytes of request bodies held in memory at once, over all connections. A body
    /// that finds no room waits up to 5 s, then gets ThrottlingException (which SDKs retry).
    /// Default: an eighth of physical memory, at least 64 MiB and at most 1 GiB.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    max_buffered_bytes: Option<u64>,
    /// The most connections open at once. A new connection past it closes the longest-open
    /// idle connection, else the one whose request body arrives slowest, else is closed.
    /// Default: the soft descriptor limit (raised to the hard one at start) less a quarter of
    /// it, at most 1,024 kept back for the data directory and the blocking pool.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    max_connections: Option<u64>,
    /// The slowest a request body may arrive, in bytes per second, once its 10 s grace is
    /// spent; a body that falls behind (or pauses longer than the grace) is closed unanswered.
    /// Default: 65536 (64 KiB/s: a 16 MiB body may take 4 min 26 s).
    #[arg(long, value_name = "BYTES_PER_SECOND", value_parser = clap::value_parser!(u64).range(1..))]
    min_body_rate: Option<u64>,
    /// One database for every request, whatever region and account it is signed for (the
    /// tables of --region), as DynamoDB Local's -sharedDb. Without it each region of each
    /// account has tables of its own, as in DynamoDB.
    #[arg(long)]
    shared_db: bool,
}

/// An `--allow-origin` value: what a browser sends in `Origin`, `scheme://host[:port]`.
fn parse_origin(value: &str) -> Result<String, String> {
    let origin = value.trim_end_matches('/');
    match origin.split_once("://") {
        Some((scheme, host)) if !scheme.is_empty() && !host.is_empty() && !host.contains('/') => {
            Ok(origin.to_string())
        }
        _ => Err(format!("'{value}' is not an origin: write it as a browser sends it, scheme://host[:port]")),
    }
}

/// The default number of request-serving threads: half the available cores, at least one.
/// On two cores with the load generator beside it, one worker served 30% more GetItem and 18%
/// more PutItem per second than two (bench/results/2026-12-02-196ae13-peers.md; with responses
/// written together one worker still wins, docs/BENCHMARKS.md): two workers and the client
/// took turns on the same cores.
fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get() / 2).max(1)
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    init_logging();
    // Before the limits are read: the default cap on connections derives from this limit.
    let descriptors = monotable_server::raise_descriptor_limit();
    // Freed memory is returned to the system by a thread of its own, never by a worker.
    let purging = crate::purge::start();
    let mut limits = Limits::default();
    if let Some(bytes) = args.max_buffered_bytes {
        limits = limits.with_max_buffered_bytes(usize::try_from(bytes).unwrap_or(usize::MAX));
    }
    if let Some(connections) = args.max_connections {
        limits = limits.with_max_connections(usize::try_from(connections).unwrap_or(usize::MAX));
    }
    if let Some(rate) = args.min_body_rate {
        limits = limits.with_min_body_rate(rate);
    }
    tracing::debug!(?descriptors, ?limits, purging, "transport limits");
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
    // The region the AWS SDKs would configure a client here with (environment, then profile,
    // then `us-east-1`), so that the console shows the tables such a client writes.
    let home = Location::region(match args.region.clone() {
        Some(region) => region,
        None => runtime.block_on(crate::endpoint::local_region()).to_string(),
    });
    // `--in-memory` is the default; clap only uses it to refuse `--data-dir` alongside it.
    let (store, storage_note) = match &args.data_dir {
        None => (None, "in memory".to_string()),
        Some(dir) => {
            let (store, note) = open_durable(dir, &args.sync)?;
            (Some(store), note)
        }
    };
    let objects: Option<Arc<dyn ObjectStore>> = match &args.s3_endpoint {
        Some(endpoint) => {
            let s3 = crate::s3::store(endpoint, &runtime)?;
            tracing::info!(store = ?s3, "exports and imports use S3");
            Some(Arc::new(s3))
        }
        None => None,
    };
    let locations =
        Locations { store, bucket_dir: args.bucket_dir.clone(), objects, sweepers: Default::default() };
    let engine = locations.open(&home).map_err(anyhow::Error::msg)?;
    let storage_note = match args.shared_db {
        true => {
            format!("{storage_note}; one database for every region: the tables of {}", home.region_name())
        }
        false => format!("{storage_note}; tables per region, {} first", home.region_name()),
    };
    let design = args.design.as_deref().map(crate::console::read_design).transpose()?;
    let console = crate::console::mount(args.console, &args.host, &engine, &auth, design);
    let service = match args.shared_db {
        true => Service::new(engine),
        false => {
            let locations = Arc::new(locations);
            let open = Arc::clone(&locations);
            Service::per_location(engine, move |location| open.open(location))
        }
    };
    let service = service.with_allowed_origins(args.allow_origin).with_limits(limits);
    let banner_region = home.region_name().to_owned();
    runtime.block_on(serve(args.host, args.port, service, storage_note, auth, console, banner_region))
}

/// Opens the engine of each location a request is signed for: in memory, or in the one data
/// directory (whose bare names are the default location's, docs/STORAGE.md), each with its
/// bucket directory or S3 store and TTL sweeper.
struct Locations {
    store: Option<Arc<dyn Storage>>,
    bucket_dir: Option<PathBuf>,
    /// `--s3-endpoint`'s store, shared by every location (an S3 bucket is global).
    objects: Option<Arc<dyn ObjectStore>>,
    /// Stopped when the last engine goes, with the service.
    sweepers: std::sync::Mutex<Vec<SweeperHandle>>,
}

impl Locations {
    fn open(&self, location: &Location) -> Result<Engine, String> {
        let engine = match &self.store {
            None => Engine::new_at(location.clone()),
            Some(store) => Engine::with_storage_at(Arc::clone(store), location.clone())
                .map_err(|e| format!("could not load the tables of {location}: {e}"))?,
        };
        if let Some(dir) = &self.bucket_dir {
            engine.set_bucket_root(dir);
        }
        if let Some(objects) = &self.objects {
            engine.set_object_store(Arc::clone(objects));
        }
        self.sweepers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(TtlSweeper::new(engine.clone()).spawn());
        Ok(engine)
    }
}

fn open_durable(dir: &Path, sync: &str) -> anyhow::Result<(Arc<dyn Storage>, String)> {
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
    Ok((store, format!("data in {}, sync {sync}", dir.display())))
}

async fn serve(
    host: String,
    port: u16,
    service: Service,
    storage_note: String,
    auth: Auth,
    console: Option<Mount>,
    region: String,
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
        aws_cli = aws_cli_credentials(&auth, &region),
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
    let service = service.with_auth(auth);
    monotable_server::serve_with(listener, service, console, shutdown).await?;
    tracing::info!("stopped");
    Ok(())
}

/// The banner's lines before `aws dynamodb list-tables`: how to give the aws CLI credentials
/// the server takes. Under `--auth verify` only a configured key pair works; the banner says
/// so and never prints a secret.
fn aws_cli_credentials(auth: &Auth, region: &str) -> String {
    match auth {
        Auth::Verify(_) => format!(
            "Point the aws CLI at it with one of the key pairs of --credentials or MONOTABLE_CREDENTIALS:\n  \
             AWS_ACCESS_KEY_ID=<its access key id> AWS_SECRET_ACCESS_KEY=<its secret> \\\n  \
             AWS_DEFAULT_REGION={region} \\\n  "
        ),
        _ => format!(
            "Point the aws CLI at it (any key pair will do):\n  \
             AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_DEFAULT_REGION={region} \\\n  "
        ),
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
