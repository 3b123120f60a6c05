//! Multi-attribute GSI keys: an entity index declared as lists of its typed fields.
//!
//! DynamoDB facts pinned here, from the developer guide's "Multi-attribute keys pattern"
//! (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.DesignPattern.MultiAttributeKeys.html):
//! a GSI's partition key and sort key are each up to four of the items' own attributes, in
//! KeySchema order; a query needs equality on every partition attribute and conditions on the
//! sort attributes left to right (equality on a prefix, then at most one range condition or
//! `begins_with` on the next); an item missing a key attribute is not in the index (sparse).
//! Results come in sort-key order, Number attributes numerically ("Key condition
//! expressions for the Query operation", Query.KeyConditionExpressions.html).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{AttributeValue, KeyType, ScalarAttributeType};
use monotable::{
    Conventions, CursorKey, Entity, Error, Keys, Query, Repository, Sort, Table, TableName, Update,
};
use serde::{Deserialize, Serialize};

use crate::common::*;

/// Tickets keyed on gsi3 by (org, queue) and sorted by (status, priority, id). `queue` is
/// optional: a ticket without one is not in the index. `priority` is a Number attribute.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "ORG#{org_id}", sk = "TICKET#{id}", tenant = org_id,
         gsi3(pk = [org_id, queue], sk = [status, priority, id]))]
pub struct Ticket {
    pub org_id: String,
    pub id: String,
    pub queue: Option<String>,
    pub status: String,
    pub priority: i64,
    pub title: String,
}

/// A table builder with gsi3 declared and no entity registered.
fn bare(client: aws_sdk_dynamodb::Client, name: &str) -> monotable::TableBuilder {
    Table::builder(client)
        .conventions(Conventions::lower())
        .name(TableName::resolved(name))
        .gsi(3)
        .cursor_key(CursorKey::new(CURSOR_SECRET).expect("key"))
}

fn builder(client: aws_sdk_dynamodb::Client, name: &str) -> monotable::TableBuilder {
    bare(client, name).entity::<Ticket>()
}

/// A fresh table whose gsi3 the library itself creates from the entity's field lists.
async fn tickets_table() -> Table {
    let table = builder(client(), &unique_name("mt-multi")).build().await.expect("table");
    table.create_for_development().await.expect("create");
    table
}

fn repo(table: &Table) -> Repository<Ticket> {
    table.repo::<Ticket>(&caller("a", &["o"], &[]).org("o").unwrap()).unwrap()
}

/// The model's order of the index: (queue, status, priority, id), priority numerically.
type Model = BTreeMap<(String, String, i64, String), Ticket>;

/// Writes tickets over two queues, three statuses and priorities from -5 to 14 (negative
/// numbers order numerically, which a key string would not), every seventh without a queue.
async fn seed(repo: &Repository<Ticket>) -> Model {
    let mut model = Model::new();
    let statuses = ["open", "closed", "waiting"];
    for i in 0..60i64 {
        let t = Ticket {
            org_id: "o".into(),
            id: format!("t{i:02}"),
            queue: (i % 7 != 0).then(|| if i % 2 == 0 { "support" } else { "billing" }.to_string()),
            status: statuses[(i % 3) as usize].into(),
            priority: (i * 7) % 20 - 5,
            title: format!("ticket {i}"),
        };
        repo.create(&t).await.unwrap();
        if let Some(q) = &t.queue {
            model.insert((q.clone(), t.status.clone(), t.priority, t.id.clone()), t);
        }
    }
    model
}

/// Every item of a query, page by page (limit 7), following the cursors.
async fn all_pages(repo: &Repository<Ticket>, q: impl Fn() -> Query<Ticket>) -> Vec<String> {
    let mut cursor: Option<String> = None;
    let mut out = Vec::new();
    for _ in 0..100 {
        let page = repo.query(q().limit(7).after(cursor.as_deref())).await.unwrap();
        assert!(page.items.len() <= 7);
        out.extend(page.items.into_iter().map(|t| t.id));
        cursor = page.cursor;
        if cursor.is_none() {
            return out;
        }
    }
    panic!("paging did not end");
}

fn queue(q: &str) -> Keys<Ticket> {
    Keys::new().with(Ticket::FIELDS.queue, Some(q.to_string()))
}

/// Runs `sort` ascending and descending and compares both with the model filtered by `keep`.
async fn check(
    repo: &Repository<Ticket>,
    model: &Model,
    q: &str,
    sort: Option<Sort<Ticket>>,
    keep: impl Fn(&str, i64, &str) -> bool,
) {
    let want: Vec<String> = model
        .iter()
        .filter(|((mq, s, p, id), _)| mq == q && keep(s, *p, id))
        .map(|(k, _)| k.3.clone())
        .collect();
    assert!(!want.is_empty(), "every case selects something: {q}, {sort:?}");
    let query = || {
        let base = Query::index("gsi3").partition(queue(q));
        match &sort {
            Some(s) => base.sort(s.clone()),
            None => base,
        }
    };
    assert_eq!(all_pages(repo, query).await, want, "ascending, {q}, {sort:?}");
    let mut reversed = want.clone();
    reversed.reverse();
    assert_eq!(all_pages(repo, || query().descending()).await, reversed, "descending, {q}, {sort:?}");
}

fn status(s: &str) -> Keys<Ticket> {
    Keys::new().with(Ticket::FIELDS.status, s)
}

#[tokio::test]
async fn multi_key_queries_follow_the_attribute_tuple_order_in_both_directions_across_pages() {
    let table = tickets_table().await;
    let repo = repo(&table);
    let model = seed(&repo).await;
    let fields = Ticket::FIELDS;
    for q in ["support", "billing"] {
        // Equality on the whole partition (org from the scope, queue given), no sort condition.
        check(&repo, &model, q, None, |_, _, _| true).await;
        // Equality on a sort prefix.
        check(&repo, &model, q, Some(Sort::eq(status("open"))), |s, _, _| s == "open").await;
        // A closed ticket of this queue, for equalities on two and on all three sort fields.
        let (_, _, p0, id0) = model.keys().find(|k| k.0 == q && k.1 == "closed").unwrap().clone();
        let eq2 = Sort::eq(status("closed").with(fields.priority, p0));
        check(&repo, &model, q, Some(eq2), |s, p, _| s == "closed" && p == p0).await;
        // One range condition on the field after the equal prefix; numbers compare numerically.
        let ge = Sort::ge(status("open").with(fields.priority, 3i64));
        check(&repo, &model, q, Some(ge), |s, p, _| s == "open" && p >= 3).await;
        let gt = Sort::gt(status("waiting").with(fields.priority, -1i64));
        check(&repo, &model, q, Some(gt), |s, p, _| s == "waiting" && p > -1).await;
        let lt = Sort::lt(status("open").with(fields.priority, 0i64));
        check(&repo, &model, q, Some(lt), |s, p, _| s == "open" && p < 0).await;
        let le = Sort::le(status("closed").with(fields.priority, 9i64));
        check(&repo, &model, q, Some(le), |s, p, _| s == "closed" && p <= 9).await;
        let between = Sort::between(
            status("open").with(fields.priority, -3i64),
            status("open").with(fields.priority, 8i64),
        );
        check(&repo, &model, q, Some(between), |s, p, _| s == "open" && (-3..=8).contains(&p)).await;
        // A range on the first sort field, and begins_with on a string field.
        check(&repo, &model, q, Some(Sort::gt(status("open"))), |s, _, _| s > "open").await;
        let bw = Sort::begins_with(status("wa"));
        check(&repo, &model, q, Some(bw), |s, _, _| s.starts_with("wa")).await;
        // Equality on every sort field: one item at most.
        let full = Sort::eq(status("closed").with(fields.priority, p0).with(fields.id, id0.clone()));
        check(&repo, &model, q, Some(full), |s, p, id| s == "closed" && p == p0 && id == id0).await;
    }
}

/// The raw stored item of a ticket, read past the library.
async fn raw(table: &Table, id: &str) -> std::collections::HashMap<String, AttributeValue> {
    let key = [("pk", "ORG#o".to_string()), ("sk", format!("TICKET#{id}"))]
        .into_iter()
        .map(|(k, v)| (k.to_string(), AttributeValue::S(v)))
        .collect();
    let out = table.client().get_item().table_name(table.name()).set_key(Some(key)).send().await.unwrap();
    out.item.expect("stored")
}

async fn in_queue(repo: &Repository<Ticket>, q: &str) -> Vec<String> {
    all_pages(repo, || Query::index("gsi3").partition(queue(q))).await
}

#[tokio::test]
async fn fields_are_stored_as_typed_attributes_and_an_absent_one_leaves_the_index() {
    let table = tickets_table().await;
    let repo = repo(&table);
    let mut t = Ticket {
        org_id: "o".into(),
        id: "a".into(),
        queue: Some("support".into()),
        status: "open".into(),
        priority: 3,
        title: "x".into(),
    };
    repo.create(&t).await.unwrap();
    let item = raw(&table, "a").await;
    // No key string is built: the fields are the index key, typed.
    assert_eq!(item.get("priority"), Some(&AttributeValue::N("3".into())));
    assert_eq!(item.get("queue"), Some(&AttributeValue::S("support".into())));
    assert!(!item.keys().any(|k| k.starts_with("gsi")), "{item:?}");
    assert_eq!(in_queue(&repo, "support").await, ["a"]);

    // An update setting the field to None removes the attribute: the item leaves the index.
    let key = TicketKey { id: "a".into() };
    let after = repo.update(&key, Update::new().set(Ticket::FIELDS.queue, None::<String>)).await.unwrap();
    assert_eq!(after.queue, None);
    assert!(!raw(&table, "a").await.contains_key("queue"), "no NULL or empty string is written");
    assert!(in_queue(&repo, "support").await.is_empty());

    // Back in through an update, out again through an upsert without a queue.
    repo.update(&key, Update::new().set(Ticket::FIELDS.queue, Some("billing".to_string()))).await.unwrap();
    assert_eq!(in_queue(&repo, "billing").await, ["a"]);
    t.queue = None;
    repo.put(&t).await.unwrap();
    assert!(!raw(&table, "a").await.contains_key("queue"));
    assert!(in_queue(&repo, "billing").await.is_empty());
    assert_eq!(repo.get(&key).await.unwrap(), t);

    // A created item without a queue is stored without the attribute.
    let mut b = t.clone();
    b.id = "b".into();
    repo.create(&b).await.unwrap();
    assert!(!raw(&table, "b").await.contains_key("queue"));
}

fn invalid<V>(r: Result<V, Error>) -> bool {
    matches!(r, Err(Error::Validation(_)))
}

#[tokio::test]
async fn misuse_of_a_multi_key_index_is_refused_before_any_request() {
    // A client that reaches nothing: an error other than Backend was raised before sending.
    let table = builder(dead_client(), "never-created").build().await.unwrap();
    let repo = repo(&table);
    let fields = Ticket::FIELDS;
    // Every partition field is needed.
    assert!(invalid(repo.query(Query::index("gsi3")).await));
    // Sort fields go left to right: priority without status is refused.
    let skip = Sort::eq(Keys::new().with(fields.priority, 1i64));
    assert!(invalid(repo.query(Query::index("gsi3").partition(queue("q")).sort(skip)).await));
    // A field that is not a sort field of the index.
    let other = Sort::eq(Keys::new().with(fields.title, "x"));
    assert!(invalid(repo.query(Query::index("gsi3").partition(queue("q")).sort(other)).await));
    // begins_with needs a string attribute.
    let bw = Sort::begins_with(status("open").with(fields.priority, 1i64));
    assert!(invalid(repo.query(Query::index("gsi3").partition(queue("q")).sort(bw)).await));
    // between differs only in its last field.
    let between =
        Sort::between(status("a").with(fields.priority, 1i64), status("b").with(fields.priority, 2i64));
    assert!(invalid(repo.query(Query::index("gsi3").partition(queue("q")).sort(between)).await));
    // An empty string is never written as a key attribute.
    let empty = Ticket {
        org_id: "o".into(),
        id: "e".into(),
        queue: Some(String::new()),
        status: "open".into(),
        priority: 1,
        title: "x".into(),
    };
    assert!(invalid(repo.create(&empty).await));
    let key = TicketKey { id: "e".into() };
    assert!(invalid(repo.update(&key, Update::new().set(fields.status, "")).await));
}

#[tokio::test]
async fn the_created_table_and_the_design_carry_the_multi_attribute_key_schema() {
    let table = tickets_table().await;
    let d = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let t = d.table().unwrap();
    let gsi = &t.global_secondary_indexes()[0];
    let elements: Vec<(&str, &KeyType)> =
        gsi.key_schema().iter().map(|e| (e.attribute_name(), e.key_type())).collect();
    assert_eq!(
        elements,
        [
            ("orgId", &KeyType::Hash),
            ("queue", &KeyType::Hash),
            ("status", &KeyType::Range),
            ("priority", &KeyType::Range),
            ("id", &KeyType::Range)
        ]
    );
    let ty = |name: &str| {
        t.attribute_definitions()
            .iter()
            .find(|a| a.attribute_name() == name)
            .map(|a| a.attribute_type().clone())
    };
    assert_eq!(ty("priority"), Some(ScalarAttributeType::N));
    assert_eq!(ty("queue"), Some(ScalarAttributeType::S));
    assert_eq!(ty("gsi3pk"), None, "no synthetic key attribute");

    // The CloudFormation resource says the same.
    let cf = table.cloudformation_resource();
    let props = &cf["Properties"];
    assert_eq!(props["GlobalSecondaryIndexes"][0]["KeySchema"][1]["AttributeName"], "queue");
    assert_eq!(props["GlobalSecondaryIndexes"][0]["KeySchema"][4]["KeyType"], "RANGE");
    let defs = props["AttributeDefinitions"].as_array().unwrap();
    assert!(defs.iter().any(|d| d["AttributeName"] == "priority" && d["AttributeType"] == "N"), "{defs:?}");

    // The design lists the attributes, and the entity's key as its fields in key order,
    // which the design lint accepts for a multi-attribute index (no MT010, no MT011).
    let design = table.design();
    let index = design.indexes.iter().find(|i| i.name == "gsi3").unwrap();
    assert_eq!(index.pk.as_ref().unwrap().names(), ["orgId", "queue"]);
    assert_eq!(index.sk.names(), ["status", "priority", "id"]);
    let key = &design.entities[0].indexes["gsi3"];
    assert_eq!(
        (key.pk.as_deref(), key.sk.as_deref()),
        (Some("{org_id}#{queue}"), Some("{status}#{priority}#{id}"))
    );
    let findings: Vec<(&str, String)> =
        monotable_design::check(&design).into_iter().map(|f| (f.rule, f.subject)).collect();
    assert!(!findings.iter().any(|f| f.0 == "MT010" || f.0 == "MT011" || f.0 == "MT008"), "{findings:?}");
}

/// A template that only joins fields on an index of its own: the design lint prefers a
/// multi-attribute key there (MT011).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(pk = "ORG#{org_id}", sk = "JOINED#{id}", tenant = org_id,
         gsi3(pk = "{org_id}#{queue}", sk = "{status}#{id}"))]
pub struct Joined {
    pub org_id: String,
    pub id: String,
    pub queue: String,
    pub status: String,
}

#[tokio::test]
async fn the_design_check_prefers_a_field_list_where_a_template_only_joins_fields() {
    let table = bare(dead_client(), "t").entity::<Joined>().build().await.unwrap();
    let findings: Vec<(&str, String)> =
        monotable_design::check(&table.design()).into_iter().map(|f| (f.rule, f.subject)).collect();
    assert!(findings.contains(&("MT011", "Joined.gsi3".to_string())), "{findings:?}");
}

/// Keys gsi3 on other attributes than [`Ticket`] (`lane` where Ticket has `queue`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(pk = "ORG#{org_id}", sk = "LANE#{id}", tenant = org_id,
         gsi3(pk = [org_id, lane], sk = [status, priority, id]))]
pub struct Lane {
    pub org_id: String,
    pub id: String,
    pub lane: String,
    pub status: String,
    pub priority: i64,
}

#[tokio::test]
async fn an_index_keyed_by_fields_and_by_a_template_or_by_other_fields_is_refused() {
    // One GSI has one KeySchema: a template index and a field-list index cannot share it ...
    let mixed = builder(dead_client(), "t").entity::<Joined>().build().await;
    assert!(matches!(mixed, Err(Error::Config(m)) if m.contains("gsi3")));
    // ... nor can two field lists naming different attributes.
    let other = builder(dead_client(), "t").entity::<Lane>().build().await;
    assert!(matches!(other, Err(Error::Config(m)) if m.contains("gsi3") && m.contains("Lane")));
}
