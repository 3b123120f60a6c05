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

/// What is wrong with a refused key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TemplateFault {
    /// The template is empty.
    Empty,
    /// A `{` with no `}` after it.
    Unclosed,
    /// `{}`: a placeholder without a field name.
    EmptyPlaceholder,
    /// A `{` inside a placeholder.
    Nested,
    /// A placeholder followed by something other than `#` or the end.
    NoDelimiter,
    /// A `}` outside a placeholder.
    Unopened,
}

/// A refused key template and the place where it breaks: `column` is the 1-based character
/// position of the character at fault (the `{` of an unclosed or empty placeholder, the inner
/// `{` of a nested one, the character after a placeholder, the stray `}`; 1 when empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// The template as written.
    pub template: String,
    /// What is wrong.
    pub fault: TemplateFault,
    /// Where, counted in characters from 1.
    pub column: usize,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.fault {
            TemplateFault::Empty => return f.write_str("key template is empty"),
            TemplateFault::Unclosed => "unclosed `{`",
            TemplateFault::EmptyPlaceholder => "empty placeholder `{}`",
            TemplateFault::Nested => "nested `{` inside a placeholder",
            TemplateFault::NoDelimiter => "a placeholder must be followed by `#` or the end",
            TemplateFault::Unopened => "`}` without `{`",
        };
        write!(f, "key template `{}`: {why} at column {}", self.template, self.column)
    }
}

impl std::error::Error for TemplateError {}

impl From<TemplateError> for DesignError {
    fn from(e: TemplateError) -> DesignError {
        DesignError::Template(e.to_string())
    }
}

impl<'a> Template<'a> {
    /// Parses a template. Refused, at the first fault from the left: an empty template, an
    /// unclosed, empty or nested placeholder, a placeholder not followed by the end or by `#`
    /// (the library's delimiter invariant), and a `}` outside a placeholder.
    pub fn parse(source: &'a str) -> Result<Template<'a>, TemplateError> {
        // `at` is a byte offset into `source`; the error counts characters.
        let bad = |fault, at: usize| TemplateError {
            template: source.to_string(),
            fault,
            column: source[..at].chars().count() + 1,
        };
        if source.is_empty() {
            return Err(bad(TemplateFault::Empty, 0));
        }
        let mut parts = Vec::new();
        let mut at = 0;
        while at < source.len() {
            let rest = &source[at..];
            let open = rest.find('{').unwrap_or(rest.len());
            if open > 0 {
                let literal = &rest[..open];
                if let Some(close) = literal.find('}') {
                    return Err(bad(TemplateFault::Unopened, at + close));
                }
                parts.push(Part::Lit(literal));
                at += open;
                continue;
            }
            let close = rest.find('}').ok_or_else(|| bad(TemplateFault::Unclosed, at))?;
            let name = &rest[1..close];
            if let Some(inner) = name.find('{') {
                return Err(bad(TemplateFault::Nested, at + 1 + inner));
            }
            if name.is_empty() {
                return Err(bad(TemplateFault::EmptyPlaceholder, at));
            }
            parts.push(Part::Var(name));
            at += close + 1;
            if at < source.len() && !source[at..].starts_with('#') {
                return Err(bad(TemplateFault::NoDelimiter, at));
            }
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
    fn malformed_templates_are_refused_at_the_column_where_they_break() {
        use TemplateFault::*;
        for (bad, fault, column) in [
            ("", Empty, 1),
            ("A#{x", Unclosed, 3),
            ("A#{}", EmptyPlaceholder, 3),
            ("A#{x{y}", Nested, 5),
            ("A#{x}B", NoDelimiter, 6),
            ("{a}{b}", NoDelimiter, 4),
            ("A}", Unopened, 2),
            ("A}#{x}", Unopened, 2),
            ("É#{x}#}", Unopened, 7),
        ] {
            let e = Template::parse(bad).unwrap_err();
            assert_eq!((e.fault, e.column), (fault, column), "{bad}");
        }
    }
}
