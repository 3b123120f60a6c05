//! Recursive-descent parsers for the four grammars (syntax only).
//!
//! Precedence, loosest first: `OR`, `AND`, `NOT`, then comparisons, `BETWEEN`, `IN` and
//! functions; parentheses group. A parenthesised group may hold either a condition or an
//! operand (`(a) = :v` is valid), so the condition parser works on [`Node`]s that are one or
//! the other and decides when it sees what follows.
//!
//! Invariants: recursion depth is bounded by [`MAX_NESTING`] (every recursive descent goes
//! through [`Parser::enter`]); no token access can go out of range because the token list
//! always ends with `Eof` and the cursor never moves past it; the parse stops at the
//! operator that takes the count over [`MAX_OPERATORS`] (every operator and function goes
//! through [`Parser::operator`]).

use crate::ast::{Comparator, Condition, FunctionCall, Operand, Path, PathElement, Projection};
use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::lexer::{tokenize, Token, TokenKind};

/// The deepest nesting of parentheses, `NOT`s and function calls accepted: a guard for the
/// recursion, which DynamoDB does not have (its limit is [`MAX_OPERATORS`], which allows 299
/// nested `NOT`s). It stays at 100 because an unoptimised build's descent through a level of
/// parentheses takes about 16 KB of stack, and a test thread has 2 MB.
pub const MAX_NESTING: usize = 100;

/// The most operators and functions DynamoDB accepts in one expression (Constraints in Amazon
/// DynamoDB, "Expression parameters": "The maximum number of operators or functions allowed
/// in any expression is 300").
pub const MAX_OPERATORS: usize = 300;

/// The longest expression DynamoDB accepts, in bytes (4 KB).
pub const MAX_EXPRESSION_BYTES: usize = 4096;

/// A parsed piece of a condition: not yet known to be a condition or an operand.
pub(crate) enum Node {
    Cond(Condition),
    Operand(Operand),
}

pub(crate) struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    pub(crate) kind: ExpressionKind,
    depth: usize,
    operators: usize,
}

/// Checks the length and emptiness rules DynamoDB applies before parsing.
pub(crate) fn check_text(text: &str, kind: ExpressionKind) -> Result<(), ExprError> {
    if text.len() > MAX_EXPRESSION_BYTES {
        return Err(ExprError::invalid(
            kind,
            ErrorKind::TooLong,
            format_args!(
                "Expression size has exceeded the maximum allowed size; expression size: {}",
                text.len()
            ),
        ));
    }
    if text.is_empty() {
        return Err(ExprError::invalid(kind, ErrorKind::Empty, "The expression can not be empty;"));
    }
    Ok(())
}

fn comparator(kind: TokenKind) -> Option<Comparator> {
    Some(match kind {
        TokenKind::Eq => Comparator::Eq,
        TokenKind::Ne => Comparator::Ne,
        TokenKind::Lt => Comparator::Lt,
        TokenKind::Le => Comparator::Le,
        TokenKind::Gt => Comparator::Gt,
        TokenKind::Ge => Comparator::Ge,
        _ => return None,
    })
}

/// Words that are keywords of the expression languages in every grammar: never a name.
pub(crate) const KEYWORDS: [&str; 9] =
    ["AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"];

/// The largest list index DynamoDB accepts (Java's `Integer.MAX_VALUE`).
const MAX_INDEX: usize = 2_147_483_647;

impl<'a> Parser<'a> {
    pub(crate) fn new(text: &'a str, kind: ExpressionKind) -> Result<Parser<'a>, ExprError> {
        check_text(text, kind)?;
        Ok(Parser { text, tokens: tokenize(text), pos: 0, kind, depth: 0, operators: 0 })
    }

    fn token(&self, index: usize) -> Token {
        // The list always ends with Eof; clamp so that lookahead past it sees Eof.
        let last = self.tokens.len().saturating_sub(1);
        self.tokens.get(index.min(last)).copied().unwrap_or(Token { kind: TokenKind::Eof, start: 0, end: 0 })
    }

    pub(crate) fn peek(&self) -> Token {
        self.token(self.pos)
    }

    pub(crate) fn peek_kind(&self) -> TokenKind {
        self.peek().kind
    }

    pub(crate) fn advance(&mut self) -> Token {
        let t = self.peek();
        if t.kind != TokenKind::Eof {
            self.pos += 1;
        }
        t
    }

    pub(crate) fn text_of(&self, t: Token) -> &'a str {
        self.text.get(t.start..t.end).unwrap_or("")
    }

    /// True when the current token is the keyword `word` (case-insensitive).
    pub(crate) fn at_keyword(&self, word: &str) -> bool {
        let t = self.peek();
        t.kind == TokenKind::Ident && self.text_of(t).eq_ignore_ascii_case(word)
    }

    pub(crate) fn is_keyword_token(&self, t: Token) -> bool {
        t.kind == TokenKind::Ident && KEYWORDS.iter().any(|w| self.text_of(t).eq_ignore_ascii_case(w))
    }

    /// DynamoDB's syntax error at the current token: the token's text (`<EOF>` at the end)
    /// and the source from the previous token (or the start) through the next one.
    pub(crate) fn syntax_error(&self) -> ExprError {
        let cur = self.peek();
        let token = if cur.kind == TokenKind::Eof { "<EOF>" } else { self.text_of(cur) };
        let from = if self.pos > 0 { self.token(self.pos - 1).start } else { 0 };
        let next = self.token(self.pos + 1);
        let to = if cur.kind == TokenKind::Eof {
            self.text.len()
        } else if next.kind == TokenKind::Eof {
            cur.end
        } else {
            next.end
        };
        let near = self.text.get(from..to).unwrap_or("");
        ExprError::invalid(
            self.kind,
            ErrorKind::Syntax,
            format_args!("Syntax error; token: \"{token}\", near: \"{near}\""),
        )
    }

    pub(crate) fn expect(&mut self, kind: TokenKind) -> Result<Token, ExprError> {
        if self.peek_kind() == kind {
            Ok(self.advance())
        } else {
            Err(self.syntax_error())
        }
    }

    pub(crate) fn expect_eof(&self) -> Result<(), ExprError> {
        if self.peek_kind() == TokenKind::Eof {
            Ok(())
        } else {
            Err(self.syntax_error())
        }
    }

    /// Enters one nesting level; the caller must call [`Parser::leave`] on success.
    pub(crate) fn enter(&mut self) -> Result<(), ExprError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ExprError::invalid(
                self.kind,
                ErrorKind::TooDeep,
                format_args!("The expression is nested too deeply; maximum nesting: {MAX_NESTING}"),
            ));
        }
        Ok(())
    }

    /// Counts `n` operators or functions. DynamoDB stops at the one over the limit, so its
    /// message always says 301 (recorded from the real service in the aws/aws-sdk-js issue
    /// thread "Invalid FilterExpression: The expression contains too many operators; operator
    /// count: 301", whose expression had more).
    pub(crate) fn operator(&mut self, n: usize) -> Result<(), ExprError> {
        self.operators += n;
        if self.operators > MAX_OPERATORS {
            return Err(ExprError::invalid(
                self.kind,
                ErrorKind::TooManyOperators,
                format_args!(
                    "The expression contains too many operators; operator count: {}",
                    MAX_OPERATORS + 1
                ),
            ));
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// DynamoDB's error for two pairs of parentheses straight around one thing, which it
    /// reports as soon as it reads the outer pair, before any later syntax error.
    fn redundant_parens(&self) -> ExprError {
        ExprError::invalid(
            self.kind,
            ErrorKind::RedundantParentheses,
            "The expression has redundant parentheses;",
        )
    }

    // ---- paths and operands (shared) ----

    /// A path starting at the current token.
    pub(crate) fn parse_path(&mut self) -> Result<Path, ExprError> {
        let mut elements = vec![self.path_name()?];
        loop {
            match self.peek_kind() {
                TokenKind::Dot => {
                    self.advance();
                    elements.push(self.path_name()?);
                }
                TokenKind::LBracket => {
                    self.advance();
                    let t = self.peek();
                    if t.kind != TokenKind::Integer {
                        return Err(self.syntax_error());
                    }
                    let digits = self.text_of(t);
                    let index =
                        digits.parse::<usize>().ok().filter(|i| *i <= MAX_INDEX).ok_or_else(|| {
                            ExprError::invalid(
                                self.kind,
                                ErrorKind::IndexOutOfRange,
                                format_args!(
                                    "List index is not within the allowable range; index: [{digits}]"
                                ),
                            )
                        })?;
                    self.advance();
                    self.expect(TokenKind::RBracket)?;
                    elements.push(PathElement::Index(index));
                }
                _ => return Ok(Path { elements }),
            }
        }
    }

    fn path_name(&mut self) -> Result<PathElement, ExprError> {
        let t = self.peek();
        match t.kind {
            TokenKind::Ident if !self.is_keyword_token(t) => {
                self.advance();
                Ok(PathElement::Name(self.text_of(t).to_owned()))
            }
            TokenKind::Name => {
                self.advance();
                Ok(PathElement::Placeholder(self.text_of(t).to_owned()))
            }
            _ => Err(self.syntax_error()),
        }
    }

    /// A path, a `:value` or a function call.
    pub(crate) fn parse_operand(&mut self) -> Result<Operand, ExprError> {
        let t = self.peek();
        match t.kind {
            TokenKind::Value => {
                self.advance();
                Ok(Operand::Value(self.text_of(t).to_owned()))
            }
            TokenKind::Ident if self.token(self.pos + 1).kind == TokenKind::LParen => {
                if self.is_keyword_token(t) {
                    return Err(self.syntax_error());
                }
                self.advance();
                self.advance();
                self.operator(1)?;
                self.enter()?;
                let mut args = vec![self.parse_operand_parens()?];
                while self.peek_kind() == TokenKind::Comma {
                    self.advance();
                    args.push(self.parse_operand_parens()?);
                }
                self.expect(TokenKind::RParen)?;
                self.leave();
                Ok(Operand::Function(FunctionCall { name: self.text_of(t).to_owned(), args }))
            }
            _ => self.parse_path().map(Operand::Path),
        }
    }

    /// An operand, optionally in parentheses.
    pub(crate) fn parse_operand_parens(&mut self) -> Result<Operand, ExprError> {
        self.parse_operand_group().map(|(operand, _)| operand)
    }

    /// An operand, optionally in parentheses; also says whether it was parenthesised.
    fn parse_operand_group(&mut self) -> Result<(Operand, bool), ExprError> {
        if self.peek_kind() != TokenKind::LParen {
            return Ok((self.parse_operand()?, false));
        }
        self.advance();
        self.enter()?;
        let (inner, grouped) = self.parse_operand_group()?;
        self.expect(TokenKind::RParen)?;
        if grouped {
            return Err(self.redundant_parens());
        }
        self.leave();
        Ok((inner, true))
    }

    // ---- conditions ----

    pub(crate) fn parse_condition(&mut self) -> Result<Condition, ExprError> {
        let (node, _) = self.parse_or()?;
        let cond = self.to_condition(node)?;
        self.expect_eof()?;
        Ok(cond)
    }

    /// A node that must be a condition: functions used alone are conditions; anything else
    /// is a syntax error at the current token.
    fn to_condition(&self, node: Node) -> Result<Condition, ExprError> {
        match node {
            Node::Cond(c) => Ok(c),
            Node::Operand(Operand::Function(call)) => Ok(Condition::Function(call)),
            Node::Operand(_) => Err(self.syntax_error()),
        }
    }

    /// Returns the node and whether it is exactly one parenthesised group.
    fn parse_or(&mut self) -> Result<(Node, bool), ExprError> {
        let (first, grouped) = self.parse_and()?;
        if !self.at_keyword("OR") {
            return Ok((first, grouped));
        }
        let mut list = vec![self.to_condition(first)?];
        while self.at_keyword("OR") {
            self.advance();
            self.operator(1)?;
            let (next, _) = self.parse_and()?;
            list.push(self.to_condition(next)?);
        }
        Ok((Node::Cond(Condition::Or(list)), false))
    }

    fn parse_and(&mut self) -> Result<(Node, bool), ExprError> {
        let (first, grouped) = self.parse_not()?;
        if !self.at_keyword("AND") {
            return Ok((first, grouped));
        }
        let mut list = vec![self.to_condition(first)?];
        while self.at_keyword("AND") {
            self.advance();
            self.operator(1)?;
            let (next, _) = self.parse_not()?;
            list.push(self.to_condition(next)?);
        }
        Ok((Node::Cond(Condition::And(list)), false))
    }

    fn parse_not(&mut self) -> Result<(Node, bool), ExprError> {
        if !self.at_keyword("NOT") {
            return self.parse_primary();
        }
        self.advance();
        self.operator(1)?;
        self.enter()?;
        let (inner, _) = self.parse_not()?;
        let c = self.to_condition(inner)?;
        self.leave();
        Ok((Node::Cond(Condition::Not(Box::new(c))), false))
    }

    fn parse_primary(&mut self) -> Result<(Node, bool), ExprError> {
        let (node, grouped) = if self.peek_kind() == TokenKind::LParen {
            self.advance();
            self.enter()?;
            let (inner, inner_grouped) = self.parse_or()?;
            self.expect(TokenKind::RParen)?;
            if inner_grouped {
                return Err(self.redundant_parens());
            }
            self.leave();
            (inner, true)
        } else {
            (Node::Operand(self.parse_operand()?), false)
        };
        let Node::Operand(left) = node else { return Ok((node, grouped)) };
        let t = self.peek();
        if let Some(op) = comparator(t.kind) {
            self.advance();
            self.operator(1)?;
            let right = self.parse_operand_parens()?;
            return Ok((Node::Cond(Condition::Compare(left, op, right)), false));
        }
        if self.at_keyword("BETWEEN") {
            self.advance();
            // BETWEEN counts twice, itself and its AND (the AWS code example "Count
            // expression operators in DynamoDB with an AWS SDK").
            self.operator(2)?;
            let low = self.parse_operand_parens()?;
            if !self.at_keyword("AND") {
                return Err(self.syntax_error());
            }
            self.advance();
            let high = self.parse_operand_parens()?;
            return Ok((Node::Cond(Condition::Between(left, low, high)), false));
        }
        if self.at_keyword("IN") {
            self.advance();
            self.operator(1)?;
            self.expect(TokenKind::LParen)?;
            let mut list = vec![self.parse_operand_parens()?];
            while self.peek_kind() == TokenKind::Comma {
                self.advance();
                list.push(self.parse_operand_parens()?);
            }
            self.expect(TokenKind::RParen)?;
            return Ok((Node::Cond(Condition::In(left, list)), false));
        }
        Ok((Node::Operand(left), grouped))
    }

    // ---- projections ----

    pub(crate) fn parse_projection(&mut self) -> Result<Projection, ExprError> {
        let mut paths = vec![self.parse_path()?];
        while self.peek_kind() == TokenKind::Comma {
            self.advance();
            paths.push(self.parse_path()?);
        }
        self.expect_eof()?;
        Ok(Projection { paths })
    }
}
