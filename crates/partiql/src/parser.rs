//! Recursive-descent parser, statement level: tokens to a [`Statement`]. Expressions are in
//! `parse_expr.rs`.
//!
//! Precedence, loosest first: `OR`, `AND`, `NOT`, predicates (comparison, `BETWEEN`, `IN`,
//! `IS`), `+`/`-`, unary minus, primaries. Every recursion goes through [`Parser::enter`],
//! so no input nests deeper than [`MAX_NESTING`].

use crate::ast::*;
use crate::token::{tokenize, Spanned, Token};
use crate::Error;

/// The deepest nesting of parentheses, `NOT`s, unary minuses and constructors accepted.
pub const MAX_NESTING: usize = 100;

/// DynamoDB's limit on the `Statement` member (API reference, ExecuteStatement: "Length
/// Constraints: Minimum length of 1. Maximum length of 8192.").
pub const MAX_STATEMENT_CHARS: usize = 8192;

/// Words that cannot be bare names (nor function names).
pub const KEYWORDS: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "AND",
    "OR",
    "NOT",
    "IN",
    "IS",
    "BETWEEN",
    "MISSING",
    "NULL",
    "TRUE",
    "FALSE",
    "INSERT",
    "INTO",
    "VALUE",
    "UPDATE",
    "SET",
    "REMOVE",
    "DELETE",
    "RETURNING",
    "ORDER",
    "BY",
    "ASC",
    "DESC",
];

pub(crate) fn is_keyword(word: &str) -> bool {
    KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(word))
}

/// Parses one statement.
pub fn parse(text: &str) -> Result<Statement, Error> {
    if text.trim().is_empty() {
        return Err(Error::Empty);
    }
    if text.chars().count() > MAX_STATEMENT_CHARS {
        return Err(Error::TooLong);
    }
    let tokens = tokenize(text)?;
    let mut p = Parser { tokens, pos: 0, depth: 0, params: 0, end: text.len() };
    let statement = p.statement()?;
    if let Some((_, at)) = p.tokens.get(p.pos) {
        return Err(Error::syntax(*at, format!("unexpected token at {at}")));
    }
    Ok(statement)
}

pub(crate) struct Parser {
    pub(crate) tokens: Vec<Spanned>,
    pub(crate) pos: usize,
    pub(crate) depth: usize,
    pub(crate) params: usize,
    pub(crate) end: usize,
}

impl Parser {
    pub(crate) fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    pub(crate) fn offset(&self) -> usize {
        self.tokens.get(self.pos).map_or(self.end, |(_, at)| *at)
    }

    pub(crate) fn error<T>(&self, what: &str) -> Result<T, Error> {
        let at = self.offset();
        match self.tokens.get(self.pos) {
            Some(_) => Err(Error::syntax(at, format!("expected {what} at {at}"))),
            None => Err(Error::syntax(at, format!("expected {what} at end of statement"))),
        }
    }

    pub(crate) fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Error::TooDeep);
        }
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(crate) fn is_word(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w.eq_ignore_ascii_case(word))
    }

    pub(crate) fn eat_word(&mut self, word: &str) -> bool {
        let hit = self.is_word(word);
        if hit {
            self.pos += 1;
        }
        hit
    }

    pub(crate) fn expect_word(&mut self, word: &str) -> Result<(), Error> {
        if self.eat_word(word) {
            Ok(())
        } else {
            self.error(word)
        }
    }

    pub(crate) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token::Punct(q)) if *q == p)
    }

    pub(crate) fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(p);
        if hit {
            self.pos += 1;
        }
        hit
    }

    pub(crate) fn expect_punct(&mut self, p: &str) -> Result<(), Error> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.error(&format!("'{p}'"))
        }
    }

    /// A name: a double-quoted identifier or a bare word that is not a keyword.
    pub(crate) fn name(&mut self) -> Result<String, Error> {
        match self.peek() {
            Some(Token::Quoted(n)) => {
                let n = n.clone();
                self.pos += 1;
                Ok(n)
            }
            Some(Token::Word(w)) if !is_keyword(w) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => self.error("a name"),
        }
    }

    fn statement(&mut self) -> Result<Statement, Error> {
        if self.eat_word("SELECT") {
            self.select().map(Statement::Select)
        } else if self.eat_word("INSERT") {
            self.expect_word("INTO")?;
            let table = self.name()?;
            self.expect_word("VALUE")?;
            let value = self.expr()?;
            Ok(Statement::Insert(Insert { table, value }))
        } else if self.eat_word("UPDATE") {
            self.update().map(Statement::Update)
        } else if self.eat_word("DELETE") {
            self.expect_word("FROM")?;
            let table = self.name()?;
            let condition = self.where_clause()?;
            let returning = self.returning()?;
            Ok(Statement::Delete(Delete { table, condition, returning }))
        } else {
            self.error("SELECT, INSERT, UPDATE or DELETE")
        }
    }

    fn select(&mut self) -> Result<Select, Error> {
        let projection = if self.eat_punct("*") {
            Projection::All
        } else {
            let mut paths = vec![self.path()?];
            while self.eat_punct(",") {
                paths.push(self.path()?);
            }
            Projection::Paths(paths)
        };
        self.expect_word("FROM")?;
        let table = self.name()?;
        let index = if self.eat_punct(".") { Some(self.name()?) } else { None };
        let condition = self.where_clause()?;
        let mut order_by = Vec::new();
        if self.eat_word("ORDER") {
            self.expect_word("BY")?;
            loop {
                let path = self.path()?;
                let descending = if self.eat_word("DESC") {
                    true
                } else {
                    self.eat_word("ASC");
                    false
                };
                order_by.push(OrderBy { path, descending });
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        Ok(Select { projection, from: Target { table, index }, condition, order_by })
    }

    fn update(&mut self) -> Result<Update, Error> {
        let table = self.name()?;
        let mut actions = Vec::new();
        loop {
            if self.eat_word("SET") {
                loop {
                    let path = self.path()?;
                    self.expect_punct("=")?;
                    actions.push(UpdateAction::Set(path, self.expr()?));
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            } else if self.eat_word("REMOVE") {
                loop {
                    actions.push(UpdateAction::Remove(self.path()?));
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            } else {
                break;
            }
        }
        if actions.is_empty() {
            return self.error("SET or REMOVE");
        }
        let condition = self.where_clause()?;
        let returning = self.returning()?;
        Ok(Update { table, actions, condition, returning })
    }

    fn where_clause(&mut self) -> Result<Option<Expr>, Error> {
        if self.eat_word("WHERE") {
            self.expr().map(Some)
        } else {
            Ok(None)
        }
    }

    fn returning(&mut self) -> Result<Option<Returning>, Error> {
        if !self.eat_word("RETURNING") {
            return Ok(None);
        }
        let all = if self.eat_word("ALL") {
            true
        } else if self.eat_word("MODIFIED") {
            false
        } else {
            return self.error("ALL or MODIFIED");
        };
        let old = if self.eat_word("OLD") {
            true
        } else if self.eat_word("NEW") {
            false
        } else {
            return self.error("OLD or NEW");
        };
        self.expect_punct("*")?;
        Ok(Some(match (all, old) {
            (true, true) => Returning::AllOld,
            (false, true) => Returning::ModifiedOld,
            (true, false) => Returning::AllNew,
            (false, false) => Returning::ModifiedNew,
        }))
    }

    pub(crate) fn path(&mut self) -> Result<Path, Error> {
        let root = self.name()?;
        self.path_steps(root)
    }

    fn path_steps(&mut self, root: String) -> Result<Path, Error> {
        let mut steps = Vec::new();
        loop {
            if self.is_punct(".")
                && matches!(self.tokens.get(self.pos + 1), Some((Token::Word(_) | Token::Quoted(_), _)))
            {
                self.pos += 1;
                steps.push(Step::Field(self.name()?));
            } else if self.eat_punct("[") {
                let at = self.offset();
                let index = match self.peek() {
                    Some(Token::Number(n)) => n
                        .parse::<u32>()
                        .map_err(|_| Error::syntax(at, format!("invalid list index at {at}")))?,
                    _ => return self.error("a list index"),
                };
                self.pos += 1;
                self.expect_punct("]")?;
                steps.push(Step::Index(index));
            } else {
                return Ok(Path { root, steps });
            }
        }
    }
}
