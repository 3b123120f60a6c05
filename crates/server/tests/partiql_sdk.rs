//! PartiQL through the real `aws-sdk-dynamodb` client, in process and over TCP: statements
//! side by side with the equivalent expression requests (same items, same consumed
//! capacity), pagination, projections, nested paths, parameters, writes with conditions, and
//! the batch and transaction rules. Sources are named on each check.

mod common;

use std::collections::HashMap;

use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BatchStatementRequest, BillingMode, GlobalSecondaryIndex,
    KeySchemaElement, KeyType, ParameterizedStatement, Projection, ProjectionType, ReturnConsumedCapacity,
    ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use common::{sdk_client, TestServer};
use monotable_engine::Engine;
use monotable_server::Service;

type Item = HashMap<String, AttributeValue>;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

fn n(v: i64) -> AttributeValue {
    AttributeValue::N(v.to_string())
}

const TOTAL: ReturnConsumedCapacity = ReturnConsumedCapacity::Total;

async fn setup(client: &Client) {
    let def = |name: &str, ty| {
        AttributeDefinition::builder().attribute_name(name).attribute_type(ty).build().unwrap()
    };
    let key = |name: &str, ty| KeySchemaElement::builder().attribute_name(name).key_type(ty).build().unwrap();
    client
        .create_table()
        .table_name("music")
        .attribute_definitions(def("Artist", ScalarAttributeType::S))
        .attribute_definitions(def("SongTitle", ScalarAttributeType::S))
        .attribute_definitions(def("genre", ScalarAttributeType::S))
        .attribute_definitions(def("year", ScalarAttributeType::N))
        .key_schema(key("Artist", KeyType::Hash))
        .key_schema(key("SongTitle", KeyType::Range))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("by_genre")
                .key_schema(key("genre", KeyType::Hash))
                .key_schema(key("year", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .unwrap(),
        )
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .expect("create table");
    for a in 0..3 {
        for t in 0..10 {
            let i = a * 10 + t;
            let item: Item = HashMap::from([
                ("Artist".into(), s(&format!("a{a}"))),
                ("SongTitle".into(), s(&format!("s{t:02}"))),
                ("genre".into(), s(&format!("g{}", i % 2))),
                ("year".into(), n(2000 + i)),
                ("padding".into(), s(&"x".repeat(300 * (i as usize % 7)))),
                (
                    "info".into(),
                    AttributeValue::M(HashMap::from([(
                        "tags".into(),
                        AttributeValue::L(vec![s(&format!("t{i}")), s("rock")]),
                    )])),
                ),
            ]);
            client.put_item().table_name("music").set_item(Some(item)).send().await.expect("put");
        }
    }
}

async fn statement(client: &Client, text: &str, params: Vec<AttributeValue>) -> (Vec<Item>, Option<f64>) {
    let out = client
        .execute_statement()
        .statement(text)
        .set_parameters((!params.is_empty()).then_some(params))
        .return_consumed_capacity(TOTAL)
        .send()
        .await
        .unwrap_or_else(|e| panic!("{text}: {:?}", e.into_service_error()));
    (out.items().to_vec(), out.consumed_capacity().and_then(|c| c.capacity_units()))
}

async fn statement_error(client: &Client, text: &str) -> (String, String) {
    let e = client.execute_statement().statement(text).send().await.expect_err(text).into_service_error();
    (e.code().unwrap_or_default().to_owned(), e.message().unwrap_or_default().to_owned())
}

// Source: ql-reference.select.html — an equality on every key attribute reads one item.
async fn select_with_the_whole_key_reads_like_get_item(client: &Client) {
    let (items, cap) = statement(
        client,
        r#"SELECT * FROM "music" WHERE Artist = ? AND SongTitle = ?"#,
        vec![s("a1"), s("s04")],
    )
    .await;
    let get = client
        .get_item()
        .table_name("music")
        .key("Artist", s("a1"))
        .key("SongTitle", s("s04"))
        .return_consumed_capacity(TOTAL)
        .send()
        .await
        .unwrap();
    assert_eq!(items, vec![get.item().unwrap().clone()]);
    assert_eq!(cap, get.consumed_capacity().and_then(|c| c.capacity_units()));
    let (missing, _) =
        statement(client, r#"SELECT * FROM music WHERE Artist = 'zz' AND SongTitle = 'none'"#, vec![]).await;
    assert!(missing.is_empty());
}

// Source: ql-reference.select.html — a partition-key equality makes the SELECT a Query; the
// sort-key condition is its key condition, other conditions filter.
async fn select_with_a_partition_key_equality_reads_like_query_page_by_page(client: &Client) {
    let text = r#"SELECT * FROM "music" WHERE "Artist" = 'a1' AND SongTitle > 's01' AND "year" <> 2015"#;
    let mut token: Option<String> = None;
    let mut start: Option<Item> = None;
    let mut pages = 0;
    loop {
        let out = client
            .execute_statement()
            .statement(text)
            .limit(3)
            .set_next_token(token.clone())
            .return_consumed_capacity(TOTAL)
            .send()
            .await
            .unwrap();
        let q = client
            .query()
            .table_name("music")
            .key_condition_expression("Artist = :a AND SongTitle > :s")
            .filter_expression("#y <> :y")
            .expression_attribute_names("#y", "year")
            .expression_attribute_values(":a", s("a1"))
            .expression_attribute_values(":s", s("s01"))
            .expression_attribute_values(":y", n(2015))
            .limit(3)
            .set_exclusive_start_key(start.clone())
            .return_consumed_capacity(TOTAL)
            .send()
            .await
            .unwrap();
        assert_eq!(out.items(), q.items(), "page {pages}");
        assert_eq!(
            out.consumed_capacity().and_then(|c| c.capacity_units()),
            q.consumed_capacity().and_then(|c| c.capacity_units())
        );
        assert_eq!(out.next_token().is_some(), q.last_evaluated_key().is_some());
        pages += 1;
        token = out.next_token().map(str::to_owned);
        start = q.last_evaluated_key().cloned();
        if token.is_none() {
            break;
        }
    }
    assert_eq!(pages, 3, "8 candidate items in pages of 3");
}

// Source: ql-reference.select.html — "SELECT * FROM "Orders" WHERE OrderID > 1" is a full
// table scan; the whole WHERE filters.
async fn select_without_a_partition_key_equality_reads_like_scan(client: &Client) {
    let text = r#"SELECT SongTitle, info.tags[0] FROM music WHERE "year" >= ? AND begins_with(genre, 'g')"#;
    let mut token: Option<String> = None;
    let mut start: Option<Item> = None;
    let mut total = 0;
    loop {
        let out = client
            .execute_statement()
            .statement(text)
            .parameters(n(2010))
            .limit(7)
            .set_next_token(token.clone())
            .return_consumed_capacity(TOTAL)
            .send()
            .await
            .unwrap();
        let scan = client
            .scan()
            .table_name("music")
            .filter_expression("#y >= :y AND begins_with(genre, :g)")
            .projection_expression("SongTitle, info.tags[0]")
            .expression_attribute_names("#y", "year")
            .expression_attribute_values(":y", n(2010))
            .expression_attribute_values(":g", s("g"))
            .limit(7)
            .set_exclusive_start_key(start.clone())
            .return_consumed_capacity(TOTAL)
            .send()
            .await
            .unwrap();
        assert_eq!(out.items(), scan.items());
        assert_eq!(
            out.consumed_capacity().and_then(|c| c.capacity_units()),
            scan.consumed_capacity().and_then(|c| c.capacity_units())
        );
        total += out.items().len();
        for item in out.items() {
            assert_eq!(item.len(), 2, "projection keeps SongTitle and info.tags[0]: {item:?}");
        }
        token = out.next_token().map(str::to_owned);
        start = scan.last_evaluated_key().cloned();
        if token.is_none() {
            break;
        }
    }
    assert_eq!(total, 20);
}

/// The items and capacity of one whole Query of `artist`'s songs from `s05` on.
async fn songs_from_s05(client: &Client, artist: &str) -> (Vec<Item>, f64) {
    let q = client
        .query()
        .table_name("music")
        .key_condition_expression("Artist = :a AND SongTitle >= :s")
        .expression_attribute_values(":a", s(artist))
        .expression_attribute_values(":s", s("s05"))
        .return_consumed_capacity(TOTAL)
        .send()
        .await
        .unwrap();
    (q.items().to_vec(), q.consumed_capacity().and_then(|c| c.capacity_units()).unwrap_or_default())
}

// Source: ql-reference.select.html — "To ensure that a SELECT statement does not result in a
// full table scan, the WHERE clause condition must specify a partition key. Use the equality
// or IN operator." An IN list reads like one Query per distinct value, in the list's order.
async fn select_with_a_partition_key_in_list_reads_like_one_query_per_value(client: &Client) {
    let text = r#"SELECT * FROM music WHERE Artist IN ['a2', 'a0', 'a2'] AND SongTitle >= 's05'"#;
    let ((a2, cap2), (a0, cap0)) = (songs_from_s05(client, "a2").await, songs_from_s05(client, "a0").await);
    let expected: Vec<Item> = a2.into_iter().chain(a0).collect();
    assert_eq!(expected.len(), 10);
    let (items, cap) = statement(client, text, vec![]).await;
    assert_eq!(items, expected);
    assert_eq!(cap, Some(cap2 + cap0), "the two queries' capacity, not a scan's");
    let mut token: Option<String> = None;
    let (mut paged, mut pages) = (Vec::new(), 0);
    loop {
        let out = client
            .execute_statement()
            .statement(text)
            .limit(4)
            .set_next_token(token.clone())
            .send()
            .await
            .unwrap();
        assert!(out.items().len() <= 4);
        paged.extend(out.items().iter().cloned());
        pages += 1;
        token = out.next_token().map(str::to_owned);
        if token.is_none() {
            break;
        }
    }
    assert_eq!(paged, expected, "pages of 4 across both partitions");
    assert_eq!(pages, 3);
}

async fn titles(client: &Client, text: &str, limit: Option<i32>) -> Vec<String> {
    let mut token: Option<String> = None;
    let mut out = Vec::new();
    loop {
        let page = client
            .execute_statement()
            .statement(text)
            .set_limit(limit)
            .set_next_token(token.clone())
            .send()
            .await
            .unwrap_or_else(|e| panic!("{text}: {:?}", e.into_service_error()));
        for item in page.items() {
            let (Some(AttributeValue::S(a)), Some(AttributeValue::S(t))) =
                (item.get("Artist"), item.get("SongTitle"))
            else {
                panic!("{item:?}")
            };
            out.push(format!("{a}/{t}"));
        }
        token = page.next_token().map(str::to_owned);
        if token.is_none() {
            return out;
        }
    }
}

// Source: the ORDER BY rules and texts recorded against DynamoDB (eu-west-2, 2026-09-17) in a
// Java DynamoDB emulator's PartiQL suite (`ordersByTheKey`, `refusesAnOrderByItCannotServe`):
// without its own term the partition key sorts ascending and the sort key descending, even
// under `ORDER BY pk ASC`; several partition key values need a partition key term.
async fn order_by_sorts_partitions_and_sort_keys_as_dynamodb_does(client: &Client) {
    let songs = |artists: &[&str], descending: bool| {
        let mut out = Vec::new();
        for a in artists {
            let mut t: Vec<String> = (0..10).map(|t| format!("{a}/s{t:02}")).collect();
            if descending {
                t.reverse();
            }
            out.extend(t);
        }
        out
    };
    let in_list = r#"SELECT * FROM music WHERE Artist IN ['a0', 'a2']"#;
    assert_eq!(
        titles(client, &format!("{in_list} ORDER BY Artist DESC, SongTitle ASC"), None).await,
        songs(&["a2", "a0"], false)
    );
    assert_eq!(
        titles(client, &format!("{in_list} ORDER BY Artist DESC"), Some(4)).await,
        songs(&["a2", "a0"], true)
    );
    assert_eq!(
        titles(client, r#"SELECT * FROM music WHERE Artist IN ['a2', 'a0'] ORDER BY Artist"#, Some(7)).await,
        songs(&["a0", "a2"], true)
    );
    assert_eq!(
        titles(client, r#"SELECT * FROM music WHERE Artist = 'a1' ORDER BY Artist ASC"#, None).await,
        songs(&["a1"], true)
    );
    for (text, message) in [
        (r#"SELECT * FROM music ORDER BY SongTitle"#, "Must have WHERE clause in the statement when using ORDER BY clause."),
        (
            r#"SELECT * FROM music WHERE Artist = 'a1' ORDER BY "year" DESC"#,
            "Attribute year in ORDER BY clause must be part of the primary key",
        ),
        (
            r#"SELECT * FROM music WHERE Artist > 'a' ORDER BY SongTitle"#,
            "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause.",
        ),
        (
            r#"SELECT * FROM music WHERE Artist IN ['a0', 'a1'] ORDER BY SongTitle DESC"#,
            "Must have hash key in ORDER BY clause when more than one hash key condition specified in WHERE clause.",
        ),
    ] {
        assert_eq!(statement_error(client, text).await, ("ValidationException".to_owned(), message.to_owned()), "{text}");
    }
}

// Source: characterised on DynamoDB (eu-west-1, 2026-09-03), as recorded in a Java DynamoDB
// emulator's PartiQL handler: a NextToken replayed against another statement or other
// parameters is refused, another Limit is accepted; an unreadable token is invalid.
async fn a_next_token_belongs_to_its_statement_and_parameters(client: &Client) {
    let text = r#"SELECT * FROM music WHERE Artist = ?"#;
    let first = client.execute_statement().statement(text).parameters(s("a1")).limit(3).send().await.unwrap();
    let token = first.next_token().expect("a second page").to_owned();
    let next = client.execute_statement().statement(text).parameters(s("a1")).limit(5).next_token(&token);
    assert_eq!(next.send().await.unwrap().items().len(), 5, "another Limit is accepted");
    let refused = |statement: &str, param: &str| {
        client.execute_statement().statement(statement).parameters(s(param)).next_token(&token).send()
    };
    for (statement, param) in [(text, "a2"), (r#"SELECT Artist FROM music WHERE Artist = ?"#, "a1")] {
        let e = refused(statement, param).await.expect_err(statement).into_service_error();
        assert_eq!(e.message(), Some("NextToken does not match request"), "{statement} {param}");
    }
    let e = client.execute_statement().statement(text).parameters(s("a1")).next_token("%%%").send().await;
    assert_eq!(e.expect_err("garbage").into_service_error().message(), Some("Invalid NextToken"));
}

// Source: ql-operators.html (NOT, AND, OR, IS [NOT] MISSING, IS [NOT] NULL, IN) and
// ql-functions.html (begins_with, contains, size, attribute_type).
async fn boolean_operators_and_functions_filter_like_their_expressions(client: &Client) {
    let (items, cap) = statement(
        client,
        r#"SELECT * FROM music WHERE NOT ("year" > 2005 AND genre = 'g0') AND padding IS NOT MISSING AND plays IS NULL AND (contains(info.tags, 'rock') OR size(padding) > 10) AND SongTitle IN ['s01', 's02', 's03', 's07']"#,
        vec![],
    )
    .await;
    let scan = client
        .scan()
        .table_name("music")
        .filter_expression("NOT (#y > :y AND genre = :g) AND attribute_exists(padding) AND (attribute_type(plays, :null) OR attribute_not_exists(plays)) AND (contains(info.tags, :rock) OR size(padding) > :ten) AND SongTitle IN (:a, :b, :c, :d)")
        .expression_attribute_names("#y", "year")
        .expression_attribute_values(":y", n(2005))
        .expression_attribute_values(":g", s("g0"))
        .expression_attribute_values(":null", s("NULL"))
        .expression_attribute_values(":rock", s("rock"))
        .expression_attribute_values(":ten", n(10))
        .expression_attribute_values(":a", s("s01"))
        .expression_attribute_values(":b", s("s02"))
        .expression_attribute_values(":c", s("s03"))
        .expression_attribute_values(":d", s("s07"))
        .return_consumed_capacity(TOTAL)
        .send()
        .await
        .unwrap();
    assert_eq!(items, scan.items());
    assert!(!items.is_empty());
    assert_eq!(cap, scan.consumed_capacity().and_then(|c| c.capacity_units()));
}

// Source: ql-reference.select.html — `FROM "TableName"."IndexName"`, ORDER BY key DESC.
async fn select_on_an_index_reads_like_a_query_on_the_index(client: &Client) {
    let (items, cap) = statement(
        client,
        r#"SELECT Artist, "year" FROM "music"."by_genre" WHERE genre = 'g1' AND "year" BETWEEN 2003 AND 2020 ORDER BY "year" DESC"#,
        vec![],
    )
    .await;
    let q = client
        .query()
        .table_name("music")
        .index_name("by_genre")
        .key_condition_expression("genre = :g AND #y BETWEEN :lo AND :hi")
        .projection_expression("Artist, #y")
        .expression_attribute_names("#y", "year")
        .expression_attribute_values(":g", s("g1"))
        .expression_attribute_values(":lo", n(2003))
        .expression_attribute_values(":hi", n(2020))
        .scan_index_forward(false)
        .return_consumed_capacity(TOTAL)
        .send()
        .await
        .unwrap();
    assert_eq!(items, q.items());
    assert_eq!(items.len(), 9);
    assert_eq!(items[0]["year"], n(2019));
    assert_eq!(cap, q.consumed_capacity().and_then(|c| c.capacity_units()));
    let (code, message) = statement_error(client, r#"SELECT * FROM "music"."nope" WHERE genre = 'g1'"#).await;
    assert_eq!(
        (code.as_str(), message.as_str()),
        ("ValidationException", "The table does not have the specified index")
    );
}

// Source: ql-reference.insert.html — "If the DynamoDB table already has an item with the
// same primary key … DuplicateItemException is returned"; message as DynamoDB sends it
// (dynoxide-rs 3.2 parity tests).
async fn insert_refuses_a_duplicate_key(client: &Client) {
    let text =
        r#"INSERT INTO "music" VALUE {'Artist': ?, 'SongTitle': 'new', 'tags': <<'a', 'b'>>, 'n': -1.5}"#;
    let (items, cap) = statement(client, text, vec![s("a9")]).await;
    assert!(items.is_empty());
    assert_eq!(cap, Some(1.0));
    let e = client
        .execute_statement()
        .statement(text)
        .parameters(s("a9"))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(e.is_duplicate_item_exception(), "{e:?}");
    assert_eq!(e.message(), Some("Duplicate primary key exists in table"));
    let got = client
        .get_item()
        .table_name("music")
        .key("Artist", s("a9"))
        .key("SongTitle", s("new"))
        .send()
        .await
        .unwrap();
    let item = got.item().unwrap();
    assert_eq!(item["n"], AttributeValue::N("-1.5".into()));
    assert!(matches!(&item["tags"], AttributeValue::Ss(v) if v.len() == 2));
}

// Source: ql-reference.update.html — SET/REMOVE on one item named by its whole key, WHERE
// conditions act as a condition, RETURNING ALL NEW *.
async fn update_and_delete_name_one_item_and_check_conditions(client: &Client) {
    let (items, _) = statement(
        client,
        r#"UPDATE "music" SET plays = 1 SET info.tags[1] = 'jazz' REMOVE padding WHERE Artist = 'a0' AND SongTitle = 's03' AND "year" = 2003 RETURNING ALL NEW *"#,
        vec![],
    )
    .await;
    let got = client
        .get_item()
        .table_name("music")
        .key("Artist", s("a0"))
        .key("SongTitle", s("s03"))
        .send()
        .await
        .unwrap();
    assert_eq!(items, vec![got.item().unwrap().clone()]);
    assert_eq!(items[0]["plays"], n(1));
    assert!(!items[0].contains_key("padding"));
    let (items, _) = statement(
        client,
        r#"UPDATE music SET plays = plays + ? WHERE Artist = 'a0' AND SongTitle = 's03' RETURNING MODIFIED OLD *"#,
        vec![n(5)],
    )
    .await;
    assert_eq!(items, vec![HashMap::from([("plays".to_owned(), n(1))])]);
    let (code, message) = statement_error(
        client,
        r#"UPDATE music SET plays = 0 WHERE Artist = 'a0' AND SongTitle = 's03' AND plays > 100"#,
    )
    .await;
    assert_eq!(code, "ConditionalCheckFailedException", "{message}");
    // PartiQL UPDATE is no upsert: a missing item fails its condition.
    let (code, _) =
        statement_error(client, r#"UPDATE music SET plays = 0 WHERE Artist = 'zz' AND SongTitle = 'zz'"#)
            .await;
    assert_eq!(code, "ConditionalCheckFailedException");
    // Source: DynamoDB's text for UPDATE/DELETE without the whole key (dynoxide-rs 3.2).
    let (code, message) = statement_error(client, r#"UPDATE music SET plays = 0 WHERE Artist = 'a0'"#).await;
    assert_eq!(code, "ValidationException");
    assert_eq!(message, "Where clause does not contain a mandatory equality on all key attributes");

    let (code, _) = statement_error(
        client,
        r#"DELETE FROM music WHERE Artist = 'a0' AND SongTitle = 's05' AND "year" = 1"#,
    )
    .await;
    assert_eq!(code, "ConditionalCheckFailedException");
    let (old, cap) = statement(
        client,
        r#"DELETE FROM music WHERE Artist = 'a0' AND SongTitle = 's05' RETURNING ALL OLD *"#,
        vec![],
    )
    .await;
    assert_eq!(old[0]["year"], n(2005));
    assert!(cap.is_some());
    let (none, _) =
        statement(client, r#"DELETE FROM music WHERE Artist = 'a0' AND SongTitle = 's05'"#, vec![]).await;
    assert!(none.is_empty(), "deleting a missing item is a no-op");
}

async fn malformed_statements_are_validation_errors(client: &Client) {
    // Source: DynamoDB's syntax-error prefix (dynoxide-rs 3.2 src/partiql/parser.rs).
    let (code, message) = statement_error(client, "SELEC * FROM music").await;
    assert_eq!(code, "ValidationException");
    assert!(message.starts_with("Statement wasn't well formed, can't be processed: "), "{message}");
    let e = client
        .execute_statement()
        .statement("SELECT * FROM music WHERE Artist = ?")
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(e.code(), Some("ValidationException"));
    let (code, _) = statement_error(client, r#"SELECT * FROM "nope" WHERE Artist = 'a'"#).await;
    assert_eq!(code, "ResourceNotFoundException");
}

fn batch_read(text: &str) -> BatchStatementRequest {
    BatchStatementRequest::builder().statement(text).build().unwrap()
}

// Source: API_BatchExecuteStatement (at most 25 statements; per-statement errors in
// Responses with API_BatchStatementError codes) and the developer guide's "Running batch
// operations with PartiQL" (reads or writes, not both).
async fn batches_run_statements_one_by_one_with_errors_in_responses(client: &Client) {
    let reads = vec![
        batch_read(r#"SELECT * FROM music WHERE Artist = 'a2' AND SongTitle = 's01'"#),
        batch_read(r#"SELECT * FROM music WHERE Artist = 'zz' AND SongTitle = 'none'"#),
        batch_read(r#"SELECT * FROM nope WHERE Artist = 'a2' AND SongTitle = 's01'"#),
    ];
    let out = client.batch_execute_statement().set_statements(Some(reads)).send().await.unwrap();
    let r = out.responses();
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].item().unwrap()["year"], n(2021));
    assert_eq!(r[0].table_name(), Some("music"));
    assert!(r[1].item().is_none() && r[1].error().is_none());
    assert_eq!(r[2].error().and_then(|e| e.code()).map(|c| c.as_str()), Some("ResourceNotFound"));

    let writes = vec![
        batch_read(r#"INSERT INTO music VALUE {'Artist': 'b1', 'SongTitle': 'x'}"#),
        batch_read(r#"INSERT INTO music VALUE {'Artist': 'a2', 'SongTitle': 's01'}"#),
        batch_read(r#"UPDATE music SET plays = 7 WHERE Artist = 'a2' AND SongTitle = 's02'"#),
    ];
    let out = client.batch_execute_statement().set_statements(Some(writes)).send().await.unwrap();
    let r = out.responses();
    assert!(r[0].error().is_none());
    let e = r[1].error().unwrap();
    assert_eq!(e.code().map(|c| c.as_str()), Some("DuplicateItem"));
    assert_eq!(e.message(), Some("Duplicate primary key exists in table"));
    assert!(r[2].error().is_none());

    let mixed = vec![
        batch_read(r#"SELECT * FROM music WHERE Artist = 'a2' AND SongTitle = 's01'"#),
        batch_read(r#"DELETE FROM music WHERE Artist = 'b1' AND SongTitle = 'x'"#),
    ];
    let e = client
        .batch_execute_statement()
        .set_statements(Some(mixed))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(e.code(), Some("ValidationException"));
    let many = vec![batch_read(r#"SELECT * FROM music WHERE Artist = 'a2' AND SongTitle = 's01'"#); 26];
    let e = client
        .batch_execute_statement()
        .set_statements(Some(many))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(e.code(), Some("ValidationException"));
    assert!(e.message().unwrap().contains("Member must have length less than or equal to 25"), "{e:?}");
}

fn tx(text: &str) -> ParameterizedStatement {
    ParameterizedStatement::builder().statement(text).build().unwrap()
}

// Source: API_ExecuteTransaction (up to 100 statements, reads or writes, ClientRequestToken
// idempotency, TransactionCanceledException with CancellationReasons; DuplicateItem is a
// reason code of API_CancellationReason).
async fn transactions_are_atomic_idempotent_and_report_reasons(client: &Client) {
    let writes = vec![
        tx(r#"INSERT INTO music VALUE {'Artist': 'c1', 'SongTitle': 'x', 'count': 0}"#),
        tx(r#"UPDATE music SET plays = 1 WHERE Artist = 'a2' AND SongTitle = 's03'"#),
    ];
    client.execute_transaction().set_transact_statements(Some(writes)).send().await.unwrap();
    let bump =
        || vec![tx(r#"UPDATE music SET "count" = "count" + 1 WHERE Artist = 'c1' AND SongTitle = 'x'"#)];
    for _ in 0..2 {
        client
            .execute_transaction()
            .set_transact_statements(Some(bump()))
            .client_request_token("tok-1")
            .send()
            .await
            .unwrap();
    }
    let (items, _) =
        statement(client, r#"SELECT "count" FROM music WHERE Artist = 'c1' AND SongTitle = 'x'"#, vec![])
            .await;
    assert_eq!(items[0]["count"], n(1), "a replayed token applies once");

    let failing = vec![
        tx(r#"UPDATE music SET plays = 2 WHERE Artist = 'a2' AND SongTitle = 's03'"#),
        tx(r#"INSERT INTO music VALUE {'Artist': 'c1', 'SongTitle': 'x'}"#),
    ];
    let e = client
        .execute_transaction()
        .set_transact_statements(Some(failing))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    let aws_sdk_dynamodb::operation::execute_transaction::ExecuteTransactionError::TransactionCanceledException(t) = &e else {
        panic!("{e:?}")
    };
    let codes: Vec<Option<&str>> = t.cancellation_reasons().iter().map(|r| r.code()).collect();
    assert_eq!(codes, vec![Some("None"), Some("DuplicateItem")]);
    let (items, _) =
        statement(client, r#"SELECT plays FROM music WHERE Artist = 'a2' AND SongTitle = 's03'"#, vec![])
            .await;
    assert_eq!(items[0]["plays"], n(1), "a cancelled transaction writes nothing");

    let reads = vec![
        tx(r#"SELECT * FROM music WHERE Artist = 'a2' AND SongTitle = 's03'"#),
        tx(r#"SELECT * FROM music WHERE Artist = 'zz' AND SongTitle = 'none'"#),
    ];
    let out = client.execute_transaction().set_transact_statements(Some(reads)).send().await.unwrap();
    assert_eq!(out.responses().len(), 2);
    assert!(out.responses()[0].item().is_some() && out.responses()[1].item().is_none());

    let mixed = vec![
        tx(r#"SELECT * FROM music WHERE Artist = 'a2' AND SongTitle = 's03'"#),
        tx(r#"DELETE FROM music WHERE Artist = 'c1' AND SongTitle = 'x'"#),
    ];
    let e = client
        .execute_transaction()
        .set_transact_statements(Some(mixed))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert_eq!(e.code(), Some("ValidationException"));
    let many = vec![tx(r#"DELETE FROM music WHERE Artist = 'c1' AND SongTitle = 'x'"#); 101];
    let e = client
        .execute_transaction()
        .set_transact_statements(Some(many))
        .send()
        .await
        .unwrap_err()
        .into_service_error();
    assert!(e.message().unwrap().contains("Member must have length less than or equal to 100"), "{e:?}");
}

// Source: PartiQL names a path in a SELECT list by its last step (the implicit alias of the
// PartiQL specification's SELECT clause; partiql/partiql-scribe's test output
// src/test/resources/outputs/spark/basics/select.sql, `select-05`, spells `SELECT T.d.e` as
// `SELECT T.d.e AS e`), so a nested path's value is a top-level attribute of the result, for
// ExecuteStatement (GetItem, Query and Scan plans), BatchExecuteStatement and
// ExecuteTransaction alike. No recording of DynamoDB was found for a path ending in a list
// index; such a path keeps the projection's nesting (see the engine's partiql/result_names.rs).
async fn select_of_a_nested_path_names_the_result_by_its_last_step(client: &Client) {
    let map = |pairs: &[(&str, AttributeValue)]| {
        AttributeValue::M(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())).collect())
    };
    let nested = map(&[("deep", s("down")), ("n", n(3))]);
    let item: Item = HashMap::from([
        ("Artist".into(), s("n1")),
        ("SongTitle".into(), s("x")),
        ("label".into(), s("top")),
        ("m".into(), map(&[("nested", nested.clone()), ("other", s("from m"))])),
        ("q".into(), map(&[("other", s("from q"))])),
    ]);
    client.put_item().table_name("music").set_item(Some(item)).send().await.expect("put");
    let only_nested: Item = HashMap::from([("nested".into(), nested.clone())]);

    let get = r#"SELECT m.nested FROM music WHERE Artist = 'n1' AND SongTitle = 'x'"#;
    let (items, _) = statement(client, get, vec![]).await;
    assert_eq!(items, vec![only_nested.clone()], "GetItem plan");
    let query = r#"SELECT Artist, m.nested.deep, m.gone FROM music WHERE Artist = 'n1'"#;
    let (items, _) = statement(client, query, vec![]).await;
    let expected: Item = HashMap::from([("Artist".into(), s("n1")), ("deep".into(), s("down"))]);
    assert_eq!(items, vec![expected], "Query plan: a top-level name alongside, a missing path absent");
    let scan = r#"SELECT m.other, q.other FROM music WHERE label = 'top'"#;
    let (items, _) = statement(client, scan, vec![]).await;
    let expected: Item = HashMap::from([("other".into(), s("from q"))]);
    assert_eq!(items, vec![expected], "Scan plan: of two paths with one last name the later wins");

    let out = client.batch_execute_statement().statements(batch_read(get)).send().await.unwrap();
    assert_eq!(out.responses()[0].item(), Some(&only_nested), "BatchExecuteStatement");
    let out = client.execute_transaction().transact_statements(tx(get)).send().await.unwrap();
    assert_eq!(out.responses()[0].item(), Some(&only_nested), "ExecuteTransaction");
}

async fn scenario(client: &Client) {
    setup(client).await;
    select_with_the_whole_key_reads_like_get_item(client).await;
    select_with_a_partition_key_equality_reads_like_query_page_by_page(client).await;
    select_without_a_partition_key_equality_reads_like_scan(client).await;
    select_with_a_partition_key_in_list_reads_like_one_query_per_value(client).await;
    order_by_sorts_partitions_and_sort_keys_as_dynamodb_does(client).await;
    a_next_token_belongs_to_its_statement_and_parameters(client).await;
    boolean_operators_and_functions_filter_like_their_expressions(client).await;
    select_on_an_index_reads_like_a_query_on_the_index(client).await;
    insert_refuses_a_duplicate_key(client).await;
    update_and_delete_name_one_item_and_check_conditions(client).await;
    malformed_statements_are_validation_errors(client).await;
    batches_run_statements_one_by_one_with_errors_in_responses(client).await;
    transactions_are_atomic_idempotent_and_report_reasons(client).await;
    select_of_a_nested_path_names_the_result_by_its_last_step(client).await;
}

#[tokio::test]
async fn partiql_matches_expression_requests_in_process() {
    scenario(&monotable_embedded::client()).await;
}

#[tokio::test]
async fn partiql_matches_expression_requests_over_tcp() {
    let server = TestServer::start(Service::new(Engine::new())).await;
    let client = sdk_client(&server.endpoint(), "AKIDEXAMPLE", "secret");
    scenario(&client).await;
    server.stop().await.expect("clean shutdown");
}
