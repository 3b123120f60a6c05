//! Verified callers and the scopes they may act in (S12–S14).
//!
//! Invariant: an [`AuthContext`] exists only because a [`Verifier`] vouched for a credential:
//! its fields are private and the only constructor, [`Mint::issue`], needs a `&Mint` that the
//! library lends to a verifier for the duration of one [`authenticate`] call. A [`Scope`]
//! (and so a repository) exists only by asking an `AuthContext` for an organisation it holds,
//! for the caller's own partition, or through the admin capability. An org id taken from a
//! request therefore has no way to reach storage on its own.

use std::collections::BTreeSet;

use crate::error::{Error, ForbiddenReason};

/// The capability that admin-only operations require (S14).
pub const ADMIN: &str = "admin";

/// A verified caller: its id, the organisations it holds and its capabilities.
#[derive(Debug, Clone)]
pub struct AuthContext {
    caller: String,
    orgs: BTreeSet<String>,
    caps: BTreeSet<String>,
}

/// Lent by the library to a [`Verifier`]; the only way to build an [`AuthContext`].
#[derive(Debug)]
pub struct Mint {
    _private: (),
}

impl Mint {
    /// Issues the context for a credential the verifier has checked.
    pub fn issue(
        &self,
        caller: impl Into<String>,
        orgs: impl IntoIterator<Item = String>,
        capabilities: impl IntoIterator<Item = String>,
    ) -> AuthContext {
        AuthContext {
            caller: caller.into(),
            orgs: orgs.into_iter().collect(),
            caps: capabilities.into_iter().collect(),
        }
    }
}

/// Checks a credential (a bearer token, a session id…) and issues the caller's context.
pub trait Verifier: Send + Sync {
    /// Verifies `credential`; on success, issues the context with `mint`.
    fn verify(&self, credential: &str, mint: &Mint) -> Result<AuthContext, Error>;
}

/// Runs a verifier on a credential.
pub fn authenticate(verifier: &(impl Verifier + ?Sized), credential: &str) -> Result<AuthContext, Error> {
    verifier.verify(credential, &Mint { _private: () })
}

/// Which kind of owner a tenant value names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TenantKind {
    /// An organisation the caller holds.
    Org,
    /// The caller's own partition (`#[entity(owner = ...)]`).
    Owner,
}

/// The partition owner a repository is bound to. Obtainable only from an [`AuthContext`].
#[derive(Debug, Clone)]
pub struct Scope {
    pub(crate) tenant: Option<(TenantKind, String)>,
    pub(crate) caller: String,
    pub(crate) admin: bool,
}

impl Scope {
    /// The caller id, stamped as created-by (S4).
    pub fn caller(&self) -> &str {
        &self.caller
    }

    /// The tenant value, if any.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_ref().map(|(_, t)| t.as_str())
    }

    /// What cursors are bound to.
    pub(crate) fn cursor_tenant(&self) -> String {
        match &self.tenant {
            Some((TenantKind::Org, t)) => format!("org:{t}"),
            Some((TenantKind::Owner, t)) => format!("owner:{t}"),
            None => "*".into(),
        }
    }
}

impl AuthContext {
    /// The caller id.
    pub fn caller(&self) -> &str {
        &self.caller
    }

    /// The organisations held.
    pub fn organisations(&self) -> impl Iterator<Item = &str> {
        self.orgs.iter().map(String::as_str)
    }

    /// Whether the caller has a capability.
    pub fn has_capability(&self, capability: &str) -> bool {
        self.caps.contains(capability)
    }

    /// The scope of an organisation the caller holds; [`Error::Forbidden`] otherwise (S13).
    pub fn org(&self, org_id: &str) -> Result<Scope, Error> {
        if !self.orgs.contains(org_id) {
            tracing::debug!(caller = %self.caller, "refused access to an organisation not held");
            return Err(Error::Forbidden(ForbiddenReason::NotAMember));
        }
        Ok(Scope {
            tenant: Some((TenantKind::Org, org_id.to_string())),
            caller: self.caller.clone(),
            admin: false,
        })
    }

    /// The caller's own partition, for entities declared with `owner = ...`.
    pub fn personal(&self) -> Scope {
        Scope {
            tenant: Some((TenantKind::Owner, self.caller.clone())),
            caller: self.caller.clone(),
            admin: false,
        }
    }

    /// Admin powers, if the caller has the [`ADMIN`] capability (S14).
    pub fn admin(&self) -> Result<AdminScope, Error> {
        if !self.has_capability(ADMIN) {
            return Err(Error::Forbidden(ForbiddenReason::AdminRequired));
        }
        Ok(AdminScope { caller: self.caller.clone() })
    }
}

/// What an admin may do: act in any tenant, and run cross-tenant listings.
#[derive(Debug, Clone)]
pub struct AdminScope {
    caller: String,
}

impl AdminScope {
    /// Any organisation's scope.
    pub fn org(&self, org_id: &str) -> Scope {
        Scope {
            tenant: Some((TenantKind::Org, org_id.to_string())),
            caller: self.caller.clone(),
            admin: true,
        }
    }
    /// Any user's own partition.
    pub fn owner(&self, user_id: &str) -> Scope {
        Scope {
            tenant: Some((TenantKind::Owner, user_id.to_string())),
            caller: self.caller.clone(),
            admin: true,
        }
    }
    /// No tenant: for cross-tenant listings on indexes whose partition has no tenant (S14).
    pub fn global(&self) -> Scope {
        Scope { tenant: None, caller: self.caller.clone(), admin: true }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed;
    impl Verifier for Fixed {
        fn verify(&self, credential: &str, mint: &Mint) -> Result<AuthContext, Error> {
            match credential {
                "alice" => Ok(mint.issue("alice", ["org-1".to_string()], [])),
                "root" => Ok(mint.issue("root", [], [ADMIN.to_string()])),
                _ => Err(Error::Unauthenticated("unknown".into())),
            }
        }
    }

    #[test]
    fn s13_org_not_held_is_forbidden() {
        let alice = authenticate(&Fixed, "alice").unwrap();
        assert!(alice.org("org-1").is_ok());
        assert!(matches!(alice.org("org-2"), Err(Error::Forbidden(ForbiddenReason::NotAMember))));
    }

    #[test]
    fn s14_admin_needs_the_capability() {
        let alice = authenticate(&Fixed, "alice").unwrap();
        assert!(matches!(alice.admin(), Err(Error::Forbidden(ForbiddenReason::AdminRequired))));
        let root = authenticate(&Fixed, "root").unwrap();
        assert_eq!(root.admin().unwrap().org("org-9").tenant(), Some("org-9"));
    }

    #[test]
    fn unknown_credential_is_unauthenticated() {
        assert!(matches!(authenticate(&Fixed, "mallory"), Err(Error::Unauthenticated(_))));
    }

    #[test]
    fn cursor_tenant_distinguishes_orgs_from_owners() {
        let alice = authenticate(&Fixed, "alice").unwrap();
        assert_ne!(alice.personal().cursor_tenant(), alice.org("org-1").unwrap().cursor_tenant());
    }
}
