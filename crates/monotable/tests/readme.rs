//! Every ```rust block of README.md is compiled and run: each is, character for character, the
//! region between a `// README begin` and a `// README end` line (less the indentation of the
//! begin line) of a program tested here or in `crates/embedded/tests/readme_example.rs`. The
//! programs supply what a fragment leaves to the application (secrets, a token, a handler).
//! Each program is `#[rustfmt::skip]`, so the README keeps its compact layout.

use jsonwebtoken::{encode, EncodingKey, Header};

const README: &str = include_str!("../../../README.md");

/// The files holding the tested programs, with their text.
const PROGRAMS: [(&str, &str); 2] = [
    ("crates/monotable/tests/readme.rs", include_str!("readme.rs")),
    ("crates/embedded/tests/readme_example.rs", include_str!("../../embedded/tests/readme_example.rs")),
];

const BEGIN: &str = "// README begin";
const END: &str = "// README end";

/// The bodies of the markdown's ```rust blocks, in order.
fn rust_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match &mut current {
            None if line.trim_end() == "```rust" => current = Some(String::new()),
            None => {}
            Some(_) if line.trim_end() == "```" => blocks.extend(current.take()),
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    assert!(current.is_none(), "README.md has an unclosed ```rust block");
    blocks
}

/// The marked regions of a source file, each less the indentation of its begin marker.
fn regions(source: &str) -> Vec<String> {
    let mut regions = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for line in source.lines() {
        match &mut current {
            None if line.trim() == BEGIN => {
                current = Some((line.len() - line.trim_start().len(), String::new()))
            }
            None => {}
            Some(_) if line.trim() == END => regions.extend(current.take().map(|(_, r)| r)),
            Some((indent, region)) => {
                region.push_str(line.get(*indent..).unwrap_or("").trim_end());
                region.push('\n');
            }
        }
    }
    regions
}

#[test]
fn every_rust_block_of_the_readme_is_the_region_of_a_tested_program() {
    let blocks = rust_blocks(README);
    assert!(blocks.len() >= 4, "the README's Rust blocks were not found: {}", blocks.len());
    let tested: Vec<(&str, String)> =
        PROGRAMS.iter().flat_map(|(file, text)| regions(text).into_iter().map(move |r| (*file, r))).collect();
    for block in &blocks {
        assert!(
            tested.iter().any(|(_, region)| region == block),
            "this README block is no tested program's region; copy it between `{BEGIN}` and `{END}` \
             in one of {:?} and make it run:\n{block}",
            PROGRAMS.map(|(f, _)| f)
        );
    }
    for (file, region) in &tested {
        assert!(blocks.contains(region), "{file} has a README region that is not in README.md:\n{region}");
    }
}

#[test]
fn block_extraction_keeps_the_text_and_strips_only_the_marker_indentation() {
    let markdown = "x\n```rust\nlet a = 1;\n\n  b();\n```\n```sh\nls\n```\n";
    assert_eq!(rust_blocks(markdown), ["let a = 1;\n\n  b();\n"]);
    let source = format!("fn f() {{\n    {BEGIN}\n    let a = 1;\n\n      b();\n    {END}\n}}\n");
    assert_eq!(regions(&source), ["let a = 1;\n\n  b();\n"]);
}

const JWT_SECRET: &[u8] = b"readme-jwt-secret-readme-jwt-sec";

/// An HS256 token for caller `alice` holding `orgs`, valid ten minutes.
fn bearer_for(orgs: &[&str]) -> String {
    let exp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + 600;
    let claims = serde_json::json!({ "sub": "alice", "orgs": orgs, "exp": exp });
    encode(&Header::default(), &claims, &EncodingKey::from_secret(JWT_SECRET)).unwrap()
}

/// The README's library example; returns how many records the first page lists.
#[rustfmt::skip]
async fn library_example(
    secret: &[u8],
    jwt_secret: &[u8],
    bearer: &str,
    org_id: &str,
    cursor: Option<&str>,
) -> Result<usize, monotable::Error> {
    // README begin
    use monotable::{Conventions, CursorKey, Entity, JwtVerifier, Keys, Query, Table, TableName};
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Entity)]
    #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id, version = version,
             gsi1(pk = "ORG#{org_id}#STATUS#{status}", sk = "RECORD#{id}"))]
    struct Record { org_id: String, id: String, status: String, version: i64 }

    let table = Table::builder(monotable::embedded::client()).conventions(Conventions::lower())
        .name(TableName::env("RECORDS_TABLE")).gsi(1).entity::<Record>()
        .cursor_key(CursorKey::new(secret)?).build().await?;
    table.create_for_development().await?;   // a fresh embedded engine has no tables
    let caller = monotable::authenticate(&JwtVerifier::hs256(jwt_secret), bearer)?;
    let records = table.repo::<Record>(&caller.org(org_id)?)?;        // Forbidden unless held
    records.create(&Record { org_id: org_id.into(), id: "r1".into(), status: "open".into(), version: 0 }).await?;
    let page = records.query(Query::index("gsi1")
        .partition(Keys::new().with(Record::FIELDS.status, "open")).limit(20).after(cursor)).await?;
    // README end
    Ok(page.items.len())
}

#[tokio::test]
async fn the_readme_library_example_creates_its_table_and_lists_the_record() {
    // The only test of this file that reads the variable; every value is the same.
    std::env::set_var("RECORDS_TABLE", "readme-records");
    let listed = library_example(&[7u8; 32], JWT_SECRET, &bearer_for(&["org-1"]), "org-1", None).await;
    assert_eq!(listed.expect("the README example runs"), 1);
    let refused = library_example(&[7u8; 32], JWT_SECRET, &bearer_for(&["org-2"]), "org-1", None).await;
    assert!(matches!(refused, Err(monotable::Error::Forbidden(_))), "{refused:?}");
}

/// The README's change-stream example, on an embedded engine whose table has a stream; returns
/// what the handler saw (kind, new record's id), from the consumer and then from the Lambda event.
#[rustfmt::skip]
mod changes_example {
    use monotable::changes::{
        ChangeConsumer, ChangeDecoder, ChangeKind, ChangeRecord, DynamoDbEvent, EventRecord, FileCheckpoint,
    };
    use monotable::dynamodb::types::{StreamSpecification, StreamViewType};
    use monotable::{Collection, Conventions, CursorKey, Entity, Table, TableName};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, Serialize, Deserialize, Entity)]
    #[entity(pk = "ORG#{org_id}", sk = "RECORD#{id}", tenant = org_id)]
    pub struct Record { org_id: String, id: String }

    #[derive(Debug, Clone, Collection)]
    pub enum OrgItem { Record(Record) }

    /// The records of the table's stream, as the event a Lambda function receives.
    async fn lambda_event(table: &Table, streams: &monotable::dynamodbstreams::Client) -> DynamoDbEvent {
        let described = table.client().describe_table().table_name(table.name()).send().await.unwrap();
        let arn = described.table().and_then(|t| t.latest_stream_arn()).unwrap().to_string();
        let stream = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
        let shard = stream.stream_description().unwrap().shards()[0].shard_id().unwrap().to_string();
        let iterator = streams.get_shard_iterator().stream_arn(&arn).shard_id(shard)
            .shard_iterator_type(monotable::dynamodbstreams::types::ShardIteratorType::TrimHorizon)
            .send().await.unwrap();
        let page = streams.get_records().shard_iterator(iterator.shard_iterator().unwrap()).send().await.unwrap();
        DynamoDbEvent {
            records: page.records().iter().map(|r| EventRecord::from_stream_record(&arn, r).unwrap()).collect(),
        }
    }

    pub async fn run() -> Result<(Vec<(ChangeKind, Option<String>)>, usize), monotable::Error> {
        let engine = monotable::embedded::Engine::new();
        let table = Table::builder(monotable::embedded::client_for(engine.clone()))
            .conventions(Conventions::lower()).name(TableName::resolved("readme-changes"))
            .entity::<Record>().cursor_key(CursorKey::new([7u8; 32])?).build().await?;
        table.create_for_development().await?;
        let view = StreamSpecification::builder().stream_enabled(true)
            .stream_view_type(StreamViewType::NewAndOldImages).build().unwrap();
        table.client().update_table().table_name(table.name()).stream_specification(view).send().await.unwrap();
        let caller = monotable::authenticate(&monotable::JwtVerifier::hs256(super::JWT_SECRET), &super::bearer_for(&["org-1"]))?;
        table.repo::<Record>(&caller.org("org-1")?)?
            .create(&Record { org_id: "org-1".into(), id: "r1".into() }).await?;
        let streams_client = monotable::embedded::streams_client_for(engine);
        let event = lambda_event(&table, &streams_client).await;
        let mut seen = Vec::new();
        let mut audit = |change: ChangeRecord<OrgItem>| {
            let id = change.new_entity().map(|OrgItem::Record(r)| r.id.clone());
            seen.push((change.kind, id));
            async { Ok::<(), std::io::Error>(()) }
        };

        // README begin
        let mut consumer = ChangeConsumer::<OrgItem>::builder(&table, streams_client)
            .checkpoint(FileCheckpoint::new("orgs.checkpoint.json")).build().await?;
        consumer.catch_up(&mut audit).await?;     // each record once, in order; an error → redelivery
        // in the Lambda function, the same handler:
        let response = ChangeDecoder::<OrgItem>::for_table(&table).handle_event(&event, &mut audit).await;
        // README end

        Ok((seen, response.batch_item_failures.len()))
    }
}

#[tokio::test]
async fn the_readme_change_example_delivers_the_same_record_to_both_handlers() {
    // The example keeps its checkpoint in `orgs.checkpoint.json` of the working directory:
    // this test alone changes that directory, to a temporary one.
    let dir = tempfile_dir();
    std::env::set_current_dir(&dir).unwrap();
    let (seen, failures) = changes_example::run().await.expect("the README example runs");
    let insert = (monotable::changes::ChangeKind::Insert, Some("r1".to_string()));
    assert_eq!(seen, [insert.clone(), insert]);
    assert_eq!(failures, 0);
    assert!(dir.join("orgs.checkpoint.json").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh directory under the system's temporary directory.
fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monotable-readme-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The README's client for `monotable serve`; returns the client's region.
#[rustfmt::skip]
fn sdk_client_example() -> aws_sdk_dynamodb::Client {
    // README begin
    use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};

    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url("http://127.0.0.1:8000")
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "static"))
        .build();
    let client = aws_sdk_dynamodb::Client::from_conf(config);
    // README end
    client
}

#[test]
fn the_readme_sdk_client_is_configured_for_a_local_server() {
    let client = sdk_client_example();
    assert_eq!(client.config().region().map(|r| r.as_ref()), Some("us-east-1"));
}

#[tokio::test]
async fn a_missing_table_is_an_error_naming_the_table_and_how_to_create_it() {
    use monotable::{Conventions, CursorKey, Entity, JwtVerifier, Table, TableName};
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Serialize, Deserialize, Entity)]
    #[entity(pk = "ORG#{org_id}", sk = "NOTE#{id}", tenant = org_id)]
    struct Note {
        org_id: String,
        id: String,
    }

    let table = Table::builder(monotable::embedded::client())
        .conventions(Conventions::lower())
        .name(TableName::resolved("never-created"))
        .entity::<Note>()
        .cursor_key(CursorKey::new([7u8; 32]).unwrap())
        .build()
        .await
        .unwrap();
    let caller = monotable::authenticate(&JwtVerifier::hs256(JWT_SECRET), &bearer_for(&["org-1"])).unwrap();
    let notes = table.repo::<Note>(&caller.org("org-1").unwrap()).unwrap();
    // DynamoDB answers an item operation on a missing table with ResourceNotFoundException
    // (API reference, Common Errors and each operation's Errors).
    let err = notes.create(&Note { org_id: "org-1".into(), id: "n1".into() }).await.unwrap_err();
    let monotable::Error::TableNotFound { table: name, operation } = &err else { panic!("{err:?}") };
    assert_eq!((name.as_str(), *operation), ("never-created", "PutItem"));
    let message = err.to_string();
    for part in ["`never-created`", "monotable design apply", "Table::create_for_development()"] {
        assert!(message.contains(part), "{part}: {message}");
    }
    let listed = notes.query(monotable::Query::table()).await.unwrap_err();
    assert!(matches!(listed, monotable::Error::TableNotFound { operation: "Query", .. }), "{listed:?}");
}
