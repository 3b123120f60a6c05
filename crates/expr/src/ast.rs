//! The syntax tree of an expression, placeholders unresolved.
//!
//! Parentheses are not kept: the tree's shape records grouping, and `Display` prints the
//! canonical text — keywords upper-case, single spaces, `, ` between list items, and only the
//! parentheses that precedence needs. Invariant: parsing the canonical text of a tree gives
//! back an equal tree (checked by the round-trip tests).
//!
//! `AND` and `OR` are n-ary: `a AND b AND c` is one `And` with three operands, so that the
//! tree's depth grows only with parentheses and `NOT`s (which the parser bounds), never with
//! the length of a chain. Invariant: an `And`/`Or` has at least two operands; an operand that
//! is itself an `And` (of an `And`) or an `Or` (of an `And` or `Or`) was written in
//! parentheses, and `Display` writes those parentheses back.

use std::fmt;

pub use crate::resolved::Comparator;

/// One step of a document path as written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathElement {
    /// A literal name (`a`).
    Name(String),
    /// An expression attribute name placeholder, with its `#` (`#n`).
    Placeholder(String),
    /// A list index (`[3]`).
    Index(usize),
}

/// A document path as written. Invariant: non-empty, and the first element is not an index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    pub elements: Vec<PathElement>,
}

/// A function call as written; the name is checked by the semantic pass.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FunctionCall {
    pub name: String,
    pub args: Vec<Operand>,
}

/// A value-producing operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    Path(Path),
    /// An expression attribute value placeholder, with its `:` (`:v`).
    Value(String),
    Function(FunctionCall),
}

/// A condition (ConditionExpression, FilterExpression, KeyConditionExpression).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    Compare(Operand, Comparator, Operand),
    Between(Operand, Operand, Operand),
    In(Operand, Vec<Operand>),
    /// A function used as a condition (`attribute_exists(a)`).
    Function(FunctionCall),
    Not(Box<Condition>),
    And(Vec<Condition>),
    Or(Vec<Condition>),
}

/// The right-hand side of a `SET` action.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SetValue {
    Operand(Operand),
    Plus(Operand, Operand),
    Minus(Operand, Operand),
}

/// `path = value`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SetAction {
    pub path: Path,
    pub value: SetValue,
}

/// `path :value` of an `ADD` or `DELETE` clause; the value keeps its `:`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ValueAction {
    pub path: Path,
    pub value: String,
}

/// One clause of an update expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Clause {
    Set(Vec<SetAction>),
    Remove(Vec<Path>),
    Add(Vec<ValueAction>),
    Delete(Vec<ValueAction>),
}

/// An update expression: its clauses in written order. The parser accepts a clause keyword
/// more than once; the semantic pass refuses that as DynamoDB does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Update {
    pub clauses: Vec<Clause>,
}

/// A projection expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Projection {
    pub paths: Vec<Path>,
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.elements.iter().enumerate() {
            match e {
                PathElement::Name(n) | PathElement::Placeholder(n) => {
                    if i > 0 {
                        f.write_str(".")?;
                    }
                    f.write_str(n)?;
                }
                PathElement::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        Ok(())
    }
}

fn write_list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for FunctionCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        write_list(f, &self.args)?;
        f.write_str(")")
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Path(p) => write!(f, "{p}"),
            Operand::Value(v) => f.write_str(v),
            Operand::Function(call) => write!(f, "{call}"),
        }
    }
}

/// Binding strength: OR < AND < NOT < everything else.
fn precedence(c: &Condition) -> u8 {
    match c {
        Condition::Or(..) => 1,
        Condition::And(..) => 2,
        Condition::Not(..) => 3,
        _ => 4,
    }
}

/// Writes `c`, in parentheses when it binds less tightly than `min`.
fn write_operand_condition(f: &mut fmt::Formatter<'_>, c: &Condition, min: u8) -> fmt::Result {
    if precedence(c) < min {
        write!(f, "({c})")
    } else {
        write!(f, "{c}")
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Compare(a, op, b) => write!(f, "{a} {} {b}", op.as_str()),
            Condition::Between(a, lo, hi) => write!(f, "{a} BETWEEN {lo} AND {hi}"),
            Condition::In(a, list) => {
                write!(f, "{a} IN (")?;
                write_list(f, list)?;
                f.write_str(")")
            }
            Condition::Function(call) => write!(f, "{call}"),
            Condition::Not(c) => {
                f.write_str("NOT ")?;
                write_operand_condition(f, c, 3)
            }
            // Operands of the same operator are parenthesised, so that a written grouping
            // survives printing (the parser only merges unparenthesised chains).
            Condition::And(list) => write_chain(f, list, " AND ", 3),
            Condition::Or(list) => write_chain(f, list, " OR ", 2),
        }
    }
}

fn write_chain(f: &mut fmt::Formatter<'_>, list: &[Condition], separator: &str, min: u8) -> fmt::Result {
    for (i, c) in list.iter().enumerate() {
        if i > 0 {
            f.write_str(separator)?;
        }
        write_operand_condition(f, c, min)?;
    }
    Ok(())
}

impl fmt::Display for SetValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetValue::Operand(o) => write!(f, "{o}"),
            SetValue::Plus(a, b) => write!(f, "{a} + {b}"),
            SetValue::Minus(a, b) => write!(f, "{a} - {b}"),
        }
    }
}

impl fmt::Display for SetAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} = {}", self.path, self.value)
    }
}

impl fmt::Display for ValueAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.path, self.value)
    }
}

impl fmt::Display for Clause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Clause::Set(actions) => {
                f.write_str("SET ")?;
                write_list(f, actions)
            }
            Clause::Remove(paths) => {
                f.write_str("REMOVE ")?;
                write_list(f, paths)
            }
            Clause::Add(actions) => {
                f.write_str("ADD ")?;
                write_list(f, actions)
            }
            Clause::Delete(actions) => {
                f.write_str("DELETE ")?;
                write_list(f, actions)
            }
        }
    }
}

impl fmt::Display for Update {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, clause) in self.clauses.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{clause}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Projection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_list(f, &self.paths)
    }
}
