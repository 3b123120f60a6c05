//! Key templates such as `ORG#{org_id}#RECORD#{id}`: literals and `{field}` placeholders.

use crate::error::DesignError;

/// One piece of a parsed key template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part<'a> {
    /// Literal text, copied verbatim.
    Lit(&'a str),
    /// A placeholder, replaced by the escaped value of the named field.
    Var(&'a str),
}

/// A parsed key template borrowing its source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template<'a> {
    /// The template as written.
    pub source: &'a str,
    /// Its literals and placeholders in order.
    pub parts: Vec<Part<'a>>,
}

impl<'a> Template<'a> {
    /// Parses a template. Refused: an unclosed or empty `{}`, nested braces, and a placeholder
    /// not followed by the end or by `#` (the library's delimiter invariant).
    pub fn parse(source: &'a str) -> Result<Template<'a>, DesignError> {
        let bad = |why: &str| DesignError::Template(format!("`{source}`: {why}"));
        let mut parts = Vec::new();
        let mut rest = source;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| bad("unclosed `{`"))?;
                    let name = &rest[1..end];
                    if name.is_empty() || name.contains('{') {
                        return Err(bad("empty or nested placeholder"));
                    }
                    rest = &rest[end + 1..];
                    if !(rest.is_empty() || rest.starts_with('#')) {
                        return Err(bad("a placeholder must be followed by `#` or the end"));
                    }
                    parts.push(Part::Var(name));
                }
                Some(i) => {
                    parts.push(Part::Lit(&rest[..i]));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(bad("`}` without `{`"));
                    }
                    parts.push(Part::Lit(rest));
                    rest = "";
                }
            }
        }
        if source.is_empty() {
            return Err(bad("empty template"));
        }
        Ok(Template { source, parts })
    }

    /// The literal text before the first placeholder (the type prefix `begins_with` uses).
    pub fn literal_prefix(&self) -> String {
        let mut out = String::new();
        for p in &self.parts {
            match p {
                Part::Lit(l) => out.push_str(l),
                Part::Var(_) => break,
            }
        }
        out
    }

    /// The placeholders in order.
    pub fn vars(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(*v),
            Part::Lit(_) => None,
        })
    }

    /// Bytes of literal text (a lower bound of every rendered key's length).
    pub fn literal_len(&self) -> usize {
        self.parts.iter().map(|p| if let Part::Lit(l) = p { l.len() } else { 0 }).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_split_into_literals_and_placeholders() {
        let t = Template::parse("ORG#{org_id}#RECORD#{id}").unwrap();
        assert_eq!(
            t.parts,
            vec![Part::Lit("ORG#"), Part::Var("org_id"), Part::Lit("#RECORD#"), Part::Var("id")]
        );
        assert_eq!(t.literal_prefix(), "ORG#");
    }

    #[test]
    fn malformed_templates_are_refused() {
        for bad in ["", "A#{x", "A#{}", "A#{x}B", "A}"] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
    }
}
