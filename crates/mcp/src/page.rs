//! Output bounded in size: a tool's text longer than the limit is returned a page at a time,
//! each page ending with the cursor that continues it.
//!
//! Invariant: a cursor is the byte offset of the next page in the tool's full text, always on
//! a UTF-8 character boundary; the same call with that cursor returns the text from there.

use crate::error::ToolError;

/// The default page size: 64 KiB of text.
pub const DEFAULT_MAX_OUTPUT: usize = 64 * 1024;

/// The page of `text` starting at `cursor` (none: the start), at most `max` bytes, and the
/// cursor of the page after it when there is one.
pub(crate) fn page<'t>(
    text: &'t str,
    cursor: Option<&str>,
    max: usize,
) -> Result<(&'t str, Option<String>), ToolError> {
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|&n| n <= text.len() && text.is_char_boundary(n))
            .ok_or_else(|| {
                ToolError::bad(format!(
                    "`cursor` {c:?} is not one this tool returned for these arguments; call again without it to start over"
                ))
            })?,
    };
    let rest = &text[start..];
    if rest.len() <= max {
        return Ok((rest, None));
    }
    let mut end = max.max(1);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    if end == 0 {
        end = rest.char_indices().nth(1).map_or(rest.len(), |(i, _)| i);
    }
    Ok((&rest[..end], Some((start + end).to_string())))
}

/// `text` with the note an agent needs to continue it, when `next` says there is more.
pub(crate) fn with_note(tool: &str, page: &str, next: Option<&str>, total: usize) -> String {
    match next {
        None => page.to_string(),
        Some(cursor) => format!(
            "{page}\n\n[truncated: {total} bytes in all, this page ends at byte {cursor}. Call {tool} again with the same arguments and \"cursor\": \"{cursor}\" for the rest.]"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::page;

    #[test]
    fn a_short_text_is_one_page_without_a_cursor() {
        assert_eq!(page("abc", None, 10).unwrap(), ("abc", None));
    }

    #[test]
    fn pages_joined_in_cursor_order_give_the_text_back() {
        let text = "é".repeat(100) + "end";
        let (mut out, mut cursor) = (String::new(), None::<String>);
        loop {
            let (p, next) = page(&text, cursor.as_deref(), 7).unwrap();
            assert!(p.len() <= 7);
            out.push_str(p);
            match next {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        assert_eq!(out, text);
    }

    #[test]
    fn a_cursor_inside_a_character_or_past_the_end_is_refused() {
        assert!(page("é", Some("1"), 10).is_err());
        assert!(page("abc", Some("4"), 10).is_err());
        assert!(page("abc", Some("x"), 10).is_err());
    }
}
