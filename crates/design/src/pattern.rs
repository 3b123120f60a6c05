//! Short constructors for access patterns, for the table builder and tests.

use crate::model::{AccessPattern, KeyCondition, Operation, Scope, SortCondition, SortOp, TABLE};

impl AccessPattern {
    /// A tenant-scoped pattern of `operation` on `index` (`table` or an index name) whose
    /// partition key is the template `pk`.
    pub fn new(name: &str, operation: Operation, index: &str, pk: &str) -> Self {
        AccessPattern {
            name: name.into(),
            entities: Vec::new(),
            index: index.into(),
            operation,
            key: Some(KeyCondition { pk: pk.into(), sk: None }),
            scope: Scope::Tenant,
            collection: false,
            filter: Vec::new(),
            order: None,
            order_by: None,
            reads: Vec::new(),
            max_items: None,
            limit: None,
        }
    }

    /// GetItem of one entity by its full table key.
    pub fn get(name: &str, entity: &str, pk: &str, sk: &str) -> Self {
        AccessPattern::new(name, Operation::Get, TABLE, pk).of(entity).sort(SortOp::Eq, sk)
    }

    /// Query on `index` (`table` or an index name).
    pub fn query(name: &str, index: &str, pk: &str) -> Self {
        AccessPattern::new(name, Operation::Query, index, pk)
    }

    /// A write (`put`, `update`, `delete`, `transact_write`) of one entity by its table key.
    pub fn write(name: &str, operation: Operation, entity: &str, pk: &str, sk: &str) -> Self {
        AccessPattern::new(name, operation, TABLE, pk).of(entity).sort(SortOp::Eq, sk)
    }

    /// Adds an entity type the pattern reads or writes.
    pub fn of(mut self, entity: &str) -> Self {
        self.entities.push(entity.into());
        self
    }

    /// Sets the sort-key condition.
    pub fn sort(mut self, op: SortOp, value: &str) -> Self {
        if let Some(k) = &mut self.key {
            k.sk = Some(SortCondition { op, value: value.into() });
        }
        self
    }

    /// Makes the pattern admin-only (S14).
    pub fn admin(mut self) -> Self {
        self.scope = Scope::Admin;
        self
    }

    /// Marks the pattern as returning several entity types in one Query.
    pub fn collection(mut self) -> Self {
        self.collection = true;
        self
    }

    /// Adds an attribute filtered on after the key condition.
    pub fn filter(mut self, attr: &str) -> Self {
        self.filter.push(attr.into());
        self
    }
}
