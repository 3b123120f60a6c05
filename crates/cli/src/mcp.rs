//! `monotable mcp`: the Model Context Protocol server for coding agents (`monotable-mcp`),
//! over standard input and output, or streamable HTTP with `--http PORT`.
//!
//! It runs on the embedded engine (in memory, or over `--data-dir`) unless given an
//! `--endpoint`, whose client is the one every command gets ([`crate::endpoint`]).
//! Standard output is the protocol's under stdio: everything else goes to standard error.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use monotable_mcp::{backend, Options, Server};

/// Arguments of `monotable mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Run on a fresh in-memory engine (the default).
    #[arg(long, conflicts_with_all = ["data_dir", "endpoint"])]
    in_memory: bool,
    /// Run on the engine over this data directory (the one `monotable serve --data-dir` uses;
    /// not while a server has it open). Read-only, the server reads a copy taken at start and
    /// never writes the directory.
    #[arg(long, value_name = "DIR", conflicts_with = "endpoint")]
    data_dir: Option<PathBuf>,
    /// Run against a DynamoDB endpoint: a URL, or `aws` for Amazon DynamoDB (credentials and
    /// region from the standard AWS configuration).
    #[arg(long, value_name = "URL")]
    endpoint: Option<String>,
    /// List the tools that write (put_entity, update, delete, create_table_from_design) and
    /// let partiql run statements other than SELECT.
    #[arg(long)]
    writable: bool,
    /// A design document (YAML or JSON) the design and data tools use when given none.
    #[arg(long, value_name = "FILE")]
    design: Option<PathBuf>,
    /// Serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio (0 picks a port).
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
    /// Tool answers longer than this many bytes come a page at a time, with a cursor.
    #[arg(long, value_name = "BYTES", default_value_t = monotable_mcp::DEFAULT_MAX_OUTPUT)]
    max_output: usize,
}

pub fn run(args: McpArgs) -> anyhow::Result<()> {
    crate::serve::init_logging();
    let design = args.design.as_deref().map(crate::console::read_design).transpose()?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async move {
        let mut _backend = None;
        let (client, label) = match (&args.endpoint, &args.data_dir) {
            (Some(url), _) => {
                (crate::endpoint::client(url, crate::endpoint::Retries::Standard).await, url.clone())
            }
            (None, Some(dir)) => {
                let opened = backend::data_dir(dir, args.writable).map_err(anyhow::Error::msg)?;
                let label = match args.writable {
                    true => format!("the embedded engine over {}", dir.display()),
                    false => format!("the embedded engine over a copy of {} taken at start", dir.display()),
                };
                let client = opened.client.clone();
                // Kept to the end of the session: a read-only server's copy is removed with it.
                _backend = Some(opened);
                (client, label)
            }
            (None, None) => (backend::in_memory(), "the embedded engine, in memory".to_string()),
        };
        // `create_table_from_design` creates a table as `design apply` does.
        let create_table: monotable_mcp::CreateTable = Arc::new(|client, shape| {
            Box::pin(async move {
                crate::design::live::create(&client, &shape).await.map_err(|e| format!("{e:#}"))
            })
        });
        let options = Options {
            client,
            writable: args.writable,
            design,
            max_output: args.max_output.max(1),
            label,
            create_table: Some(create_table),
        };
        let server = Server::new(options);
        match args.http {
            None => monotable_mcp::serve_stdio(server).await.context("MCP over stdio")?,
            Some(port) => {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .with_context(|| format!("could not listen on 127.0.0.1:{port}"))?;
                let address = listener.local_addr()?;
                // Installed before the banner (see `serve::shutdown_signal`).
                let shutdown = crate::serve::shutdown_signal();
                println!(
                    "monotable mcp on http://{address}/mcp ({})\nStop with Ctrl-C.",
                    if args.writable { "writable" } else { "read-only" }
                );
                monotable_mcp::serve_http(listener, server, shutdown).await?;
            }
        }
        anyhow::Ok(())
    })
}
