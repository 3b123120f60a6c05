//! `monotable serve --s3-endpoint`: the engine's buckets on a real S3 API (`monotable-s3`),
//! with the region and the access keys of the AWS SDK's default chain (environment,
//! profile, SSO, container and instance roles).

use std::sync::Arc;

use anyhow::Context;
use aws_config::BehaviorVersion;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use monotable_s3::{KeySource, Keys, S3Store};

/// Where `--s3-endpoint aws` sends requests when no region is configured, as for an
/// S3-compatible server (whose region only enters the signature).
const DEFAULT_REGION: &str = "us-east-1";

/// The store for `--s3-endpoint ENDPOINT`: `aws` is Amazon S3, anything else the URL of an
/// S3-compatible server, addressed path-style.
pub fn store(endpoint: &str, runtime: &tokio::runtime::Runtime) -> anyhow::Result<S3Store> {
    let config = runtime.block_on(aws_config::defaults(BehaviorVersion::latest()).load());
    let region = config.region().map_or(DEFAULT_REGION.to_owned(), |r| r.to_string());
    let provider = config.credentials_provider();
    let keys = key_source(provider);
    let store = if endpoint == "aws" {
        S3Store::aws(&region, keys)?
    } else {
        S3Store::compatible(endpoint, &region, keys)?
    };
    Ok(store)
}

/// Keys from the chain, fetched on a thread of their own: the store asks from inside a
/// request, on a thread of the server's async runtime, where blocking on a future panics.
fn key_source(provider: Option<SharedCredentialsProvider>) -> KeySource {
    Arc::new(move || {
        let provider = provider.clone().ok_or("the AWS credential chain is not configured")?;
        std::thread::scope(|s| {
            s.spawn(|| fetch(&provider))
                .join()
                .unwrap_or_else(|_| Err("the credential chain panicked".into()))
        })
    })
}

fn fetch(provider: &SharedCredentialsProvider) -> Result<Keys, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start a runtime for the credential chain")
        .map_err(|e| format!("{e:#}"))?;
    let c = runtime.block_on(provider.provide_credentials()).map_err(|e| format!("{e}"))?;
    Ok(Keys {
        access_key_id: c.access_key_id().to_owned(),
        secret_access_key: c.secret_access_key().to_owned(),
        session_token: c.session_token().map(str::to_owned),
        expires: c.expiry(),
    })
}
