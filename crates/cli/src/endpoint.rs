//! The SDK client for an `--endpoint` (or `--from`/`--to`) argument, the same for every
//! command that takes one: export, import, copy, console, design apply and design diff.
//!
//! - `aws` is Amazon DynamoDB: endpoint, region and credentials come from the standard AWS
//!   configuration chain (environment, profile, SSO, web identity, container or instance
//!   role), as the aws CLI resolves them; `AWS_ENDPOINT_URL_DYNAMODB` is honoured too.
//! - A URL is the endpoint; region and credentials come from the same chain.
//! - A loopback URL when the environment names no credentials (`AWS_ACCESS_KEY_ID`,
//!   `AWS_PROFILE`) gets static placeholder credentials without consulting the chain: a local
//!   emulator accepts any key, and the chain would only log each provider's failure.
//!
//! The region is `us-east-1` when nothing configures one. A local endpoint keeps tables per
//! region as DynamoDB does, so a loopback URL takes the region the SDKs would: `AWS_REGION`,
//! `AWS_DEFAULT_REGION`, then the profile's `region`, without the chain's instance-metadata
//! lookup (which logs a warning off EC2).

use aws_config::retry::RetryConfig;
use aws_config::BehaviorVersion;
use aws_sdk_dynamodb::config::{Credentials, Region};
use aws_sdk_dynamodb::Client;

/// The `--endpoint` value that names Amazon DynamoDB.
pub const AWS: &str = "aws";

const DEFAULT_REGION: &str = "us-east-1";

/// Whether the SDK retries failed requests itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retries {
    /// The SDK's standard retries (design apply and diff, the console).
    Standard,
    /// None: the transfer library retries with its own jittered backoff and rate limit.
    Off,
}

/// A client for `endpoint` (a URL, or [`AWS`]).
pub async fn client(endpoint: &str, retries: Retries) -> Client {
    let retry = match retries {
        Retries::Standard => RetryConfig::standard(),
        Retries::Off => RetryConfig::disabled(),
    };
    let loopback = is_loopback(endpoint);
    let local_region = match loopback {
        true => Some(local_region().await),
        false => None,
    };
    if let (Some(region), false) = (&local_region, credentials_in_environment()) {
        let config = aws_sdk_dynamodb::Config::builder()
            .behavior_version(BehaviorVersion::latest())
            .region(region.clone())
            .credentials_provider(Credentials::new("local", "local", None, None, "monotable-placeholder"))
            .retry_config(retry)
            .endpoint_url(endpoint)
            .build();
        return Client::from_conf(config);
    }
    let mut loader = aws_config::defaults(BehaviorVersion::latest()).retry_config(retry);
    if endpoint != AWS {
        loader = loader.endpoint_url(endpoint);
    }
    if let Some(region) = local_region {
        loader = loader.region(region);
    }
    let sdk = loader.load().await;
    let mut builder = aws_sdk_dynamodb::config::Builder::from(&sdk);
    if sdk.region().is_none() {
        builder = builder.region(Region::new(DEFAULT_REGION));
    }
    Client::from_conf(builder.build())
}

/// The region of a local endpoint: the environment's, else the profile's, else `us-east-1`.
pub(crate) async fn local_region() -> Region {
    if let Some(region) = region_from_environment() {
        return Region::new(region);
    }
    use aws_config::meta::region::ProvideRegion;
    let profile = aws_config::profile::ProfileFileRegionProvider::new();
    profile.region().await.unwrap_or_else(|| Region::new(DEFAULT_REGION))
}

fn environment(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn credentials_in_environment() -> bool {
    environment("AWS_ACCESS_KEY_ID").is_some() || environment("AWS_PROFILE").is_some()
}

fn region_from_environment() -> Option<String> {
    environment("AWS_REGION").or_else(|| environment("AWS_DEFAULT_REGION"))
}

/// Whether `endpoint` is a URL of this machine (`localhost`, `127.x.x.x`, `[::1]`).
pub fn is_loopback(endpoint: &str) -> bool {
    let Some((_, rest)) = endpoint.split_once("://") else { return false };
    if rest.starts_with("[::1]") {
        return true;
    }
    let host = rest.split(['/', ':']).next().unwrap_or("");
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<std::net::Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::is_loopback;

    #[test]
    fn only_urls_of_this_machine_are_loopback() {
        for url in
            ["http://127.0.0.1:8000", "http://localhost:8000/", "http://127.1.2.3", "http://[::1]:8000"]
        {
            assert!(is_loopback(url), "{url}");
        }
        for url in
            ["aws", "https://dynamodb.us-east-1.amazonaws.com", "http://10.0.0.1:8000", "http://127.evil.com"]
        {
            assert!(!is_loopback(url), "{url}");
        }
    }
}
