//! The update-expression grammar (syntax only).
//!
//! ```text
//! update   := clause+
//! clause   := SET set (, set)* | REMOVE path (, path)* | ADD path :v (, path :v)*
//!           | DELETE path :v (, path :v)*
//! set      := path = value
//! value    := operand | operand + operand | operand - operand | ( value )
//! operand  := path | :v | name ( operand (, operand)* ) | ( operand )
//! ```
//!
//! Keywords (`SET`, `AND`, …) are never path elements.

use crate::ast::{Clause, Operand, SetAction, SetValue, Update, ValueAction};
use crate::error::{ExprError, ExpressionKind};
use crate::lexer::TokenKind;
use crate::parser::Parser;

impl Parser<'_> {
    pub(crate) fn parse_update(&mut self) -> Result<Update, ExprError> {
        let mut clauses = Vec::new();
        loop {
            let clause = if self.at_keyword("SET") {
                self.advance();
                Clause::Set(self.comma_list(Parser::parse_set_action)?)
            } else if self.at_keyword("REMOVE") {
                self.advance();
                Clause::Remove(self.comma_list(Parser::parse_path)?)
            } else if self.at_keyword("ADD") {
                self.advance();
                Clause::Add(self.comma_list(Parser::parse_value_action)?)
            } else if self.at_keyword("DELETE") {
                self.advance();
                Clause::Delete(self.comma_list(Parser::parse_value_action)?)
            } else {
                return Err(self.syntax_error());
            };
            clauses.push(clause);
            if self.peek_kind() == TokenKind::Eof {
                return Ok(Update { clauses });
            }
        }
    }

    fn comma_list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, ExprError>,
    ) -> Result<Vec<T>, ExprError> {
        let mut items = vec![item(self)?];
        while self.peek_kind() == TokenKind::Comma {
            self.advance();
            items.push(item(self)?);
        }
        Ok(items)
    }

    fn parse_set_action(&mut self) -> Result<SetAction, ExprError> {
        let path = self.parse_path()?;
        self.expect(TokenKind::Eq)?;
        let value = self.parse_set_value()?;
        Ok(SetAction { path, value })
    }

    fn parse_value_action(&mut self) -> Result<ValueAction, ExprError> {
        let path = self.parse_path()?;
        let t = self.expect(TokenKind::Value)?;
        Ok(ValueAction { path, value: self.text_of(t).to_owned() })
    }

    fn parse_set_value(&mut self) -> Result<SetValue, ExprError> {
        let left = if self.peek_kind() == TokenKind::LParen {
            // `(x)` may be a parenthesised operand or a parenthesised whole value.
            self.advance();
            self.enter()?;
            let inner = self.parse_set_value()?;
            self.expect(TokenKind::RParen)?;
            self.leave();
            match inner {
                SetValue::Operand(o) => o,
                whole => return Ok(whole),
            }
        } else {
            self.parse_operand()?
        };
        self.set_value_tail(left)
    }

    fn set_value_tail(&mut self, left: Operand) -> Result<SetValue, ExprError> {
        match self.peek_kind() {
            TokenKind::Plus => {
                self.advance();
                self.operator(1)?;
                Ok(SetValue::Plus(left, self.parse_operand_parens()?))
            }
            TokenKind::Minus => {
                self.advance();
                self.operator(1)?;
                Ok(SetValue::Minus(left, self.parse_operand_parens()?))
            }
            _ => Ok(SetValue::Operand(left)),
        }
    }
}

/// Parses an update expression (syntax only).
pub fn parse_update(text: &str) -> Result<Update, ExprError> {
    Parser::new(text, ExpressionKind::Update)?.parse_update()
}
