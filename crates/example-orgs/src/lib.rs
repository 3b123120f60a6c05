//! An organisation's records, declarations and documents in one table, with a status index
//! (S1–S16). Callers authenticate with JWTs; each request's repository comes from the
//! verified token's organisations, never from the path.
//!
//! | pattern                                   | where | key                                           |
//! |-------------------------------------------|-------|-----------------------------------------------|
//! | the organisation's profile                | table | `ORG#{org_id}` / `PROFILE`                    |
//! | its records / declarations / documents    | table | `ORG#{org_id}` / `RECORD#…`, `DECL#…`, `DOC#…`|
//! | everything of an org in one Query         | table | `ORG#{org_id}` (collection)                   |
//! | records by status, oldest change first    | GSI1  | `ORG#{org_id}#STATUS#{status}` / `RECORD#{updated}#{id}` |

use monotable::design::{AccessPattern, Operation, SortOp, TABLE};
use monotable::{
    authenticate, Collection, Conventions, CursorKey, Entity, Error, JwtVerifier, Keys, Page, Query, Sort,
    Table, TableName, Update,
};
use serde::{Deserialize, Serialize};

/// The organisation itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "PROFILE", tenant = org_id)]
pub struct Org {
    pub org_id: String,
    pub name: String,
}

/// A record with a workflow status, versioned for optimistic concurrency.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version,
         gsi1(pk = "ORG#{org_id}#STATUS#{status}", sk = "RECORD#{changed}#{id}"))]
pub struct Record {
    pub org_id: String,
    pub id: String,
    pub status: String,
    pub changed: String,
    pub amount: i64,
    pub version: i64,
}

/// A tax declaration for a period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "DECL#{period}", tenant = org_id)]
pub struct Declaration {
    pub org_id: String,
    pub period: String,
    pub total: i64,
}

/// A document, referenced by its id in the external document store (S18).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "DOC#{doc_id}", tenant = org_id)]
pub struct Document {
    pub org_id: String,
    pub doc_id: String,
    pub storage_ref: String,
}

/// Everything in an organisation's partition.
#[derive(Debug, Clone, PartialEq, Collection)]
pub enum OrgItem {
    /// The profile.
    Org(Org),
    /// A record.
    Record(Record),
    /// A declaration.
    Declaration(Declaration),
    /// A document.
    Document(Document),
}

/// The HS256 secret of this example's tokens.
pub const SECRET: &[u8] = b"example-orgs-secret-example-orgs";

/// Mints a token (what an identity provider would do).
pub fn token(sub: &str, orgs: &[&str]) -> String {
    let exp =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
            + 300;
    let claims = serde_json::json!({"sub": sub, "orgs": orgs, "exp": exp});
    jsonwebtoken::encode(
        &jsonwebtoken::Header::default(),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(SECRET),
    )
    .unwrap_or_default()
}

/// What the scenario observed.
#[derive(Debug, PartialEq)]
pub struct Report {
    /// Open record ids, by change time, in pages of two.
    pub open_pages: Vec<Vec<String>>,
    /// Items in the org partition.
    pub partition: usize,
    /// A stale concurrent update was refused.
    pub stale_update_refused: bool,
    /// A request for another org's data was forbidden.
    pub other_org_forbidden: bool,
    /// Declarations from 2024.
    pub declarations_2024: Vec<String>,
}

/// A handler: lists one status for the org named in the path — through the token's scope.
pub async fn list_by_status(
    table: &Table,
    bearer: &str,
    org_in_path: &str,
    status: &str,
    cursor: Option<&str>,
) -> Result<Page<Record>, Error> {
    let caller = authenticate(&JwtVerifier::hs256(SECRET), bearer)?;
    let records = table.repo::<Record>(&caller.org(org_in_path)?)?; // Forbidden unless held
    records
        .query(
            Query::index("gsi1")
                .partition(Keys::new().with(Record::FIELDS.status, status))
                .limit(2)
                .after(cursor),
        )
        .await
}

/// The application's table, with its access patterns (checked against `design.yaml`).
pub async fn table(client: monotable::dynamodb::Client) -> Result<Table, Error> {
    std::env::set_var("EXAMPLE_ORGS_TABLE", "acme-dev-ledger");
    Table::builder(client)
        .conventions(Conventions::lower())
        .name(TableName::env("EXAMPLE_ORGS_TABLE"))
        .gsi(1)
        .entity::<Org>()
        .entity::<Record>()
        .entity::<Declaration>()
        .entity::<Document>()
        .design_names("acme", "ledger", "ledger")
        .access_pattern(AccessPattern::write("create-org", Operation::Put, "Org", "ORG#{org_id}", "PROFILE"))
        .access_pattern(AccessPattern::write(
            "create-record",
            Operation::Put,
            "Record",
            "ORG#{org_id}",
            "RECORD#{id}",
        ))
        .access_pattern(AccessPattern::write(
            "update-record",
            Operation::Update,
            "Record",
            "ORG#{org_id}",
            "RECORD#{id}",
        ))
        .access_pattern(AccessPattern::write(
            "create-declaration",
            Operation::Put,
            "Declaration",
            "ORG#{org_id}",
            "DECL#{period}",
        ))
        .access_pattern(AccessPattern::write(
            "create-document",
            Operation::Put,
            "Document",
            "ORG#{org_id}",
            "DOC#{doc_id}",
        ))
        .access_pattern(
            AccessPattern::query("list-records-by-status", "gsi1", "ORG#{org_id}#STATUS#{status}")
                .of("Record"),
        )
        .access_pattern(
            AccessPattern::query("list-declarations-of-year", TABLE, "ORG#{org_id}")
                .of("Declaration")
                .sort(SortOp::BeginsWith, "DECL#{period}"),
        )
        .access_pattern(
            AccessPattern::query("org-partition", TABLE, "ORG#{org_id}")
                .of("Org")
                .of("Record")
                .of("Declaration")
                .of("Document")
                .collection(),
        )
        .accept("MT011", "Record.gsi1", "the library writes GSI keys as one string per key part; its entities cannot declare multi-attribute index keys yet")
        .cursor_key(CursorKey::new(b"example-orgs-cursor-key-32-bytes")?)
        .build()
        .await
}

/// Runs the example on any client.
pub async fn run(client: monotable::dynamodb::Client) -> Result<Report, Error> {
    let table = table(client).await?;
    table.create_for_development().await?;

    let bearer = token("ann", &["acme"]);
    let ann = authenticate(&JwtVerifier::hs256(SECRET), &bearer)?;
    let acme = ann.org("acme")?;
    table.repo::<Org>(&acme)?.create(&Org { org_id: "acme".into(), name: "Acme".into() }).await?;
    let records = table.repo::<Record>(&acme)?;
    for (i, status) in ["open", "open", "done", "open", "open"].iter().enumerate() {
        let r = Record {
            org_id: "acme".into(),
            id: format!("r{i}"),
            status: (*status).into(),
            changed: format!("2024-06-0{}", i + 1),
            amount: 100 * i as i64,
            version: 0,
        };
        records.create(&r).await?;
    }
    let decls = table.repo::<Declaration>(&acme)?;
    for p in ["2023-Q4", "2024-Q1", "2024-Q2"] {
        decls.create(&Declaration { org_id: "acme".into(), period: p.into(), total: 1 }).await?;
    }
    let doc = Document {
        org_id: "acme".into(),
        doc_id: "invoice-7".into(),
        storage_ref: "s3://bucket/invoice-7.pdf".into(),
    };
    table.repo::<Document>(&acme)?.create(&doc).await?;

    // Two editors read version 1; the second write loses.
    let key = RecordKey { id: "r1".into() };
    let close = || {
        Update::new()
            .set(Record::FIELDS.status, "done")
            .set(Record::FIELDS.changed, "2024-07-01")
            .expect_version(1)
    };
    records.update(&key, close()).await?;
    let stale_update_refused = matches!(
        records.update(&key, close()).await,
        Err(Error::Conflict { reason: monotable::ConflictReason::VersionMismatch { .. }, .. })
    );

    let mut open_pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = list_by_status(&table, &bearer, "acme", "open", cursor.as_deref()).await?;
        open_pages.push(page.items.into_iter().map(|r| r.id).collect());
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    let other_org_forbidden =
        matches!(list_by_status(&table, &bearer, "globex", "open", None).await, Err(Error::Forbidden(_)));
    let y2024 = decls
        .query(Query::table().sort(Sort::begins_with(Keys::new().with(Declaration::FIELDS.period, "2024"))))
        .await?;
    let partition = table.collection::<OrgItem, _>(&acme, &OrgKey {}, 100, None).await?;
    Ok(Report {
        open_pages,
        partition: partition.items.len(),
        stale_update_refused,
        other_org_forbidden,
        declarations_2024: y2024.items.into_iter().map(|d| d.period).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn code_matches_the_checked_in_design() {
        let table = table(monotable::embedded::client()).await.unwrap();
        monotable::design::assert_matches_file(&table, concat!(env!("CARGO_MANIFEST_DIR"), "/design.yaml"));
    }

    #[tokio::test]
    async fn scenario_runs_on_the_embedded_engine() {
        let report = run(monotable::embedded::client()).await.unwrap();
        assert_eq!(report.open_pages, vec![vec!["r0", "r3"], vec!["r4"]]);
        assert_eq!(report.partition, 1 + 5 + 3 + 1);
        assert!(report.stale_update_refused);
        assert!(report.other_org_forbidden);
        assert_eq!(report.declarations_2024, vec!["2024-Q1", "2024-Q2"]);
    }
}
