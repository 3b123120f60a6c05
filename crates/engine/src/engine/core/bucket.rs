//! Where exports go and imports come from: the [`ObjectStore`] trait (the few S3 calls a
//! transfer makes), the directory store that stands in for S3 by default, and S3's "no such
//! bucket".

use std::path::{Path, PathBuf};

/// DynamoDB's failure for a bucket that does not exist (moto's AWS-verified
/// test_export_to_missing_s3_bucket / test_import_from_missing_s3_table: FailureCode
/// `S3NoSuchBucket`, a message containing "The specified bucket does not exist").
pub(in crate::engine) const NO_SUCH_BUCKET: (&str, &str) =
    ("S3NoSuchBucket", "The specified bucket does not exist");

/// Why an [`ObjectStore`] call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ObjectStoreError {
    /// The bucket does not exist (S3's `NoSuchBucket`); the job fails with `S3NoSuchBucket`.
    #[error("The specified bucket does not exist")]
    NoSuchBucket,
    /// Anything else: the store could not be reached, refused the request, or the key names
    /// no object. The text says which; the job fails with it.
    #[error("{0}")]
    Failed(String),
}

/// The S3 calls ExportTableToPointInTime and ImportTable make. The engine holds one (by
/// default a [`DirectoryStore`]; `Engine::set_object_store` replaces it, as `monotable serve
/// --s3-endpoint` does with the `monotable-s3` crate's client). Calls block their thread;
/// a job runs inside its request.
pub trait ObjectStore: Send + Sync {
    /// Whether `bucket` exists.
    fn bucket_exists(&self, bucket: &str) -> Result<bool, ObjectStoreError>;
    /// Writes `body` as object `key`, replacing any object there.
    fn put_object(&self, bucket: &str, key: &str, body: Vec<u8>) -> Result<(), ObjectStoreError>;
    /// The bytes of object `key`.
    fn get_object(&self, bucket: &str, key: &str) -> Result<Vec<u8>, ObjectStoreError>;
    /// Every object key in `bucket` that starts with `prefix`, in key (byte) order.
    fn list_keys(&self, bucket: &str, prefix: &str) -> Result<Vec<String>, ObjectStoreError>;
}

/// Buckets as directories: bucket `b` is the directory `<root>/b`, which must exist; an S3
/// key is a path below it, `/` separating directories. A key with an empty, `.` or `..`
/// segment names no object, so no key leaves its bucket.
#[derive(Debug, Clone)]
pub struct DirectoryStore {
    root: PathBuf,
}

impl DirectoryStore {
    /// A store whose buckets are the subdirectories of `root`.
    pub fn new(root: impl Into<PathBuf>) -> DirectoryStore {
        DirectoryStore { root: root.into() }
    }

    /// The directory that holds one directory per bucket.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn bucket(&self, name: &str) -> Result<PathBuf, ObjectStoreError> {
        bucket_dir(&self.root, name).ok_or(ObjectStoreError::NoSuchBucket)
    }

    fn object(&self, bucket: &str, key: &str) -> Result<PathBuf, ObjectStoreError> {
        key_path(&self.bucket(bucket)?, key).ok_or_else(|| {
            ObjectStoreError::Failed(format!("The S3 key {key} does not name a path inside the bucket"))
        })
    }
}

fn io(e: std::io::Error) -> ObjectStoreError {
    ObjectStoreError::Failed(e.to_string())
}

impl ObjectStore for DirectoryStore {
    fn bucket_exists(&self, bucket: &str) -> Result<bool, ObjectStoreError> {
        Ok(bucket_dir(&self.root, bucket).is_some())
    }

    fn put_object(&self, bucket: &str, key: &str, body: Vec<u8>) -> Result<(), ObjectStoreError> {
        let path = self.object(bucket, key)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        std::fs::write(path, body).map_err(io)
    }

    fn get_object(&self, bucket: &str, key: &str) -> Result<Vec<u8>, ObjectStoreError> {
        std::fs::read(self.object(bucket, key)?).map_err(io)
    }

    fn list_keys(&self, bucket: &str, prefix: &str) -> Result<Vec<String>, ObjectStoreError> {
        list_keys(&self.bucket(bucket)?, prefix).map_err(io)
    }
}

/// The directory of bucket `name`, if the bucket exists. A name that is not a single path
/// segment names no bucket.
fn bucket_dir(root: &Path, name: &str) -> Option<PathBuf> {
    let valid = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\']);
    let dir = root.join(name);
    (valid && dir.is_dir()).then_some(dir)
}

/// The path of `key` in `bucket`, or `None` when a segment would leave the bucket (`..`),
/// or is empty or `.`.
fn key_path(bucket: &Path, key: &str) -> Option<PathBuf> {
    let mut path = bucket.to_path_buf();
    for segment in key.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." || segment.contains('\\') {
            return None;
        }
        path.push(segment);
    }
    Some(path)
}

/// Every object key in `bucket` that starts with `prefix`, in key order.
fn list_keys(bucket: &Path, prefix: &str) -> std::io::Result<Vec<String>> {
    let mut keys = Vec::new();
    let mut pending = vec![(bucket.to_path_buf(), String::new())];
    while let Some((dir, key_prefix)) = pending.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            let key = format!("{key_prefix}{name}");
            if entry.file_type()?.is_dir() {
                pending.push((entry.path(), format!("{key}/")));
            } else if key.starts_with(prefix) {
                keys.push(key);
            }
        }
    }
    keys.sort();
    Ok(keys)
}

/// An epoch-seconds time as S3 and the export manifests write it: `2020-11-04T07:28:34.028Z`.
pub(in crate::engine) fn iso8601(epoch_seconds: f64) -> String {
    let millis = (epoch_seconds * 1000.0).round() as i64;
    let (days, ms_of_day) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = monotable_types::civil_from_days(days);
    let secs = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_s3_writes_them() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_604_474_914.028), "2020-11-04T07:28:34.028Z");
    }

    #[test]
    fn keys_cannot_leave_their_bucket() {
        let bucket = Path::new("/b");
        assert_eq!(key_path(bucket, "p/AWSDynamoDB/x"), Some(PathBuf::from("/b/p/AWSDynamoDB/x")));
        for key in ["../x", "p/../../x", "/abs", "p//x", "p/./x"] {
            assert_eq!(key_path(bucket, key), None, "{key}");
        }
        assert_eq!(bucket_dir(Path::new("/"), ".."), None);
    }
}
