//! The tokenizer: statement text to a vector of tokens with their byte offsets.

use crate::Error;

/// One token. Keywords are not told apart from identifiers here: the parser compares
/// [`Token::Word`]s case-insensitively, and a double-quoted name is always an identifier.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Token {
    /// A bare word (identifier or keyword), as written.
    Word(String),
    /// A double-quoted identifier, unescaped.
    Quoted(String),
    /// A single-quoted string literal, unescaped.
    Str(String),
    /// A number literal's text (digits, optional fraction and exponent; no sign).
    Number(String),
    /// `?`
    Param,
    /// Punctuation and operators: `( ) [ ] { } , . : * = <> != < <= > >= + - << >> ;`
    Punct(&'static str),
}

/// A token and the byte offset where it starts.
pub(crate) type Spanned = (Token, usize);

const PUNCT: &[&str] = &[
    "<<", ">>", "<>", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "*", "=", "<", ">", "+",
    "-", ";",
];

/// Splits `text` into tokens. Comments are not part of DynamoDB's PartiQL and are refused.
pub(crate) fn tokenize(text: &str) -> Result<Vec<Spanned>, Error> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push((Token::Word(text[start..i].to_owned()), start));
        } else if c.is_ascii_digit() {
            i = number_end(bytes, i);
            if i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
                return Err(Error::syntax(start, format!("unexpected character at {start}")));
            }
            out.push((Token::Number(text[start..i].to_owned()), start));
        } else if c == b'\'' || c == b'"' {
            let (value, end) = quoted(text, i, c)?;
            i = end;
            out.push((if c == b'"' { Token::Quoted(value) } else { Token::Str(value) }, start));
        } else if c == b'?' {
            i += 1;
            out.push((Token::Param, start));
        } else if let Some(p) = PUNCT.iter().find(|p| text[i..].starts_with(**p)) {
            i += p.len();
            out.push((Token::Punct(p), start));
        } else {
            return Err(Error::syntax(start, format!("unexpected character at {start}")));
        }
    }
    Ok(out)
}

/// The end of the number starting at `i`: digits, an optional `.digits`, an optional
/// exponent (`e`, optional sign, digits; only taken when digits follow).
fn number_end(bytes: &[u8], mut i: usize) -> usize {
    let digits = |bytes: &[u8], mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(bytes, i);
    if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
        i = digits(bytes, i + 1);
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            i = digits(bytes, j);
        }
    }
    i
}

/// A quoted token starting at `start` (the quote `q`); a doubled quote stands for one.
/// Returns the unescaped text and the offset after the closing quote.
fn quoted(text: &str, start: usize, q: u8) -> Result<(String, usize), Error> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut i = start + 1;
    let mut run = i;
    loop {
        match bytes.get(i) {
            None => return Err(Error::syntax(start, format!("unterminated quoted text at {start}"))),
            Some(&c) if c == q => {
                out.push_str(&text[run..i]);
                if bytes.get(i + 1) == Some(&q) {
                    out.push(q as char);
                    i += 2;
                    run = i;
                } else {
                    return Ok((out, i + 1));
                }
            }
            Some(_) => i += 1,
        }
    }
}
