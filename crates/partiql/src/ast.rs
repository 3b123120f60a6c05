//! The syntax tree. `Display` (in `display.rs`) prints canonical PartiQL that parses back to
//! the same tree.

/// One PartiQL statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// `SELECT … FROM …`
    Select(Select),
    /// `INSERT INTO … VALUE …`
    Insert(Insert),
    /// `UPDATE … SET|REMOVE … WHERE …`
    Update(Update),
    /// `DELETE FROM … WHERE …`
    Delete(Delete),
}

/// A table, or an index of a table: `"table"` or `"table"."index"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The table name.
    pub table: String,
    /// The index name, when the statement reads an index.
    pub index: Option<String>,
}

/// What a `SELECT` returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Projection {
    /// `*`: whole items.
    All,
    /// A list of document paths.
    Paths(Vec<Path>),
}

/// `ORDER BY path [ASC|DESC]`.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderBy {
    /// The key attribute ordered by.
    pub path: Path,
    /// `DESC`.
    pub descending: bool,
}

/// `SELECT projection FROM target [WHERE condition] [ORDER BY …]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Select {
    pub projection: Projection,
    pub from: Target,
    pub condition: Option<Expr>,
    pub order_by: Vec<OrderBy>,
}

/// `INSERT INTO table VALUE item`.
#[derive(Clone, Debug, PartialEq)]
pub struct Insert {
    pub table: String,
    /// A tuple literal (`{'k': v, …}`) or a parameter.
    pub value: Expr,
}

/// One clause of an `UPDATE`.
#[derive(Clone, Debug, PartialEq)]
pub enum UpdateAction {
    /// `SET path = value`
    Set(Path, Expr),
    /// `REMOVE path`
    Remove(Path),
}

/// `RETURNING … *`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returning {
    /// `ALL OLD *`
    AllOld,
    /// `MODIFIED OLD *`
    ModifiedOld,
    /// `ALL NEW *`
    AllNew,
    /// `MODIFIED NEW *`
    ModifiedNew,
}

impl Returning {
    /// The `ReturnValues` value this clause stands for.
    pub fn return_values(self) -> &'static str {
        match self {
            Returning::AllOld => "ALL_OLD",
            Returning::ModifiedOld => "UPDATED_OLD",
            Returning::AllNew => "ALL_NEW",
            Returning::ModifiedNew => "UPDATED_NEW",
        }
    }
}

/// `UPDATE table SET … REMOVE … [WHERE condition] [RETURNING …]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    pub table: String,
    pub actions: Vec<UpdateAction>,
    pub condition: Option<Expr>,
    pub returning: Option<Returning>,
}

/// `DELETE FROM table [WHERE condition] [RETURNING …]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Delete {
    pub table: String,
    pub condition: Option<Expr>,
    pub returning: Option<Returning>,
}

/// One step after the first name of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `.name`
    Field(String),
    /// `[n]`
    Index(u32),
}

/// A document path: a top-level attribute name and steps into maps and lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub root: String,
    pub steps: Vec<Step>,
}

impl Path {
    /// A path naming one top-level attribute.
    pub fn attribute(name: impl Into<String>) -> Path {
        Path { root: name.into(), steps: Vec::new() }
    }
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CompareOp {
    /// The operator's canonical text.
    pub fn as_str(self) -> &'static str {
        match self {
            CompareOp::Eq => "=",
            CompareOp::Ne => "<>",
            CompareOp::Lt => "<",
            CompareOp::Le => "<=",
            CompareOp::Gt => ">",
            CompareOp::Ge => ">=",
        }
    }
}

/// What `IS [NOT]` tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsWhat {
    /// `IS MISSING`: the attribute is absent.
    Missing,
    /// `IS NULL`: the attribute is DynamoDB's NULL (or absent, as PartiQL defines it).
    Null,
}

/// A literal scalar.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `'text'`
    Str(String),
    /// A number as written (unsigned; a minus sign is [`Expr::Neg`]).
    Number(String),
    /// `TRUE` / `FALSE`
    Bool(bool),
    /// `NULL`
    Null,
    /// `MISSING`
    Missing,
}

/// An expression: conditions, operands and value constructors share one type, as in PartiQL.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A document path.
    Path(Path),
    /// A literal scalar.
    Literal(Literal),
    /// A `?` parameter; the number is its position among the statement's parameters, from 0.
    Param(usize),
    /// `-e`
    Neg(Box<Expr>),
    /// `a + b`
    Add(Box<Expr>, Box<Expr>),
    /// `a - b`
    Sub(Box<Expr>, Box<Expr>),
    /// `a <op> b`
    Compare(Box<Expr>, CompareOp, Box<Expr>),
    /// `a BETWEEN low AND high`
    Between(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a IN [b, c, …]`
    In(Box<Expr>, Vec<Expr>),
    /// `a IS [NOT] MISSING|NULL`; the flag is `NOT`.
    Is(Box<Expr>, bool, IsWhat),
    /// `NOT c`
    Not(Box<Expr>),
    /// `a AND b AND …` (two or more operands).
    And(Vec<Expr>),
    /// `a OR b OR …` (two or more operands).
    Or(Vec<Expr>),
    /// `name(args…)`; the name is lower-cased.
    Call(String, Vec<Expr>),
    /// `{'k': v, …}`
    Tuple(Vec<(String, Expr)>),
    /// `[a, b, …]`
    List(Vec<Expr>),
    /// `<<a, b, …>>`
    Bag(Vec<Expr>),
}
