//! The placeholder keys a request's expressions used, each once.

use std::collections::HashSet;

/// A request usually uses a handful of placeholders, and comparing a few short strings costs
/// far less than hashing them, so the first few keys are searched linearly; past that a hash
/// set takes over, so that marking n keys costs O(n), never O(n²), whatever a request holds.
const LINEAR_UP_TO: usize = 8;

/// Keys borrowed from a request's placeholder maps, in the order first used, without repeats.
#[derive(Default)]
pub(crate) struct Used<'a> {
    keys: Vec<&'a str>,
    /// Mirrors `keys` once it is longer than [`LINEAR_UP_TO`]; empty before.
    index: HashSet<&'a str>,
}

impl<'a> Used<'a> {
    /// Notes `key` as used.
    pub(crate) fn mark(&mut self, key: &'a str) {
        if !self.contains(key) {
            self.keys.push(key);
            if self.keys.len() > LINEAR_UP_TO {
                if self.index.is_empty() {
                    self.index.extend(self.keys.iter().copied());
                } else {
                    self.index.insert(key);
                }
            }
        }
    }

    /// Whether `key` was used.
    pub(crate) fn contains(&self, key: &str) -> bool {
        if self.keys.len() > LINEAR_UP_TO {
            self.index.contains(key)
        } else {
            self.keys.contains(&key)
        }
    }

    /// How many distinct keys were used.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_counted_once_before_and_after_the_hash_set_takes_over() {
        let keys: Vec<String> = (0..20).map(|i| format!(":v{i}")).collect();
        let mut used = Used::default();
        for _ in 0..2 {
            for k in &keys {
                used.mark(k);
            }
        }
        assert_eq!(used.len(), 20);
        assert!(keys.iter().all(|k| used.contains(k)));
        assert!(!used.contains(":other"));
    }
}
