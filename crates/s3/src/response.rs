//! S3's error responses: `<Error><Code>NoSuchBucket</Code><Message>…</Message></Error>`.

use monotable_engine::ObjectStoreError;

/// The failure an S3 error response stands for. `NoSuchBucket` is the engine's own case
/// (the job fails with `S3NoSuchBucket`); anything else keeps S3's code and message.
pub(crate) fn failure(operation: &str, key: &str, status: u16, body: &str) -> ObjectStoreError {
    let code = element(body, "Code");
    if code == Some("NoSuchBucket") {
        return ObjectStoreError::NoSuchBucket;
    }
    let detail = match (code, element(body, "Message")) {
        (Some(code), Some(message)) => format!("{code}: {message}"),
        (Some(code), None) => code.to_owned(),
        _ => format!("HTTP {status}"),
    };
    ObjectStoreError::Failed(format!("S3 {operation} {key}: {detail}"))
}

/// The text of the first `<name>` element, if there is one. S3's codes and messages hold
/// no markup; entities are left as they are.
fn element<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    let start = body.find(&format!("<{name}>"))? + name.len() + 2;
    let len = body[start..].find(&format!("</{name}>"))?;
    Some(&body[start..start + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_such_bucket_is_the_engines_own_failure() {
        let body = "<?xml version=\"1.0\"?><Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>";
        assert_eq!(failure("PutObject", "k", 404, body), ObjectStoreError::NoSuchBucket);
    }

    #[test]
    fn other_errors_keep_s3s_code_and_message() {
        let body = "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>";
        assert_eq!(
            failure("GetObject", "p/k", 403, body),
            ObjectStoreError::Failed("S3 GetObject p/k: AccessDenied: Access Denied".into())
        );
        assert_eq!(
            failure("GetObject", "k", 502, ""),
            ObjectStoreError::Failed("S3 GetObject k: HTTP 502".into())
        );
    }
}
