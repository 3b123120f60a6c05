//! The generated Rust compiles (this crate's sources are the generated files), builds tables
//! whose designs equal the example design files, works through the library, and the
//! checked-in generated files are what the generator writes now.

use monotable::design::assert_matches_file;
use monotable::{authenticate, AuthContext, CursorKey, Error, Mint, TableName, Verifier};
use monotable_codegen_check::{ledger, users};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn cursor_key() -> CursorKey {
    CursorKey::new(b"codegen-check-cursor-key-32bytes").expect("a 32-byte key")
}

#[tokio::test]
async fn generated_users_module_matches_the_users_design() {
    let table = users::table(monotable::embedded::client(), TableName::resolved("users"), cursor_key())
        .await
        .unwrap();
    assert_matches_file(&table, format!("{ROOT}/crates/example-users/design.yaml"));
}

#[tokio::test]
async fn generated_ledger_module_matches_the_orgs_design() {
    let table = ledger::table(monotable::embedded::client(), TableName::resolved("ledger"), cursor_key())
        .await
        .unwrap();
    assert_matches_file(&table, format!("{ROOT}/crates/example-orgs/design.yaml"));
}

/// Callers named `user:<id>`, each holding the organisation `acme`.
struct Callers;

impl Verifier for Callers {
    fn verify(&self, credential: &str, mint: &Mint) -> Result<AuthContext, Error> {
        match credential.strip_prefix("user:") {
            Some(id) if !id.is_empty() => Ok(mint.issue(id, ["acme".to_string()], [])),
            _ => Err(Error::Unauthenticated("unknown caller".into())),
        }
    }
}

#[tokio::test]
async fn generated_entities_round_trip_through_the_library() {
    let table = users::table(monotable::embedded::client(), TableName::resolved("users-rt"), cursor_key())
        .await
        .unwrap();
    table.create_for_development().await.unwrap();
    let alice = authenticate(&Callers, "user:alice").unwrap();
    let user =
        users::User { user_id: "alice".into(), email: "alice@example.com".into(), name: "Alice".into() };
    let repo = table.repo::<users::User>(&alice.personal()).unwrap();
    repo.create(&user).await.unwrap();
    let posts = table.repo::<users::Post>(&alice.personal()).unwrap();
    let post = users::Post { user_id: "alice".into(), post_id: "p1".into(), title: "Hello".into() };
    posts.create(&post).await.unwrap();
    let anchor = users::UserKey {};
    let partition =
        table.collection::<users::UserPartitionItem, _>(&alice.personal(), &anchor, 10, None).await.unwrap();
    assert_eq!(
        partition.items,
        vec![users::UserPartitionItem::Post(post), users::UserPartitionItem::User(user)]
    );
}

/// The checked-in generated files and the commands that wrote them (the header names the
/// command, so it is part of the text).
const GENERATED: [(&str, &str, &str); 5] = [
    ("crates/example-users/design.yaml", "rust", "crates/codegen-check/src/users.rs"),
    ("crates/example-orgs/design.yaml", "rust", "crates/codegen-check/src/ledger.rs"),
    ("crates/example-users/design.yaml", "typescript", "tests/typescript/generated/users.ts"),
    ("crates/example-orgs/design.yaml", "typescript", "tests/typescript/generated/ledger.ts"),
    // Every shape the TypeScript generator writes, for tsc --strict.
    ("crates/design/tests/fixtures/codegen.yaml", "typescript", "tests/typescript/generated/kitchen.ts"),
];

#[test]
fn checked_in_generated_files_are_what_the_generator_writes_now() {
    let update = std::env::var_os("MONOTABLE_CODEGEN_UPDATE").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (design, lang, file) in GENERATED {
        let text = std::fs::read_to_string(format!("{ROOT}/{design}")).unwrap();
        let parsed = monotable_design::Design::parse(&text).unwrap();
        let command = format!("monotable design codegen {design} --lang {lang}");
        let out = match lang {
            "rust" => monotable_design::codegen::rust(&parsed, &command),
            _ => monotable_design::codegen::typescript(&parsed, &command),
        }
        .unwrap();
        assert!(file.ends_with(&out.file_name), "{file} is not named {}", out.file_name);
        let path = format!("{ROOT}/{file}");
        if update {
            std::fs::write(&path, &out.text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(out.text.as_str()) {
            stale.push(format!(
                "{file}: run `{command} -o {}`",
                file.rsplit_once('/').map_or(".", |(d, _)| d)
            ));
        }
    }
    assert!(stale.is_empty(), "generated files differ from the generator's output:\n{}", stale.join("\n"));
}

/// The time the library's planned writes and tests/typescript/test/patterns.test.ts stamp.
const NOW: &str = "2024-05-01T10:00:00.000Z";

/// The items of a planned write, in DynamoDB's JSON wire form.
fn planned_items(request: &monotable::Request) -> Vec<serde_json::Value> {
    let body = request.to_json();
    match body.get("TransactItems") {
        Some(actions) => actions.as_array().unwrap().iter().map(|a| a["Put"]["Item"].clone()).collect(),
        None => vec![body["Item"].clone()],
    }
}

/// What the Rust library stores for the example creates, for the TypeScript test to compare
/// its write builders with (tests/typescript/fixtures/library-items.json; kept current like
/// the generated files).
#[tokio::test]
async fn the_library_items_the_typescript_test_compares_with_are_current() {
    let caller = authenticate(&Callers, "user:alice").unwrap();
    let t = users::table(monotable::embedded::client(), TableName::resolved("users"), cursor_key())
        .await
        .unwrap();
    let user =
        users::User { user_id: "alice".into(), email: "alice@example.com".into(), name: "Alice".into() };
    let post = users::Post { user_id: "alice".into(), post_id: "p#1".into(), title: "Hello".into() };
    let user_plan = t.repo::<users::User>(&caller.personal()).unwrap().plan_at(NOW).create(&user).unwrap();
    let post_plan = t.repo::<users::Post>(&caller.personal()).unwrap().plan_at(NOW).create(&post).unwrap();
    let t = ledger::table(monotable::embedded::client(), TableName::resolved("ledger"), cursor_key())
        .await
        .unwrap();
    let record = ledger::Record {
        org_id: "acme".into(),
        id: "r0".into(),
        status: "open".into(),
        changed: "2024-05-01T00:00:00Z".into(),
        amount: "10".into(),
        version: 7,
    };
    let acme = caller.org("acme").unwrap();
    let record_plan = t.repo::<ledger::Record>(&acme).unwrap().plan_at(NOW).create(&record).unwrap();
    let items = serde_json::json!({
        "now": NOW,
        "create-user": planned_items(&user_plan),
        "create-post": planned_items(&post_plan),
        "create-record": planned_items(&record_plan),
    });
    let text = serde_json::to_string_pretty(&items).unwrap() + "\n";
    let path = format!("{ROOT}/tests/typescript/fixtures/library-items.json");
    if std::env::var_os("MONOTABLE_CODEGEN_UPDATE").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(&path).ok().as_deref(),
        Some(text.as_str()),
        "{path} is not what the library plans; MONOTABLE_CODEGEN_UPDATE=1 rewrites it"
    );
}
