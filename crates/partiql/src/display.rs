//! Canonical printing. Names are always double-quoted, keywords upper-case, and parentheses
//! appear exactly where precedence needs them, so printing and parsing give back the tree.

use std::fmt::{self, Display, Formatter, Write};

use crate::ast::*;

/// Writes `s` between `q` quotes, doubling any `q` inside.
fn quote(f: &mut Formatter<'_>, s: &str, q: char) -> fmt::Result {
    f.write_char(q)?;
    for c in s.chars() {
        if c == q {
            f.write_char(q)?;
        }
        f.write_char(c)?;
    }
    f.write_char(q)
}

fn name(f: &mut Formatter<'_>, s: &str) -> fmt::Result {
    quote(f, s, '"')
}

impl Display for Path {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        name(f, &self.root)?;
        for step in &self.steps {
            match step {
                Step::Field(n) => {
                    f.write_char('.')?;
                    name(f, n)?;
                }
                Step::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

impl Display for Target {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        name(f, &self.table)?;
        if let Some(index) = &self.index {
            f.write_char('.')?;
            name(f, index)?;
        }
        Ok(())
    }
}

impl Display for Literal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Str(s) => quote(f, s, '\''),
            Literal::Number(n) => f.write_str(n),
            Literal::Bool(true) => f.write_str("TRUE"),
            Literal::Bool(false) => f.write_str("FALSE"),
            Literal::Null => f.write_str("NULL"),
            Literal::Missing => f.write_str("MISSING"),
        }
    }
}

/// Binding strength: a child printed where at least `p` is needed is parenthesised when its
/// own precedence is lower.
fn precedence(e: &Expr) -> u8 {
    match e {
        Expr::Or(_) => 1,
        Expr::And(_) => 2,
        Expr::Not(_) => 3,
        Expr::Compare(..) | Expr::Between(..) | Expr::In(..) | Expr::Is(..) => 4,
        Expr::Add(..) | Expr::Sub(..) => 5,
        _ => 6,
    }
}

/// Prints `e`, in parentheses when it binds more loosely than `min`.
struct At<'a>(&'a Expr, u8);

impl Display for At<'_> {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if precedence(self.0) < self.1 {
            write!(f, "({})", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

fn list(f: &mut Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{e}")?;
    }
    Ok(())
}

fn joined(f: &mut Formatter<'_>, items: &[Expr], op: &str, min: u8) -> fmt::Result {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            write!(f, " {op} ")?;
        }
        write!(f, "{}", At(e, min))?;
    }
    Ok(())
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Path(p) => write!(f, "{p}"),
            Expr::Literal(l) => write!(f, "{l}"),
            Expr::Param(_) => f.write_str("?"),
            Expr::Neg(e) => write!(f, "-{}", At(e, 6)),
            Expr::Add(a, b) => write!(f, "{} + {}", At(a, 5), At(b, 6)),
            Expr::Sub(a, b) => write!(f, "{} - {}", At(a, 5), At(b, 6)),
            Expr::Compare(a, op, b) => write!(f, "{} {} {}", At(a, 5), op.as_str(), At(b, 5)),
            Expr::Between(a, lo, hi) => write!(f, "{} BETWEEN {} AND {}", At(a, 5), At(lo, 5), At(hi, 5)),
            Expr::In(a, items) => {
                write!(f, "{} IN [", At(a, 5))?;
                list(f, items)?;
                f.write_str("]")
            }
            Expr::Is(a, not, what) => {
                let what = match what {
                    IsWhat::Missing => "MISSING",
                    IsWhat::Null => "NULL",
                };
                write!(f, "{} IS {}{what}", At(a, 5), if *not { "NOT " } else { "" })
            }
            Expr::Not(e) => write!(f, "NOT {}", At(e, 3)),
            Expr::And(items) => joined(f, items, "AND", 3),
            Expr::Or(items) => joined(f, items, "OR", 2),
            Expr::Call(fname, args) => {
                write!(f, "{fname}(")?;
                list(f, args)?;
                f.write_str(")")
            }
            Expr::Tuple(fields) => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    quote(f, k, '\'')?;
                    write!(f, ": {v}")?;
                }
                f.write_str("}")
            }
            Expr::List(items) => {
                f.write_str("[")?;
                list(f, items)?;
                f.write_str("]")
            }
            Expr::Bag(items) => {
                f.write_str("<<")?;
                list(f, items)?;
                f.write_str(">>")
            }
        }
    }
}

fn where_clause(f: &mut Formatter<'_>, condition: &Option<Expr>) -> fmt::Result {
    match condition {
        Some(c) => write!(f, " WHERE {c}"),
        None => Ok(()),
    }
}

impl Display for Returning {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Returning::AllOld => "RETURNING ALL OLD *",
            Returning::ModifiedOld => "RETURNING MODIFIED OLD *",
            Returning::AllNew => "RETURNING ALL NEW *",
            Returning::ModifiedNew => "RETURNING MODIFIED NEW *",
        })
    }
}

impl Display for Statement {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Select(s) => {
                f.write_str("SELECT ")?;
                match &s.projection {
                    Projection::All => f.write_str("*")?,
                    Projection::Paths(paths) => {
                        for (i, p) in paths.iter().enumerate() {
                            if i > 0 {
                                f.write_str(", ")?;
                            }
                            write!(f, "{p}")?;
                        }
                    }
                }
                write!(f, " FROM {}", s.from)?;
                where_clause(f, &s.condition)?;
                for (i, o) in s.order_by.iter().enumerate() {
                    f.write_str(if i == 0 { " ORDER BY " } else { ", " })?;
                    write!(f, "{}{}", o.path, if o.descending { " DESC" } else { " ASC" })?;
                }
                Ok(())
            }
            Statement::Insert(i) => {
                f.write_str("INSERT INTO ")?;
                name(f, &i.table)?;
                write!(f, " VALUE {}", i.value)
            }
            Statement::Update(u) => {
                f.write_str("UPDATE ")?;
                name(f, &u.table)?;
                for action in &u.actions {
                    match action {
                        UpdateAction::Set(p, v) => write!(f, " SET {p} = {v}")?,
                        UpdateAction::Remove(p) => write!(f, " REMOVE {p}")?,
                    }
                }
                where_clause(f, &u.condition)?;
                if let Some(r) = u.returning {
                    write!(f, " {r}")?;
                }
                Ok(())
            }
            Statement::Delete(d) => {
                f.write_str("DELETE FROM ")?;
                name(f, &d.table)?;
                where_clause(f, &d.condition)?;
                if let Some(r) = d.returning {
                    write!(f, " {r}")?;
                }
                Ok(())
            }
        }
    }
}
