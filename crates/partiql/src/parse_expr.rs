//! Expressions: conditions, operands and value constructors (the part of the grammar below
//! statements). Precedence, loosest first: `OR`, `AND`, `NOT`, predicates (comparison,
//! `BETWEEN`, `IN`, `IS`), `+`/`-`, unary minus, primaries.

use crate::ast::*;
use crate::parser::{is_keyword, Parser};
use crate::token::Token;
use crate::Error;

impl Parser {
    /// A full expression (an `OR` chain).
    pub(crate) fn expr(&mut self) -> Result<Expr, Error> {
        self.enter()?;
        let result = self.or();
        self.leave();
        result
    }

    fn or(&mut self) -> Result<Expr, Error> {
        let mut items = vec![self.and()?];
        while self.eat_word("OR") {
            items.push(self.and()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::Or(items) })
    }

    fn and(&mut self) -> Result<Expr, Error> {
        let mut items = vec![self.not()?];
        while self.eat_word("AND") {
            items.push(self.not()?);
        }
        Ok(if items.len() == 1 { items.remove(0) } else { Expr::And(items) })
    }

    fn not(&mut self) -> Result<Expr, Error> {
        if self.eat_word("NOT") {
            self.enter()?;
            let inner = self.not();
            self.leave();
            return Ok(Expr::Not(Box::new(inner?)));
        }
        self.predicate()
    }

    fn predicate(&mut self) -> Result<Expr, Error> {
        let left = self.additive()?;
        let op = match self.peek() {
            Some(Token::Punct("=")) => Some(CompareOp::Eq),
            Some(Token::Punct("<>" | "!=")) => Some(CompareOp::Ne),
            Some(Token::Punct("<")) => Some(CompareOp::Lt),
            Some(Token::Punct("<=")) => Some(CompareOp::Le),
            Some(Token::Punct(">")) => Some(CompareOp::Gt),
            Some(Token::Punct(">=")) => Some(CompareOp::Ge),
            _ => None,
        };
        if let Some(op) = op {
            self.pos += 1;
            let right = self.additive()?;
            return Ok(Expr::Compare(Box::new(left), op, Box::new(right)));
        }
        if self.eat_word("IS") {
            let not = self.eat_word("NOT");
            let what = if self.eat_word("MISSING") {
                IsWhat::Missing
            } else if self.eat_word("NULL") {
                IsWhat::Null
            } else {
                return self.error("MISSING or NULL");
            };
            return Ok(Expr::Is(Box::new(left), not, what));
        }
        let negated = self.is_word("NOT")
            && matches!(self.tokens.get(self.pos + 1), Some((Token::Word(w), _)) if w.eq_ignore_ascii_case("BETWEEN") || w.eq_ignore_ascii_case("IN"));
        if negated {
            self.pos += 1;
        }
        let e = if self.eat_word("BETWEEN") {
            let low = self.additive()?;
            self.expect_word("AND")?;
            let high = self.additive()?;
            Expr::Between(Box::new(left), Box::new(low), Box::new(high))
        } else if self.eat_word("IN") {
            let close = if self.eat_punct("[") {
                "]"
            } else if self.eat_punct("(") {
                ")"
            } else {
                return self.error("'[' or '('");
            };
            let items = self.items(close)?;
            Expr::In(Box::new(left), items)
        } else {
            return Ok(left);
        };
        Ok(if negated { Expr::Not(Box::new(e)) } else { e })
    }

    /// A `+`/`-` chain. It builds a left-leaning tree, so every operator counts as one
    /// level of nesting (printing and dropping the tree recurse along it).
    fn additive(&mut self) -> Result<Expr, Error> {
        let entered = self.depth;
        let result = self.additive_chain();
        self.depth = entered;
        result
    }

    fn additive_chain(&mut self) -> Result<Expr, Error> {
        let mut left = self.unary()?;
        loop {
            if self.eat_punct("+") {
                self.enter()?;
                left = Expr::Add(Box::new(left), Box::new(self.unary()?));
            } else if self.eat_punct("-") {
                self.enter()?;
                left = Expr::Sub(Box::new(left), Box::new(self.unary()?));
            } else {
                return Ok(left);
            }
        }
    }

    fn unary(&mut self) -> Result<Expr, Error> {
        if self.eat_punct("-") {
            self.enter()?;
            let inner = self.unary();
            self.leave();
            return Ok(Expr::Neg(Box::new(inner?)));
        }
        self.primary()
    }

    /// Comma-separated expressions up to `close` (which is consumed); may be empty.
    fn items(&mut self, close: &str) -> Result<Vec<Expr>, Error> {
        let mut items = Vec::new();
        if self.eat_punct(close) {
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.eat_punct(close) {
                return Ok(items);
            }
            self.expect_punct(",")?;
        }
    }

    fn primary(&mut self) -> Result<Expr, Error> {
        let Some(token) = self.peek().cloned() else {
            return self.error("an expression");
        };
        match token {
            Token::Str(s) => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Str(s)))
            }
            Token::Number(n) => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Number(n)))
            }
            Token::Param => {
                self.pos += 1;
                self.params += 1;
                Ok(Expr::Param(self.params - 1))
            }
            Token::Punct("(") => {
                self.pos += 1;
                let e = self.expr()?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Token::Punct("[") => {
                self.pos += 1;
                self.nested(|p| p.items("]").map(Expr::List))
            }
            Token::Punct("<<") => {
                self.pos += 1;
                self.nested(|p| p.items(">>").map(Expr::Bag))
            }
            Token::Punct("{") => {
                self.pos += 1;
                self.nested(Parser::tuple)
            }
            Token::Word(w) if w.eq_ignore_ascii_case("TRUE") || w.eq_ignore_ascii_case("FALSE") => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Bool(w.eq_ignore_ascii_case("TRUE"))))
            }
            Token::Word(w) if w.eq_ignore_ascii_case("NULL") => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Null))
            }
            Token::Word(w) if w.eq_ignore_ascii_case("MISSING") => {
                self.pos += 1;
                Ok(Expr::Literal(Literal::Missing))
            }
            Token::Word(w)
                if !is_keyword(&w)
                    && matches!(self.tokens.get(self.pos + 1), Some((Token::Punct("("), _))) =>
            {
                self.pos += 2;
                let name = w.to_ascii_lowercase();
                self.nested(|p| p.items(")").map(|args| Expr::Call(name, args)))
            }
            Token::Word(_) | Token::Quoted(_) => self.path().map(Expr::Path),
            Token::Punct(_) => self.error("an expression"),
        }
    }

    fn nested(&mut self, f: impl FnOnce(&mut Parser) -> Result<Expr, Error>) -> Result<Expr, Error> {
        self.enter()?;
        let result = f(self);
        self.leave();
        result
    }

    /// `{'k': v, …}` after the `{`.
    fn tuple(&mut self) -> Result<Expr, Error> {
        let mut fields = Vec::new();
        if self.eat_punct("}") {
            return Ok(Expr::Tuple(fields));
        }
        loop {
            let key = match self.peek() {
                Some(Token::Str(s)) => s.clone(),
                _ => return self.error("a quoted attribute name"),
            };
            self.pos += 1;
            self.expect_punct(":")?;
            fields.push((key, self.expr()?));
            if self.eat_punct("}") {
                return Ok(Expr::Tuple(fields));
            }
            self.expect_punct(",")?;
        }
    }
}
