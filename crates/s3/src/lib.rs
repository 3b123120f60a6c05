//! monotable's S3 client: [`S3Store`] is the engine's [`ObjectStore`] over a real S3 API, so
//! that ExportTableToPointInTime writes to and ImportTable reads from Amazon S3 or any
//! S3-compatible server (`monotable serve --s3-endpoint URL|aws`).
//!
//! Requests are signed with SigV4 query parameters (presigned URLs, `rusty-s3`) and sent with
//! a blocking HTTP client (`ureq`): the engine runs a transfer inside its request, on that
//! request's thread, so nothing here is async. The store makes four calls: HeadBucket,
//! PutObject, GetObject and ListObjectsV2 (followed page by page).

mod keys;
mod response;
mod tls;

use std::time::Duration;

use monotable_engine::{ObjectStore, ObjectStoreError};
use rusty_s3::{Bucket, S3Action, UrlStyle};
use url::Url;

pub use keys::{KeySource, Keys};
use response::failure;

/// How long a signed URL is valid. It is used at once; the margin covers clock skew between
/// this machine and the server.
const SIGNED_FOR: Duration = Duration::from_secs(15 * 60);

/// Largest object GetObject reads into memory: a data file of an export is one gzip object
/// of the whole table, and the engine holds tables in memory anyway.
const MAX_OBJECT: u64 = 16 << 30;

/// The engine's buckets on an S3 API.
pub struct S3Store {
    endpoint: Url,
    style: UrlStyle,
    region: String,
    keys: keys::Cached,
    agent: ureq::Agent,
}

impl std::fmt::Debug for S3Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Store")
            .field("endpoint", &self.endpoint.as_str())
            .field("region", &self.region)
            .finish()
    }
}

/// Why an [`S3Store`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The endpoint is not an `http://` or `https://` URL with a host.
    #[error("the S3 endpoint {0} is not an http:// or https:// URL with a host")]
    Endpoint(String),
}

impl S3Store {
    /// An S3-compatible server at `endpoint` (`http://127.0.0.1:9000`), buckets addressed
    /// path-style (`<endpoint>/<bucket>/<key>`), as local servers need.
    pub fn compatible(endpoint: &str, region: &str, keys: KeySource) -> Result<S3Store, ConfigError> {
        let url = Url::parse(endpoint).map_err(|_| ConfigError::Endpoint(endpoint.to_owned()))?;
        if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
            return Err(ConfigError::Endpoint(endpoint.to_owned()));
        }
        Ok(S3Store::with(url, UrlStyle::Path, region, keys))
    }

    /// Amazon S3 in `region`, buckets addressed virtual-hosted-style
    /// (`https://<bucket>.s3.<region>.amazonaws.com/<key>`).
    pub fn aws(region: &str, keys: KeySource) -> Result<S3Store, ConfigError> {
        let endpoint = format!("https://s3.{region}.amazonaws.com");
        let url = Url::parse(&endpoint).map_err(|_| ConfigError::Endpoint(endpoint))?;
        Ok(S3Store::with(url, UrlStyle::VirtualHost, region, keys))
    }

    fn with(endpoint: Url, style: UrlStyle, region: &str, keys: KeySource) -> S3Store {
        let mut config = ureq::Agent::config_builder().http_status_as_error(false);
        if endpoint.scheme() == "https" {
            config = config.tls_config(tls::config());
        }
        let config = config
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_global(Some(Duration::from_secs(15 * 60)))
            .build();
        S3Store {
            endpoint,
            style,
            region: region.to_owned(),
            keys: keys::Cached::new(keys),
            agent: ureq::Agent::new_with_config(config),
        }
    }

    fn bucket(&self, name: &str) -> Result<Bucket, ObjectStoreError> {
        // A dotted name cannot be a virtual host under S3's wildcard certificate.
        let style = if name.contains('.') { UrlStyle::Path } else { self.style };
        Bucket::new(self.endpoint.clone(), style, name.to_owned(), self.region.clone())
            .map_err(|e| ObjectStoreError::Failed(format!("S3 bucket {name}: {e}")))
    }
}

fn transport(operation: &str, e: ureq::Error) -> ObjectStoreError {
    ObjectStoreError::Failed(format!("S3 {operation}: {e}"))
}

impl ObjectStore for S3Store {
    fn bucket_exists(&self, bucket: &str) -> Result<bool, ObjectStoreError> {
        let keys = self.keys.get()?;
        let url = self.bucket(bucket)?.head_bucket(Some(&keys)).sign(SIGNED_FOR);
        let response = self.agent.head(url.as_str()).call().map_err(|e| transport("HeadBucket", e))?;
        match response.status().as_u16() {
            200..=299 => Ok(true),
            404 => Ok(false),
            status => Err(ObjectStoreError::Failed(format!("S3 HeadBucket {bucket}: HTTP {status}"))),
        }
    }

    fn put_object(&self, bucket: &str, key: &str, body: Vec<u8>) -> Result<(), ObjectStoreError> {
        let keys = self.keys.get()?;
        let url = self.bucket(bucket)?.put_object(Some(&keys), key).sign(SIGNED_FOR);
        let mut response =
            self.agent.put(url.as_str()).send(&body[..]).map_err(|e| transport("PutObject", e))?;
        if response.status().is_success() {
            return Ok(());
        }
        Err(failure("PutObject", key, response.status().as_u16(), &read_text(&mut response)))
    }

    fn get_object(&self, bucket: &str, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
        let keys = self.keys.get()?;
        let url = self.bucket(bucket)?.get_object(Some(&keys), key).sign(SIGNED_FOR);
        let mut response = self.agent.get(url.as_str()).call().map_err(|e| transport("GetObject", e))?;
        if !response.status().is_success() {
            return Err(failure("GetObject", key, response.status().as_u16(), &read_text(&mut response)));
        }
        response
            .body_mut()
            .with_config()
            .limit(MAX_OBJECT)
            .read_to_vec()
            .map_err(|e| transport("GetObject", e))
    }

    fn list_keys(&self, bucket: &str, prefix: &str) -> Result<Vec<String>, ObjectStoreError> {
        let keys = self.keys.get()?;
        let bucket_url = self.bucket(bucket)?;
        let mut found = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let mut list = bucket_url.list_objects_v2(Some(&keys));
            if !prefix.is_empty() {
                list.with_prefix(prefix);
            }
            if let Some(t) = &token {
                list.with_continuation_token(t.as_str());
            }
            let url = list.sign(SIGNED_FOR);
            let mut response =
                self.agent.get(url.as_str()).call().map_err(|e| transport("ListObjectsV2", e))?;
            let status = response.status().as_u16();
            let text = read_text(&mut response);
            if !(200..300).contains(&status) {
                return Err(failure("ListObjectsV2", prefix, status, &text));
            }
            let page = rusty_s3::actions::ListObjectsV2::parse_response(&text).map_err(|e| {
                ObjectStoreError::Failed(format!("S3 ListObjectsV2: unreadable response: {e}"))
            })?;
            found.extend(page.contents.into_iter().map(|c| c.key));
            token = page.next_continuation_token;
            if token.is_none() {
                break;
            }
        }
        // S3 lists in UTF-8 byte order already; sorting keeps the trait's promise for any server.
        found.sort();
        Ok(found)
    }
}

/// The body of a response as text, for error details and listings (empty if unreadable).
fn read_text(response: &mut ureq::http::Response<ureq::Body>) -> String {
    response.body_mut().with_config().limit(64 << 20).read_to_string().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::sync::Arc;

    use super::*;

    fn keys() -> KeySource {
        Arc::new(|| {
            Ok(Keys {
                access_key_id: "id".into(),
                secret_access_key: "secret".into(),
                session_token: None,
                expires: None,
            })
        })
    }

    #[test]
    fn an_https_server_that_does_not_speak_tls_fails_the_call_not_the_process() {
        // The handshake runs through the rustls provider `tls.rs` configures; without one,
        // ureq panics here instead of failing the call.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut hello = [0u8; 5];
            let _ = socket.read(&mut hello);
            let _ = socket.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
        });
        let store = S3Store::compatible(&format!("https://127.0.0.1:{port}"), "us-east-1", keys()).unwrap();
        match store.bucket_exists("bucket") {
            Err(ObjectStoreError::Failed(message)) => {
                assert!(message.starts_with("S3 HeadBucket: "), "{message}")
            }
            other => panic!("expected a failed call, got {other:?}"),
        }
        server.join().unwrap();
    }

    #[test]
    fn an_endpoint_must_be_an_http_url_with_a_host() {
        for endpoint in ["ftp://127.0.0.1", "127.0.0.1:9000", "http://"] {
            assert_eq!(
                S3Store::compatible(endpoint, "us-east-1", keys()).unwrap_err(),
                ConfigError::Endpoint(endpoint.into())
            );
        }
        assert!(S3Store::compatible("http://127.0.0.1:9000", "us-east-1", keys()).is_ok());
        assert!(S3Store::aws("eu-west-1", keys()).is_ok());
    }
}
