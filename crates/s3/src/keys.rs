//! Access keys: where they come from and how long one fetch is reused.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use monotable_engine::ObjectStoreError;
use parking_lot::Mutex;
use rusty_s3::Credentials;

/// One set of access keys, as a credential provider hands them out.
#[derive(Clone)]
pub struct Keys {
    pub access_key_id: String,
    pub secret_access_key: String,
    /// For temporary credentials (an assumed role, SSO).
    pub session_token: Option<String>,
    /// When temporary credentials stop working; `None` for long-term keys.
    pub expires: Option<SystemTime>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").field("access_key_id", &self.access_key_id).finish_non_exhaustive()
    }
}

/// Fetches keys: called on the first request and again when the last keys are about to
/// expire. An `Err` fails the S3 call with its text.
pub type KeySource = Arc<dyn Fn() -> Result<Keys, String> + Send + Sync>;

/// Keys are fetched again this long before they expire.
const REFRESH_BEFORE: Duration = Duration::from_secs(5 * 60);

/// A [`KeySource`] and the keys it last gave, while they are still good.
pub(crate) struct Cached {
    source: KeySource,
    last: Mutex<Option<Keys>>,
}

impl Cached {
    pub fn new(source: KeySource) -> Cached {
        Cached { source, last: Mutex::new(None) }
    }

    pub fn get(&self) -> Result<Credentials, ObjectStoreError> {
        let mut last = self.last.lock();
        let fresh = |k: &Keys| k.expires.is_none_or(|t| SystemTime::now() + REFRESH_BEFORE < t);
        let keys = match last.as_ref().filter(|k| fresh(k)) {
            Some(keys) => keys.clone(),
            None => {
                let keys = (self.source)()
                    .map_err(|e| ObjectStoreError::Failed(format!("no credentials for S3: {e}")))?;
                *last = Some(keys.clone());
                keys
            }
        };
        Ok(match keys.session_token {
            Some(token) => Credentials::new_with_token(keys.access_key_id, keys.secret_access_key, token),
            None => Credentials::new(keys.access_key_id, keys.secret_access_key),
        })
    }
}
