//! Resolved expressions: what evaluation works on.
//!
//! A resolved expression has no placeholders left: `#name`s are replaced by attribute names and
//! `:value`s by [`AttributeValue`]s. All types here are public and constructible so that the
//! engine can translate DynamoDB's legacy parameters (`Expected`, `QueryFilter`,
//! `AttributeUpdates`, `AttributesToGet`…) into them and evaluate both forms with one code path.

use std::collections::BTreeSet;
use std::fmt;

use monotable_types::{AttributeType, AttributeValue};

/// One step of a document path.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PathElement {
    /// A map key (or, first in a path, a top-level attribute name).
    Attribute(String),
    /// A list index.
    Index(usize),
}

/// A document path: a top-level attribute followed by map keys and list indexes.
/// Invariant (kept by the resolver; callers building paths by hand must keep it too): the
/// path is non-empty and starts with [`PathElement::Attribute`].
pub type Path = Vec<PathElement>;

/// Builds a path naming one top-level attribute.
pub fn attribute_path(name: impl Into<String>) -> Path {
    vec![PathElement::Attribute(name.into())]
}

/// DynamoDB's rendering of a path in messages: `[a, b, [3]]`.
pub struct PathDisplay<'a>(pub &'a [PathElement]);

impl fmt::Display for PathDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match e {
                PathElement::Attribute(name) => f.write_str(name)?,
                PathElement::Index(ix) => write!(f, "[{ix}]")?,
            }
        }
        f.write_str("]")
    }
}

/// A value-producing operand of a condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// The value at a document path of the item (absent when the path does not exist).
    Path(Path),
    /// A constant.
    Value(AttributeValue),
    /// `size(operand)`: the length of a string or binary, or the element count of a set, list
    /// or map; absent for other types.
    Size(Box<Operand>),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparator {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparator {
    /// The operator's text.
    pub fn as_str(self) -> &'static str {
        match self {
            Comparator::Eq => "=",
            Comparator::Ne => "<>",
            Comparator::Lt => "<",
            Comparator::Le => "<=",
            Comparator::Gt => ">",
            Comparator::Ge => ">=",
        }
    }
}

/// A resolved condition (ConditionExpression, FilterExpression, or a translated legacy
/// `Expected`/`QueryFilter`/`ScanFilter`). Evaluate with [`Condition::eval`].
#[derive(Clone, Debug, PartialEq)]
pub enum Condition {
    /// `a <op> b`.
    Compare(Operand, Comparator, Operand),
    /// `a BETWEEN low AND high` (inclusive).
    Between(Operand, Operand, Operand),
    /// `a IN (b, c, …)`.
    In(Operand, Vec<Operand>),
    /// `attribute_exists(path)`.
    AttributeExists(Path),
    /// `attribute_not_exists(path)`.
    AttributeNotExists(Path),
    /// `attribute_type(a, :t)`: `a` is a path or, as DynamoDB also accepts, a value.
    AttributeType(Operand, AttributeType),
    /// `begins_with(a, b)`.
    BeginsWith(Operand, Operand),
    /// `contains(a, b)`.
    Contains(Operand, Operand),
    /// `NOT c`.
    Not(Box<Condition>),
    /// `a AND b`.
    And(Box<Condition>, Box<Condition>),
    /// `a OR b`.
    Or(Box<Condition>, Box<Condition>),
}

/// An operand on the right-hand side of a `SET` action.
#[derive(Clone, Debug, PartialEq)]
pub enum UpdateOperand {
    /// The value at a path of the item as it was before the update; an error when absent.
    Path(Path),
    /// A constant.
    Value(AttributeValue),
    /// `if_not_exists(path, fallback)`: the value at `path`, or `fallback` when absent.
    IfNotExists(Path, Box<UpdateOperand>),
    /// `list_append(a, b)`: the elements of list `a` followed by those of list `b`.
    ListAppend(Box<UpdateOperand>, Box<UpdateOperand>),
}

/// The right-hand side of a `SET` action.
#[derive(Clone, Debug, PartialEq)]
pub enum SetValue {
    /// `path = operand`.
    Operand(UpdateOperand),
    /// `path = a + b` (numbers).
    Plus(UpdateOperand, UpdateOperand),
    /// `path = a - b` (numbers).
    Minus(UpdateOperand, UpdateOperand),
}

/// One action of an update.
#[derive(Clone, Debug, PartialEq)]
pub enum UpdateAction {
    /// `SET path = value`.
    Set(Path, SetValue),
    /// `REMOVE path`.
    Remove(Path),
    /// `ADD path :value`: adds to a number, or unions into a set; creates the attribute when
    /// absent.
    Add(Path, AttributeValue),
    /// `DELETE path :set`: removes the members from a set; removes the attribute when the set
    /// becomes empty.
    Delete(Path, AttributeValue),
}

impl UpdateAction {
    /// The document path the action targets.
    pub fn path(&self) -> &Path {
        match self {
            UpdateAction::Set(p, _)
            | UpdateAction::Remove(p)
            | UpdateAction::Add(p, _)
            | UpdateAction::Delete(p, _) => p,
        }
    }
}

/// A resolved update (UpdateExpression or translated `AttributeUpdates`). Apply with
/// [`UpdatePlan::apply`]. All operands are read from the item as it was before the update,
/// as DynamoDB does.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct UpdatePlan {
    /// The actions, in expression order.
    pub actions: Vec<UpdateAction>,
}

/// What an update changed, for `ReturnValues` `UPDATED_OLD` / `UPDATED_NEW`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ChangedAttributes {
    /// The top-level attribute names that the update's actions target.
    pub names: BTreeSet<String>,
    /// The full document paths the actions target, in action order.
    pub paths: Vec<Path>,
}

/// A resolved projection (ProjectionExpression or translated `AttributesToGet`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Projection {
    /// The projected paths, in expression order.
    pub paths: Vec<Path>,
}

/// A resolved key condition.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyCondition {
    /// The partition key attribute name.
    pub partition_key: String,
    /// The value it must equal.
    pub partition_value: AttributeValue,
    /// Equalities on further key attributes of a multi-attribute (GSI) key, in key-schema
    /// order: the partition attributes after the first, then the sort attributes before the
    /// one `sort` conditions. Empty for a single-attribute key.
    pub equalities: Vec<(String, AttributeValue)>,
    /// The optional sort key condition (on the last sort attribute the condition uses).
    pub sort: Option<SortKeyCondition>,
}

/// The sort-key part of a key condition.
#[derive(Clone, Debug, PartialEq)]
pub struct SortKeyCondition {
    /// The sort key attribute name.
    pub attribute: String,
    /// The condition on it.
    pub op: SortKeyOp,
}

/// A condition DynamoDB allows on a sort key.
#[derive(Clone, Debug, PartialEq)]
pub enum SortKeyOp {
    /// `= v`
    Eq(AttributeValue),
    /// `< v`
    Lt(AttributeValue),
    /// `<= v`
    Le(AttributeValue),
    /// `> v`
    Gt(AttributeValue),
    /// `>= v`
    Ge(AttributeValue),
    /// `BETWEEN low AND high`
    Between(AttributeValue, AttributeValue),
    /// `begins_with(sk, v)`
    BeginsWith(AttributeValue),
}
