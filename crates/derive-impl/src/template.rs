//! Key templates such as `ORG#{org_id}` or `RECORD#{created}#{id}`.
//!
//! Invariants checked here at compile time: braces balance, placeholders are non-empty
//! identifiers, and every placeholder is followed by the end of the template or by the
//! delimiter `#`. The last rule is what lets the runtime turn typed sort-key conditions
//! (`lt`, `between`, …) into exact key ranges.

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// Literal text copied into the key.
    Lit(String),
    /// A placeholder naming a struct field.
    Field(String),
}

/// Parses a template, returning a human-readable message on error.
pub fn parse_template(source: &str) -> Result<Vec<Segment>, String> {
    let mut segments = Vec::new();
    let mut literal = String::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' => {
                let mut name = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == '}' {
                        closed = true;
                        break;
                    }
                    name.push(c);
                }
                if !closed {
                    return Err(format!("unclosed `{{` in key template `{source}`"));
                }
                if name.is_empty() || !is_identifier(&name) {
                    return Err(format!("`{{{name}}}` in key template `{source}` is not a field name"));
                }
                if !literal.is_empty() {
                    segments.push(Segment::Lit(std::mem::take(&mut literal)));
                }
                match chars.peek() {
                    None | Some('#') => {}
                    Some(_) => {
                        return Err(format!(
                            "placeholder `{{{name}}}` in key template `{source}` must be followed by `#` or the end"
                        ))
                    }
                }
                segments.push(Segment::Field(name));
            }
            '}' => return Err(format!("unmatched `}}` in key template `{source}`")),
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        segments.push(Segment::Lit(literal));
    }
    if segments.is_empty() {
        return Err("a key template cannot be empty".to_string());
    }
    Ok(segments)
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
