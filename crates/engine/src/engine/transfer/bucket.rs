//! Buckets as directories: S3 keys to paths, and S3's "no such bucket".

use std::path::{Path, PathBuf};

/// DynamoDB's failure for a bucket that does not exist (moto's AWS-verified
/// test_export_to_missing_s3_bucket / test_import_from_missing_s3_table: FailureCode
/// `S3NoSuchBucket`, a message containing "The specified bucket does not exist").
pub(super) const NO_SUCH_BUCKET: (&str, &str) = ("S3NoSuchBucket", "The specified bucket does not exist");

/// The directory of bucket `name`, if the bucket exists. A name that is not a single path
/// segment names no bucket.
pub(super) fn bucket_dir(root: &Path, name: &str) -> Option<PathBuf> {
    let valid = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\']);
    let dir = root.join(name);
    (valid && dir.is_dir()).then_some(dir)
}

/// The path of `key` in `bucket`, or `None` when a segment would leave the bucket (`..`),
/// or is empty or `.`.
pub(super) fn key_path(bucket: &Path, key: &str) -> Option<PathBuf> {
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
pub(super) fn list_keys(bucket: &Path, prefix: &str) -> std::io::Result<Vec<String>> {
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
pub(super) fn iso8601(epoch_seconds: f64) -> String {
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
