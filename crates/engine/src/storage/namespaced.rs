//! One store shared by the engines of several locations.
//!
//! Every name an engine gives its store (keyspaces, catalog entries) is, in a location other
//! than the default one, prefixed with `@<account>/<region>/`. The default location keeps bare
//! names, so a store written before locations existed opens there with nothing to convert.
//!
//! Architecture Invariant: names the engine makes never start with [`MARKER`] (table names are
//! `[a-zA-Z0-9_.-]+`, keyspaces are table ids, `$…` and `<id>/…`, catalog entries table names
//! and `$…`), so a prefixed name is never mistaken for a bare one, and the default location
//! skips every prefixed catalog entry.

use std::sync::Arc;

use super::{Keyspace, Storage, StorageError, WriteBatch};
use crate::Location;

/// The first character of every prefixed name.
const MARKER: char = '@';

/// A view of `base` holding only the names of one location.
pub(crate) struct Namespaced {
    base: Arc<dyn Storage>,
    /// Empty for the default location.
    prefix: String,
}

impl Namespaced {
    pub(crate) fn new(base: Arc<dyn Storage>, location: &Location) -> Namespaced {
        let prefix = match location.is_default() {
            true => String::new(),
            false => format!("{MARKER}{}/{}/", location.account(), location.region_name()),
        };
        Namespaced { base, prefix }
    }

    /// The store's name for the engine's `name`. A keyspace's own [`Keyspace::name`] is already
    /// the store's name (the engine drops keyspaces by it), and passes unchanged.
    fn full(&self, name: &str) -> String {
        match name.starts_with(MARKER) {
            true => name.to_owned(),
            false => format!("{}{name}", self.prefix),
        }
    }
}

impl Storage for Namespaced {
    fn open_keyspace(&self, name: &str) -> Result<Arc<dyn Keyspace>, StorageError> {
        self.base.open_keyspace(&self.full(name))
    }

    fn drop_keyspace(&self, name: &str) -> Result<(), StorageError> {
        self.base.drop_keyspace(&self.full(name))
    }

    fn commit(&self, batch: WriteBatch) -> Result<(), StorageError> {
        self.base.commit(batch)
    }

    fn writes_may_block(&self) -> bool {
        self.base.writes_may_block()
    }

    fn barrier(&self) -> Result<(), StorageError> {
        self.base.barrier()
    }

    fn load_catalog(&self) -> Result<Vec<(String, Vec<u8>)>, StorageError> {
        let mut entries = self.base.load_catalog()?;
        entries.retain_mut(|(name, _)| match self.prefix.is_empty() {
            true => !name.starts_with(MARKER),
            false => match name.strip_prefix(&self.prefix) {
                Some(bare) => {
                    *name = bare.to_owned();
                    true
                }
                None => false,
            },
        });
        Ok(entries)
    }

    fn put_catalog(&self, name: &str, value: Option<Vec<u8>>) -> Result<(), StorageError> {
        self.base.put_catalog(&self.full(name), value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStorage;

    #[test]
    fn each_location_sees_only_its_own_catalog_and_the_default_keeps_bare_names() {
        let base: Arc<dyn Storage> = Arc::new(MemoryStorage::new());
        let home = Namespaced::new(Arc::clone(&base), &Location::default());
        let west = Namespaced::new(Arc::clone(&base), &Location::region("eu-west-1"));
        home.put_catalog("T", Some(b"home".to_vec())).unwrap();
        west.put_catalog("T", Some(b"west".to_vec())).unwrap();
        let names = |s: &dyn Storage| s.load_catalog().unwrap();
        assert_eq!(names(&home), vec![("T".to_owned(), b"home".to_vec())]);
        assert_eq!(names(&west), vec![("T".to_owned(), b"west".to_vec())]);
        let mut all: Vec<String> = names(base.as_ref()).into_iter().map(|(n, _)| n).collect();
        all.sort();
        assert_eq!(all, ["@000000000000/eu-west-1/T", "T"]);
        let ks = west.open_keyspace("id").unwrap();
        assert_eq!(ks.name(), "@000000000000/eu-west-1/id");
        west.drop_keyspace(ks.name()).unwrap();
    }
}
