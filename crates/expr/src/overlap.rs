//! Overlapping and conflicting document paths of one update or projection.
//!
//! Two paths overlap when one is the other or lies inside it (`a` and `a.b`), and conflict
//! when they use one attribute both as a map and as a list (`a.b` and `a[0]`). DynamoDB puts
//! the paths in a tree and reports the first clash it meets walking it, newest branch first;
//! this module does the same, so that expressions with several clashes get DynamoDB's error.
//! The message lists the earlier path of the pair as "path one".

use crate::error::{ErrorKind, ExprError, ExpressionKind};
use crate::resolved::{Path, PathDisplay, PathElement};

/// A node of the path tree: the step leading to it, the index of the first path that
/// created it, its children in creation order, and the paths that end at it.
struct Node<'p> {
    key: Option<&'p PathElement>,
    born: usize,
    kids: Vec<Node<'p>>,
    ends: Vec<usize>,
}

/// An entry of a node: a child, or a path ending there.
#[derive(Clone, Copy)]
enum Entry<'n, 'p> {
    Kid(&'n Node<'p>),
    End(usize),
}

impl<'p> Node<'p> {
    fn new(key: Option<&'p PathElement>, born: usize) -> Node<'p> {
        Node { key, born, kids: Vec::new(), ends: Vec::new() }
    }

    fn insert(&mut self, path: &'p [PathElement], index: usize) {
        let mut node = self;
        for step in path {
            let pos = match node.kids.iter().position(|k| k.key == Some(step)) {
                Some(pos) => pos,
                None => {
                    node.kids.push(Node::new(Some(step), index));
                    node.kids.len() - 1
                }
            };
            let Some(next) = node.kids.get_mut(pos) else { return };
            node = next;
        }
        node.ends.push(index);
    }

    /// Entries newest first; at equal age a path ending here comes before a child.
    fn entries(&self) -> Vec<Entry<'_, 'p>> {
        let mut out: Vec<(usize, bool, Entry<'_, 'p>)> =
            self.kids.iter().map(|k| (k.born, true, Entry::Kid(k))).collect();
        out.extend(self.ends.iter().map(|&i| (i, false, Entry::End(i))));
        out.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        out.into_iter().map(|(_, _, e)| e).collect()
    }

    /// The path that a clash with this branch is reported against: the newest entry,
    /// followed down to where a path ends.
    fn end_in(&self) -> usize {
        let mut node = self;
        loop {
            match node.entries().first() {
                Some(Entry::End(i)) => return *i,
                Some(Entry::Kid(k)) => node = k,
                None => return node.born,
            }
        }
    }
}

fn index_of(e: Entry<'_, '_>) -> usize {
    match e {
        Entry::Kid(k) => k.end_in(),
        Entry::End(i) => i,
    }
}

struct Walk<'a> {
    paths: &'a [Path],
    kind: ExpressionKind,
}

impl Walk<'_> {
    fn clash(&self, kind: ErrorKind, x: usize, y: usize) -> ExprError {
        let what = if kind == ErrorKind::OverlappingPaths { "overlap" } else { "conflict" };
        let empty: &[PathElement] = &[];
        let one = self.paths.get(x.min(y)).map_or(empty, Vec::as_slice);
        let two = self.paths.get(x.max(y)).map_or(empty, Vec::as_slice);
        ExprError::invalid(
            self.kind,
            kind,
            format_args!(
                "Two document paths {what} with each other; must remove or rewrite one of these paths; path one: {}, path two: {}",
                PathDisplay(one),
                PathDisplay(two)
            ),
        )
    }

    fn visit(&self, node: &Node<'_>) -> Result<(), ExprError> {
        let list = node.entries();
        for (n, &e) in list.iter().enumerate() {
            if let Entry::Kid(k) = e {
                self.visit(k)?;
            }
            for (m, &x) in list.iter().enumerate() {
                if m == n {
                    continue;
                }
                match (e, x) {
                    (Entry::Kid(ek), Entry::Kid(xk)) => {
                        let is_index = |k: &Node<'_>| matches!(k.key, Some(PathElement::Index(_)));
                        if is_index(xk) != is_index(ek) {
                            return Err(self.clash(ErrorKind::ConflictingPaths, xk.end_in(), ek.end_in()));
                        }
                    }
                    _ => return Err(self.clash(ErrorKind::OverlappingPaths, index_of(e), index_of(x))),
                }
            }
        }
        Ok(())
    }
}

/// DynamoDB's overlap and conflict check of resolved paths, in written order.
pub(crate) fn check_overlaps(paths: &[Path], kind: ExpressionKind) -> Result<(), ExprError> {
    if paths.len() < 2 {
        // A clash needs two paths; the common single-path expression skips building the tree.
        return Ok(());
    }
    let mut root = Node::new(None, 0);
    for (i, p) in paths.iter().enumerate() {
        root.insert(p, i);
    }
    Walk { paths, kind }.visit(&root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Path {
        text.split('.')
            .map(|s| match s.parse::<usize>() {
                Ok(i) => PathElement::Index(i),
                Err(_) => PathElement::Attribute(s.to_owned()),
            })
            .collect()
    }

    fn check(paths: &[&str]) -> Result<(), String> {
        let paths: Vec<Path> = paths.iter().map(|s| p(s)).collect();
        check_overlaps(&paths, ExpressionKind::Update).map_err(|e| e.message().to_owned())
    }

    #[test]
    fn distinct_paths_pass() {
        assert_eq!(check(&["a", "b", "c.d", "c.e", "l.0", "l.1"]), Ok(()));
    }

    #[test]
    fn the_newest_branch_is_reported_first() {
        assert_eq!(
            check(&["a", "a.d", "b", "b.c"]).unwrap_err(),
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [b], path two: [b, c]"
        );
    }

    #[test]
    fn conflicts_name_the_newest_paths_of_each_branch() {
        assert_eq!(
            check(&["a.0", "a.b"]).unwrap_err(),
            "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; path one: [a, [0]], path two: [a, b]"
        );
    }

    #[test]
    fn the_same_path_twice_overlaps() {
        assert_eq!(
            check(&["x", "a.b", "a.b"]).unwrap_err(),
            "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [a, b], path two: [a, b]"
        );
    }
}
