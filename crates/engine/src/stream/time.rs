//! Clock helpers: epoch milliseconds and DynamoDB's ISO-8601 stream labels.

use std::time::{SystemTime, UNIX_EPOCH};

use monotable_types::civil_from_days;

/// Milliseconds since the Unix epoch.
pub(crate) fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

/// The UTC time `ms` as DynamoDB writes stream labels: `2015-05-11T21:21:33.291`.
pub(crate) fn iso_label(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}", rem / 3600, rem % 3600 / 60, rem % 60, ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_iso_8601_utc_with_milliseconds() {
        assert_eq!(iso_label(0), "1970-01-01T00:00:00.000");
        // 2015-05-11T21:21:33.291Z, the label in the DynamoDB Streams API reference examples.
        assert_eq!(iso_label(1_431_379_293_291), "2015-05-11T21:21:33.291");
        assert_eq!(iso_label(951_782_400_000), "2000-02-29T00:00:00.000");
    }
}
