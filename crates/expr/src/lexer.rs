//! The tokenizer shared by all expression grammars.
//!
//! Tokens are identifiers (`[A-Za-z][A-Za-z0-9_]*`; keywords are identifiers the parser
//! recognises case-insensitively), `#name` and `:value` placeholders, unsigned integers (list
//! indexes: `0` or a non-zero digit followed by digits), and punctuation. Anything else becomes an [`TokenKind::Invalid`] token of one
//! character, which the parser reports as a syntax error naming that character, as DynamoDB
//! does (`SET _a` fails with token `"_"`).
//!
//! Invariant: every token's `start..end` is a char-boundary range of the source text.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Ident,
    /// `#name`.
    Name,
    /// `:value`.
    Value,
    /// Decimal digits.
    Integer,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Plus,
    Minus,
    /// A character no token starts with.
    Invalid,
    /// End of input.
    Eof,
}

/// One token: its kind and its byte range in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Splits `text` into tokens, ending with one [`TokenKind::Eof`] token.
pub fn tokenize(text: &str) -> Vec<Token> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
            i += 1;
            continue;
        }
        let start = i;
        let word_end = |from: usize| {
            let mut j = from;
            while bytes.get(j).is_some_and(|b| is_word_byte(*b)) {
                j += 1;
            }
            j
        };
        let (kind, end) = match b {
            b'a'..=b'z' | b'A'..=b'Z' => (TokenKind::Ident, word_end(i + 1)),
            // An integer is `0` or starts with a non-zero digit: `007` is three tokens.
            b'0' => (TokenKind::Integer, i + 1),
            b'1'..=b'9' => {
                let mut j = i + 1;
                while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                    j += 1;
                }
                (TokenKind::Integer, j)
            }
            b'#' | b':' => {
                let j = word_end(i + 1);
                if j == i + 1 {
                    (TokenKind::Invalid, i + 1)
                } else if b == b'#' {
                    (TokenKind::Name, j)
                } else {
                    (TokenKind::Value, j)
                }
            }
            b'(' => (TokenKind::LParen, i + 1),
            b')' => (TokenKind::RParen, i + 1),
            b'[' => (TokenKind::LBracket, i + 1),
            b']' => (TokenKind::RBracket, i + 1),
            b',' => (TokenKind::Comma, i + 1),
            b'.' => (TokenKind::Dot, i + 1),
            b'+' => (TokenKind::Plus, i + 1),
            b'-' => (TokenKind::Minus, i + 1),
            b'=' => (TokenKind::Eq, i + 1),
            b'<' => match bytes.get(i + 1) {
                Some(b'>') => (TokenKind::Ne, i + 2),
                Some(b'=') => (TokenKind::Le, i + 2),
                _ => (TokenKind::Lt, i + 1),
            },
            b'>' => match bytes.get(i + 1) {
                Some(b'=') => (TokenKind::Ge, i + 2),
                _ => (TokenKind::Gt, i + 1),
            },
            _ => {
                // One whole character, so that the range stays on char boundaries.
                let len = text.get(i..).and_then(|rest| rest.chars().next()).map_or(1, char::len_utf8);
                (TokenKind::Invalid, i + len)
            }
        };
        tokens.push(Token { kind, start, end });
        i = end;
    }
    tokens.push(Token { kind: TokenKind::Eof, start: bytes.len(), end: bytes.len() });
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind> {
        tokenize(text).into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn operators_take_the_longest_match() {
        use TokenKind::*;
        assert_eq!(
            kinds("a<>b<=c>=d<e>f=g"),
            [Ident, Ne, Ident, Le, Ident, Ge, Ident, Lt, Ident, Gt, Ident, Eq, Ident, Eof]
        );
    }

    #[test]
    fn placeholders_and_indexes_are_single_tokens() {
        use TokenKind::*;
        assert_eq!(kinds("#n.a[12] :v_1"), [Name, Dot, Ident, LBracket, Integer, RBracket, Value, Eof]);
    }

    #[test]
    fn leading_underscore_and_bare_sigils_are_invalid() {
        use TokenKind::*;
        assert_eq!(kinds("_a"), [Invalid, Ident, Eof]);
        assert_eq!(kinds("# :"), [Invalid, Invalid, Eof]);
        assert_eq!(kinds("é"), [Invalid, Eof]);
    }
}
