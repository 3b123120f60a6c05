//! SigV4's ISO-8601 "basic format" timestamps (`20130609T094515Z`) to and from Unix seconds.
//!
//! Hand-written (civil-from-days arithmetic) because this is the only date handling the server
//! needs; the algorithms are Howard Hinnant's proleptic-Gregorian conversions.

use std::cell::Cell;

thread_local! {
    // The last timestamp this thread parsed and its value. A client signs every request of
    // the same second with the same `X-Amz-Date`, so most requests find their date here and
    // skip the field checks and the calendar arithmetic. It starts as a real pair, so the
    // cache only ever holds a string and what `parse_fields` makes of it.
    static LAST_DATE: Cell<([u8; 16], i64)> = const { Cell::new((*b"19700101T000000Z", 0)) };
}

/// Parses `YYYYMMDDTHHMMSSZ` into seconds since the Unix epoch. Anything else is `None`.
pub(crate) fn parse_amz_date(s: &str) -> Option<i64> {
    let b: &[u8; 16] = s.as_bytes().try_into().ok()?;
    let (last, value) = LAST_DATE.get();
    if *b == last {
        return Some(value);
    }
    let value = parse_fields(b)?;
    LAST_DATE.set((*b, value));
    Some(value)
}

/// [`parse_amz_date`] without the cache.
fn parse_fields(b: &[u8; 16]) -> Option<i64> {
    if b[8] != b'T' || b[15] != b'Z' {
        return None;
    }
    // Fields are fixed-width runs of ASCII digits: read them directly, without `str::parse`.
    let digits = |range: std::ops::Range<usize>| -> Option<i64> {
        b.get(range)?.iter().try_fold(0i64, |n, &c| c.is_ascii_digit().then(|| n * 10 + i64::from(c - b'0')))
    };
    let (year, month, day) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (hour, minute, second) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Formats Unix seconds as `YYYYMMDDTHHMMSSZ`.
pub(crate) fn format_amz_date(unix: i64) -> String {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400);
    let (y, m, d) = monotable_types::civil_from_days(days);
    format!("{y:04}{m:02}{d:02}T{:02}{:02}{:02}Z", secs / 3600, secs / 60 % 60, secs % 60)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_timestamps_convert_both_ways() {
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
        assert_eq!(parse_amz_date("20130609T094515Z"), Some(1_370_771_115));
        assert_eq!(format_amz_date(1_370_771_115), "20130609T094515Z");
        assert_eq!(parse_amz_date("20240229T235959Z"), Some(1_709_251_199));
        for t in [0, 951_782_400, 1_709_251_199, 4_102_444_800] {
            assert_eq!(parse_amz_date(&format_amz_date(t)), Some(t));
        }
    }

    #[test]
    fn a_repeated_date_parses_as_it_did_the_first_time() {
        // The cache answers the second look-up of each; the answers must not change, and a
        // refused string must stay refused after a valid one was cached, and the other way.
        for s in [
            "20130609T094515Z",
            "20130609T094515Z",
            "20130609T09451xZ",
            "20240229T235959Z",
            "20130609T094515Z",
        ] {
            let b: &[u8; 16] = s.as_bytes().try_into().unwrap();
            assert_eq!(parse_amz_date(s), parse_fields(b), "{s}");
            assert_eq!(parse_amz_date(s), parse_fields(b), "{s}");
        }
        assert_eq!(parse_amz_date("19700101T000000Z"), Some(0));
    }

    #[test]
    fn malformed_timestamps_are_refused() {
        for s in [
            "",
            "201",
            "20130609094515Z",
            "20130609T094515",
            "20131309T000000Z",
            "20130230T000000Z",
            "2013060xT000000Z",
            "20130609T250000Z",
            "+0130609T000000Z",
            "20130609T0945150Z",
        ] {
            assert_eq!(parse_amz_date(s), None, "{s}");
        }
    }
}
