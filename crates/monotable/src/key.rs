//! Key parts, escaping and template rendering (S5).
//!
//! Invariant: a rendered placeholder value never contains the delimiter `#`, nor any
//! character at or below it (`\0`..=`#`), nor a raw `%`: those characters are written as `%XX`
//! (upper-case hex of each UTF-8 byte; [`escape`], defined in `monotable-design` so that the
//! design tools render keys exactly as the library does). Hence
//! - a value cannot forge another entity's key by smuggling a delimiter (`a#PROFILE` is stored
//!   as `a%23PROFILE`);
//! - escaping is injective (`%` itself is escaped), so two different values never render alike;
//! - every escaped character sorts after `#`, which is what makes typed sort-key ranges exact.
//!
//! Empty values are refused: `ORG#` with an empty org id would be a key no one meant.

use std::borrow::Cow;

pub use monotable_design::{escape, unescape};

use crate::error::{Error, ValidationErrors};
use crate::schema::{Segment, Template};

/// Maximum length in bytes of a DynamoDB partition key (2048) – sort keys allow 1024.
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// Maximum length in bytes of a DynamoDB sort key.
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// A value that can fill a key-template placeholder.
///
/// Implemented for strings, integers, `bool`, `char` and `Option` of those; implement it for
/// your own id newtypes. The returned text is escaped by the library, so implementations
/// return the raw value. `None` means "absent": refused in a table key, and it leaves the item
/// out of a GSI (a sparse index, S7).
pub trait KeyPart {
    /// The raw (unescaped) text of this value, or `None` if absent.
    fn key_part(&self) -> Option<Cow<'_, str>>;
}

impl KeyPart for String {
    fn key_part(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self))
    }
}
impl KeyPart for str {
    fn key_part(&self) -> Option<Cow<'_, str>> {
        Some(Cow::Borrowed(self))
    }
}
impl<T: KeyPart + ?Sized> KeyPart for &T {
    fn key_part(&self) -> Option<Cow<'_, str>> {
        (**self).key_part()
    }
}
impl<T: KeyPart + ?Sized> KeyPart for Box<T> {
    fn key_part(&self) -> Option<Cow<'_, str>> {
        (**self).key_part()
    }
}
impl<T: KeyPart> KeyPart for Option<T> {
    fn key_part(&self) -> Option<Cow<'_, str>> {
        self.as_ref().and_then(KeyPart::key_part)
    }
}
macro_rules! display_key_part {
    ($($t:ty),*) => {$(
        impl KeyPart for $t {
            fn key_part(&self) -> Option<Cow<'_, str>> {
                Some(Cow::Owned(self.to_string()))
            }
        }
    )*};
}
display_key_part!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, bool, char);

/// Renders a template; `value` returns the raw value of a placeholder, or `None` if unknown.
///
/// `what` names the key for error messages (`"pk"`, `"gsi1sk"`).
pub fn render<'a>(
    template: &Template,
    what: &str,
    mut value: impl FnMut(&str) -> Option<Cow<'a, str>>,
) -> Result<String, Error> {
    let mut out = String::new();
    for seg in template.segments {
        match seg {
            Segment::Lit(l) => out.push_str(l),
            Segment::Field(f) => {
                let raw = value(f).ok_or_else(|| {
                    Error::Validation(ValidationErrors::field(
                        *f,
                        format!("needed by the {what} template `{}`", template.source),
                    ))
                })?;
                if raw.is_empty() {
                    return Err(Error::Validation(ValidationErrors::field(
                        *f,
                        "a key value cannot be empty",
                    )));
                }
                out.push_str(&escape(&raw));
            }
        }
    }
    let max = if what.ends_with("pk") { MAX_PARTITION_KEY_BYTES } else { MAX_SORT_KEY_BYTES };
    if out.len() > max {
        return Err(Error::Validation(ValidationErrors::field(
            what,
            format!("the rendered key is {} bytes; DynamoDB allows at most {max}", out.len()),
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Template =
        Template { source: "USER#{id}", segments: &[Segment::Lit("USER#"), Segment::Field("id")] };

    #[test]
    fn s5_delimiter_in_a_value_is_escaped_not_interpreted() {
        let key = render(&T, "pk", |_| Some(Cow::Borrowed("a#PROFILE"))).unwrap();
        assert_eq!(key, "USER#a%23PROFILE");
        assert_eq!(unescape("a%23PROFILE").as_deref(), Some("a#PROFILE"));
    }

    #[test]
    fn s5_escape_is_injective_for_percent() {
        assert_ne!(escape("%23"), escape("#"));
        assert_eq!(unescape(&escape("%23")).as_deref(), Some("%23"));
    }

    #[test]
    fn s5_empty_key_value_is_refused() {
        let err = render(&T, "pk", |_| Some(Cow::Borrowed(""))).unwrap_err();
        assert!(matches!(err, Error::Validation(_)), "{err}");
    }

    #[test]
    fn s5_oversized_key_is_refused() {
        let long = "x".repeat(3000);
        assert!(matches!(
            render(&T, "pk", |_| Some(Cow::Borrowed(long.as_str()))),
            Err(Error::Validation(_))
        ));
    }

    #[test]
    fn escaped_characters_all_sort_after_the_delimiter() {
        for c in ['\0', '\n', ' ', '!', '"', '#', '%', '$', 'a', 'é', '😀'] {
            let e = escape(&c.to_string());
            assert!(e.chars().all(|e| e > '#'), "{c:?} -> {e}");
        }
    }

    proptest::proptest! {
        #[test]
        fn escape_round_trips_and_never_contains_the_delimiter(s in ".*") {
            let e = escape(&s);
            proptest::prop_assert!(!e.contains('#'));
            proptest::prop_assert_eq!(unescape(&e), Some(s));
        }
    }
}
