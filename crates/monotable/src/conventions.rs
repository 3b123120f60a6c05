//! Attribute naming conventions, chosen once per table (S2).

use crate::error::Error;

/// The names of the attributes the library writes itself.
///
/// Invariant: one convention per table; `created` and `updated` share a suffix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conventions {
    /// Partition key attribute.
    pub pk: String,
    /// Sort key attribute.
    pub sk: String,
    /// Entity-type attribute (S3).
    pub entity_type: String,
    /// Created timestamp, set once (S4).
    pub created: String,
    /// Updated timestamp, set on every write (S4).
    pub updated: String,
    /// Created-by: the caller id of the first write (S4).
    pub created_by: String,
    /// The table's TTL attribute (epoch seconds).
    pub ttl: String,
    upper: bool,
}

impl Conventions {
    /// `PK`, `SK`, `EntityType`, `GSI1PK`/`GSI1SK`, `CreatedAt`, `UpdatedAt`, `CreatedBy`, `TTL`.
    pub fn upper() -> Self {
        Conventions {
            pk: "PK".into(),
            sk: "SK".into(),
            entity_type: "EntityType".into(),
            created: "CreatedAt".into(),
            updated: "UpdatedAt".into(),
            created_by: "CreatedBy".into(),
            ttl: "TTL".into(),
            upper: true,
        }
    }

    /// `pk`, `sk`, `entityType`, `gsi1pk`/`gsi1sk`, `createdOn`, `updatedOn`, `createdBy`, `ttl`.
    pub fn lower() -> Self {
        Conventions {
            pk: "pk".into(),
            sk: "sk".into(),
            entity_type: "entityType".into(),
            created: "createdOn".into(),
            updated: "updatedOn".into(),
            created_by: "createdBy".into(),
            ttl: "ttl".into(),
            upper: false,
        }
    }

    /// Replaces the timestamp and author names, keeping the key names of this preset.
    /// Refused unless both timestamps share one suffix (`…At`/`…At`, `…On`/`…On`).
    pub fn with_stamps(mut self, created: &str, updated: &str, created_by: &str) -> Result<Self, Error> {
        let suffix = |s: &str| s.chars().rev().take(2).collect::<String>();
        if created.len() < 3 || updated.len() < 3 || suffix(created) != suffix(updated) {
            return Err(Error::Config(format!(
                "`{created}` and `{updated}` must share one timestamp suffix (one convention per table)"
            )));
        }
        self.created = created.into();
        self.updated = updated.into();
        self.created_by = created_by.into();
        Ok(self)
    }

    /// The DynamoDB index name of `gsiN` (`GSI1` or `gsi1`).
    pub fn index_name(&self, logical: &str) -> String {
        if self.upper {
            logical.to_ascii_uppercase()
        } else {
            logical.to_string()
        }
    }

    /// The partition key attribute of `gsiN` (`GSI1PK` or `gsi1pk`).
    pub fn index_pk(&self, logical: &str) -> String {
        format!("{}{}", self.index_name(logical), if self.upper { "PK" } else { "pk" })
    }

    /// The sort key attribute of `gsiN` (`GSI1SK` or `gsi1sk`).
    pub fn index_sk(&self, logical: &str) -> String {
        format!("{}{}", self.index_name(logical), if self.upper { "SK" } else { "sk" })
    }

    /// Every attribute name the library owns, for clash checks against entity fields.
    pub(crate) fn reserved(&self) -> Vec<&str> {
        vec![&self.pk, &self.sk, &self.entity_type, &self.created, &self.updated, &self.created_by, &self.ttl]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s2_presets_name_keys_and_indexes() {
        let u = Conventions::upper();
        assert_eq!(
            (u.index_name("gsi1"), u.index_pk("gsi1"), u.index_sk("gsi1")),
            ("GSI1".into(), "GSI1PK".into(), "GSI1SK".into())
        );
        let l = Conventions::lower();
        assert_eq!(
            (l.index_name("gsi2"), l.index_pk("gsi2"), l.index_sk("gsi2")),
            ("gsi2".into(), "gsi2pk".into(), "gsi2sk".into())
        );
    }

    #[test]
    fn s2_mixed_timestamp_suffixes_are_refused() {
        assert!(Conventions::lower().with_stamps("createdAt", "updatedOn", "by").is_err());
        assert!(Conventions::lower().with_stamps("created_at", "updated_at", "created_by").is_ok());
    }
}
