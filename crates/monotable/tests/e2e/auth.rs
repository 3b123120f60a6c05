//! Auth and tenancy (S12–S14) and JWT verification.

use jsonwebtoken::{encode, Algorithm, EncodingKey, Header};
use monotable::{authenticate, Error, ForbiddenReason, JwtVerifier, Keys, Query};

use crate::common::*;

#[tokio::test]
async fn s13_org_not_held_is_forbidden_before_any_request() {
    let alice = caller("alice", &["org-1"], &[]);
    assert!(matches!(alice.org("org-2"), Err(Error::Forbidden(ForbiddenReason::NotAMember))));
}

#[tokio::test]
async fn s12_item_for_another_tenant_is_refused_before_storage() {
    // The dead client would turn any request into a Backend error; Forbidden proves none was sent.
    let table =
        register(base_builder(dead_client(), monotable::Conventions::lower(), "t")).build().await.unwrap();
    let repo = table.repo::<Record>(&caller("alice", &["org-1"], &[]).org("org-1").unwrap()).unwrap();
    for result in [
        repo.create(&Record::new("org-2", "r1", "open")).await,
        repo.put(&Record::new("org-2", "r1", "open")).await,
        repo.create_idempotent("k", &Record::new("org-2", "r1", "open")).await,
    ] {
        assert!(matches!(result, Err(Error::Forbidden(ForbiddenReason::TenantMismatch))), "{result:?}");
    }
    // A tenant value passed as a query partition value is refused too.
    let q = Query::table().partition(Keys::new().with(Record::FIELDS.org_id, "org-2"));
    assert!(matches!(repo.query(q).await, Err(Error::Forbidden(ForbiddenReason::TenantMismatch))));
}

#[tokio::test]
async fn s12_scopes_isolate_tenants() {
    let table = table().await;
    let both = caller("carol", &["org-1", "org-2"], &[]);
    let r1 = table.repo::<Record>(&both.org("org-1").unwrap()).unwrap();
    let r2 = table.repo::<Record>(&both.org("org-2").unwrap()).unwrap();
    r1.create(&Record::new("org-1", "same-id", "open")).await.unwrap();
    let key = RecordKey { id: "same-id".into() };
    assert!(matches!(r2.get(&key).await, Err(Error::NotFound { .. })), "org-2 cannot see org-1's record");
    assert_eq!(r2.list(10, None).await.unwrap().items.len(), 0);
    assert_eq!(r1.list(10, None).await.unwrap().items.len(), 1);
}

#[tokio::test]
async fn s12_owner_partitioned_types_need_a_personal_scope() {
    let table = table().await;
    let alice = caller("alice", &["alice"], &[]);
    // An org scope whose id happens to equal a user id cannot open an owner-partitioned type.
    assert!(matches!(
        table.repo::<User>(&alice.org("alice").unwrap()),
        Err(Error::Forbidden(ForbiddenReason::TenantMismatch))
    ));
    let users = table.repo::<User>(&alice.personal()).unwrap();
    users
        .create(&User { user_id: "alice".into(), email: "a@example.com".into(), name: "Alice".into() })
        .await
        .unwrap();
    // Alice cannot write Bob's profile from her own scope.
    let bob = User { user_id: "bob".into(), email: "b@example.com".into(), name: "Bob".into() };
    assert!(matches!(users.create(&bob).await, Err(Error::Forbidden(ForbiddenReason::TenantMismatch))));
    assert_eq!(users.get(&UserKey {}).await.unwrap().name, "Alice");
}

#[tokio::test]
async fn s14_admin_listing_needs_the_admin_capability_and_is_paginated() {
    let table = table().await;
    for u in ["u1", "u2", "u3"] {
        let me = caller(u, &[], &[]);
        table
            .repo::<User>(&me.personal())
            .unwrap()
            .create(&User { user_id: u.into(), email: format!("{u}@example.com"), name: u.into() })
            .await
            .unwrap();
    }
    let plain = caller("u1", &[], &[]);
    assert!(matches!(plain.admin(), Err(Error::Forbidden(ForbiddenReason::AdminRequired))));
    // Even with a personal scope, a cross-tenant index is refused without admin.
    let mine = table.repo::<User>(&plain.personal()).unwrap();
    assert!(matches!(
        mine.query(Query::index("gsi2")).await,
        Err(Error::Forbidden(ForbiddenReason::AdminRequired))
    ));
    let admin = caller("root", &[], &["admin"]).admin().unwrap();
    let all = table.repo::<User>(&admin.global()).unwrap();
    let first = all.query(Query::index("gsi2").limit(2)).await.unwrap();
    assert_eq!(first.items.len(), 2);
    let rest = all.query(Query::index("gsi2").limit(2).after(first.cursor.as_deref())).await.unwrap();
    assert_eq!(rest.items.len(), 1);
    // Get by email on GSI1 is likewise an admin (cross-tenant) access path.
    let by_email = all
        .query(Query::index("gsi1").partition(Keys::new().with(User::FIELDS.email, "u2@example.com")))
        .await
        .unwrap();
    assert_eq!(by_email.items.iter().map(|u| u.user_id.as_str()).collect::<Vec<_>>(), vec!["u2"]);
    // A global admin scope has no tenant, so keyed access to tenant types is refused.
    assert!(matches!(all.get(&UserKey {}).await, Err(Error::Forbidden(ForbiddenReason::NoTenant))));
}

#[test]
fn jwt_hs256_valid_expired_and_forged_tokens() {
    let v = JwtVerifier::hs256(JWT_SECRET);
    let ctx = authenticate(&v, &token("alice", &["org-1"], &["admin"])).unwrap();
    assert_eq!(ctx.caller(), "alice");
    assert!(ctx.has_capability("admin"));
    assert_eq!(ctx.organisations().collect::<Vec<_>>(), vec!["org-1"]);
    let expired = encode(
        &Header::default(),
        &serde_json::json!({"sub": "alice", "exp": 1_000_000}),
        &EncodingKey::from_secret(JWT_SECRET),
    )
    .unwrap();
    assert!(matches!(authenticate(&v, &expired), Err(Error::Unauthenticated(_))));
    let forged = authenticate(
        &JwtVerifier::hs256(b"another-secret-another-secret-xx"),
        &token("alice", &["org-1"], &[]),
    );
    assert!(matches!(forged, Err(Error::Unauthenticated(_))));
    assert!(matches!(authenticate(&v, "garbage"), Err(Error::Unauthenticated(_))));
}

#[test]
fn jwt_rs256_with_a_pem_public_key_and_a_jwk_set() {
    let private = include_bytes!("../fixtures/rsa_private.pem");
    let public = include_bytes!("../fixtures/rsa_public.pem");
    let exp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 60;
    let claims =
        serde_json::json!({"sub": "svc", "orgs": ["o"], "scope": "admin read", "exp": exp, "iss": "issuer"});
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("k1".into());
    let tok = encode(&header, &claims, &EncodingKey::from_rsa_pem(private).unwrap()).unwrap();
    let v = JwtVerifier::rs256_pem(public).unwrap().issuer("issuer");
    let ctx = authenticate(&v, &tok).unwrap();
    assert!(ctx.has_capability("admin") && ctx.has_capability("read"));
    let wrong_issuer = JwtVerifier::rs256_pem(public).unwrap().issuer("someone-else");
    assert!(matches!(authenticate(&wrong_issuer, &tok), Err(Error::Unauthenticated(_))));
    let jwks = JwtVerifier::rs256_jwks(include_str!("../fixtures/jwks.json")).unwrap();
    assert_eq!(authenticate(&jwks, &tok).unwrap().caller(), "svc");
    // HS256 token presented to an RS256 verifier (algorithm confusion) is refused.
    assert!(matches!(authenticate(&v, &token("x", &[], &[])), Err(Error::Unauthenticated(_))));
}
