//! End-to-end: the console in real headless Chromium, driven over WebDriver (chromedriver),
//! against a real engine through the SDK. Each test checks what the page did through the SDK
//! (an edit is seen in the table, a dropped table is gone). Without chromedriver the tests
//! skip loudly, except under CI=true, where they fail (see `support::driver`).

mod support;

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::Locator;
use monotable_console::Options;
use support::*;

fn writable() -> Options {
    Options { writable: true, label: "test engine".into(), ..Options::default() }
}

/// The page's link to one item: `#/table/<t>/item/<URI-encoded DynamoDB JSON key>`.
fn item_url(running: &Running, table: &str, key: &serde_json::Value) -> String {
    let encoded: String = key
        .to_string()
        .bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect();
    running.url(&format!("/console/#/table/{table}/item/{encoded}"))
}

/// Presses the items page's Scan button with `size` items a page.
async fn scan_in_pages_of(browser: &fantoccini::Client, size: usize) {
    let input = find(browser, "#page-size").await;
    input.clear().await.unwrap();
    input.send_keys(&size.to_string()).await.unwrap();
    find(browser, "#scan").await.click().await.unwrap();
}

/// The text of the file the browser downloaded as `name` (waits up to 15 s for it).
async fn downloaded(driver: &Driver, name: &str) -> String {
    let path = driver.scratch(name);
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while !path.is_file() {
        assert!(std::time::Instant::now() < deadline, "{name} was not downloaded");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Chromium renames the finished file into place; give it a moment to be complete.
    tokio::time::sleep(Duration::from_millis(200)).await;
    std::fs::read_to_string(&path).unwrap()
}

#[tokio::test]
async fn browsing_lists_tables_and_scans_only_on_request() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..3 {
        put(&running.sdk, "orders", &[("pk", s(&format!("o{i}"))), ("sk", s("A")), ("total", n("12.5"))])
            .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/")).await.unwrap();
    let row = find(&browser, "#tables tr[data-table=\"orders\"]").await;
    let text = row.text().await.unwrap();
    assert!(text.contains("orders") && text.contains("pk (PK, S)") && text.contains("gsi1"), "{text}");
    screenshot(&browser, "tables").await;
    row.find(Locator::Css("a.table-link")).await.unwrap().click().await.unwrap();
    find(&browser, "#scan").await;
    // Nothing is read until the Scan button is pressed.
    assert_eq!(find(&browser, "#results").await.text().await.unwrap(), "");
    find(&browser, "#scan").await.click().await.unwrap();
    text_where(&browser, "#page-info", |t| t == "Page 1: 3 items").await;
    assert!(find(&browser, "#consumed").await.text().await.unwrap().contains("CapacityUnits"));
    screenshot(&browser, "items").await;
    browser.close().await.unwrap();
}

#[tokio::test]
async fn pages_follow_cursors_and_show_every_item_once() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..7 {
        put(&running.sdk, "orders", &[("pk", s(&format!("o{i}"))), ("sk", s("A"))]).await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/items")).await.unwrap();
    scan_in_pages_of(&browser, 3).await;
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    for page in 1.. {
        let info = text_where(&browser, "#page-info", |t| t.starts_with(&format!("Page {page}:"))).await;
        let links = browser.find_all(Locator::Css("#results a.item-link")).await.unwrap();
        sizes.push(links.len());
        for link in links {
            seen.push(link.text().await.unwrap());
        }
        assert!(info.ends_with(&format!("{} items", sizes[page - 1])), "{info}");
        match browser.find(Locator::Css("#next-page")).await {
            Ok(next) => next.click().await.unwrap(),
            Err(_) => break,
        }
    }
    assert_eq!(sizes, [3, 3, 1]);
    seen.sort();
    assert_eq!(seen, (0..7).map(|i| format!("o{i}")).collect::<Vec<_>>());
    browser.close().await.unwrap();
}

#[tokio::test]
async fn querying_an_index_shows_the_exact_request_and_consumed_capacity() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for (i, status) in ["open", "open", "closed"].iter().enumerate() {
        put(
            &running.sdk,
            "orders",
            &[
                ("pk", s(&format!("o{i}"))),
                ("sk", s("A")),
                ("gsi1pk", s(&format!("STATUS#{status}"))),
                ("gsi1sk", s(&format!("2024-05-0{i}"))),
            ],
        )
        .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/query")).await.unwrap();
    find(&browser, "#q-index").await.select_by_value("gsi1").await.unwrap();
    text_where(&browser, "#q-keys", |t| t.starts_with("gsi1pk")).await;
    find(&browser, "#q-pk").await.send_keys("STATUS#open").await.unwrap();
    find(&browser, "#q-op").await.select_by_value("begins_with").await.unwrap();
    find(&browser, "#q-sk1").await.send_keys("2024-05").await.unwrap();
    find(&browser, "#q-direction").await.select_by_value("desc").await.unwrap();
    find(&browser, "#q-run").await.click().await.unwrap();
    text_where(&browser, "#query-count", |t| t == "2 items (2 read)").await;
    let request = find(&browser, ".meta").await.text().await.unwrap();
    for expected in [
        "DynamoDB_20120810.Query",
        "\"IndexName\": \"gsi1\"",
        "\"ScanIndexForward\": false",
        "begins_with(#ck1, :ck1)",
    ] {
        assert!(request.contains(expected), "missing {expected} in {request}");
    }
    let consumed = find(&browser, "#consumed").await.text().await.unwrap();
    assert!(consumed.contains("\"gsi1\""), "{consumed}");
    // Descending order: o1 (2024-05-01) before o0 (2024-05-00).
    let links = browser.find_all(Locator::Css("#results a.item-link")).await.unwrap();
    assert_eq!(links[0].text().await.unwrap(), "o1");
    screenshot(&browser, "query").await;
    browser.close().await.unwrap();
}

#[tokio::test]
async fn editing_an_item_keeps_types_saves_conditionally_and_deletes_after_confirmation() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    put(&running.sdk, "orders", &[("pk", s("o1")), ("sk", s("A")), ("amount", n("5")), ("note", s("hello"))])
        .await;
    let key = serde_json::json!({ "pk": { "S": "o1" }, "sk": { "S": "A" } });
    let get = || async {
        running
            .sdk
            .get_item()
            .table_name("orders")
            .key("pk", s("o1"))
            .key("sk", s("A"))
            .send()
            .await
            .unwrap()
            .item
    };
    let browser = browser(&driver).await;
    browser.goto(&item_url(&running, "orders", &key)).await.unwrap();
    let amount = find(&browser, "textarea[data-attr=\"amount\"]").await;
    assert!(find(&browser, "#item-view").await.text().await.unwrap().contains("\"N\": \"5\""));
    find(&browser, "#view-plain").await.click().await.unwrap();
    text_where(&browser, "#item-view", |t| t.contains("\"amount\": 5")).await;
    screenshot(&browser, "item").await;
    amount.clear().await.unwrap();
    amount.send_keys("6").await.unwrap();
    find(&browser, "#save").await.click().await.unwrap();
    find(&browser, "#saved").await;
    let item = get().await.unwrap();
    assert_eq!(item["amount"], n("6"), "the number stays a number");
    assert_eq!(item["note"], s("hello"));

    // Someone else changes the item: the page's next save must not overwrite it.
    running
        .sdk
        .update_item()
        .table_name("orders")
        .key("pk", s("o1"))
        .key("sk", s("A"))
        .update_expression("SET note = :n")
        .expression_attribute_values(":n", s("changed elsewhere"))
        .send()
        .await
        .unwrap();
    amount.clear().await.unwrap();
    amount.send_keys("7").await.unwrap();
    find(&browser, "#save").await.click().await.unwrap();
    text_where(&browser, "#editor-out .error", |t| t.contains("changed since it was read")).await;
    let item = get().await.unwrap();
    assert_eq!((item["amount"].clone(), item["note"].clone()), (n("6"), s("changed elsewhere")));

    // Reload, then delete: the first click only asks for confirmation.
    browser.refresh().await.unwrap();
    find(&browser, "textarea[data-attr=\"note\"]").await;
    find(&browser, "#delete").await.click().await.unwrap();
    assert!(get().await.is_some());
    find(&browser, "#confirm-delete").await.click().await.unwrap();
    find(&browser, "#scan").await;
    assert!(get().await.is_none(), "the item is deleted");
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_table_with_an_index_is_created_and_dropped_from_the_page() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/create")).await.unwrap();
    find(&browser, "#create-name").await.send_keys("invoices").await.unwrap();
    find(&browser, "#create-pk-name").await.send_keys("pk").await.unwrap();
    find(&browser, "#create-sk-name").await.send_keys("sk").await.unwrap();
    find(&browser, "#add-gsi").await.click().await.unwrap();
    find(&browser, "#gsi0-index").await.send_keys("byCustomer").await.unwrap();
    find(&browser, "#gsi0-pk-name").await.send_keys("customer").await.unwrap();
    find(&browser, "#gsi0-pk-type").await.select_by_value("N").await.unwrap();
    find(&browser, "#create").await.click().await.unwrap();
    find(&browser, "#created").await;
    let table = running.sdk.describe_table().table_name("invoices").send().await.unwrap().table.unwrap();
    let gsi = &table.global_secondary_indexes()[0];
    assert_eq!(gsi.index_name(), Some("byCustomer"));
    assert_eq!(gsi.key_schema()[0].attribute_name(), "customer");
    assert!(table
        .attribute_definitions()
        .iter()
        .any(|d| d.attribute_name() == "customer" && d.attribute_type().as_str() == "N"));

    browser.goto(&running.url("/console/#/table/invoices/items")).await.unwrap();
    find(&browser, "details.danger summary").await.click().await.unwrap();
    let confirm = find(&browser, "#drop-confirm").await;
    confirm.send_keys("invoice").await.unwrap();
    find(&browser, "#drop").await.click().await.unwrap();
    text_where(&browser, "details.danger .error", |t| t.contains("Type the table's name")).await;
    assert!(
        running.sdk.describe_table().table_name("invoices").send().await.is_ok(),
        "a wrong name drops nothing"
    );
    confirm.send_keys("s").await.unwrap();
    find(&browser, "#drop").await.click().await.unwrap();
    find(&browser, "#no-tables").await;
    let gone = running.sdk.describe_table().table_name("invoices").send().await.unwrap_err();
    assert!(gone.into_service_error().is_resource_not_found_exception());
    browser.close().await.unwrap();
}

async fn seed_ledger(running: &Running) {
    create_table(&running.sdk, "ledger").await;
    let record = |org: &str, id: &str, status: &str, changed: &str| {
        vec![
            ("pk", s(&format!("ORG#{org}"))),
            ("sk", s(&format!("RECORD#{id}"))),
            ("entityType", s("Record")),
            ("gsi1pk", s(&format!("ORG#{org}#STATUS#{status}"))),
            ("gsi1sk", s(&format!("RECORD#{changed}#{id}"))),
            ("amount", n("10")),
        ]
    };
    put(
        &running.sdk,
        "ledger",
        &[("pk", s("ORG#acme")), ("sk", s("PROFILE")), ("entityType", s("Org")), ("name", s("Acme"))],
    )
    .await;
    put(&running.sdk, "ledger", &record("acme", "r0", "open", "2024-05-01")).await;
    put(&running.sdk, "ledger", &record("acme", "r1", "closed", "2024-05-03")).await;
    put(&running.sdk, "ledger", &record("globex", "r7", "open", "2024-04-11")).await;
    // No entityType attribute: recognised by its key templates alone.
    put(&running.sdk, "ledger", &[("pk", s("ORG#acme")), ("sk", s("DECL#2024-Q1")), ("total", n("3"))]).await;
}

#[tokio::test]
async fn a_named_access_pattern_runs_and_a_partition_shows_every_entity_type() {
    let Some(driver) = driver() else { return };
    let running = start(Options { design: Some(orgs_design()), ..writable() }).await;
    seed_ledger(&running).await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/ledger/patterns")).await.unwrap();
    let form = find(&browser, "form[data-pattern=\"list-records-by-status\"]").await;
    form.find(Locator::Css("input[name=\"org_id\"]")).await.unwrap().send_keys("acme").await.unwrap();
    form.find(Locator::Css("input[name=\"status\"]")).await.unwrap().send_keys("open").await.unwrap();
    form.find(Locator::Css("button.run-pattern")).await.unwrap().click().await.unwrap();
    text_where(&browser, "#pattern-result", |t| t == "list-records-by-status: 1 item(s)").await;
    let results = find(&browser, "#results").await.text().await.unwrap();
    assert!(
        results.contains("org_id = acme, id = r0") || results.contains("id = r0, org_id = acme"),
        "{results}"
    );
    assert!(results.contains("\"gsi1pk\"") && results.contains("ORG#acme#STATUS#open"), "{results}");
    // The result opens right under the pattern that ran it.
    let above = browser
        .execute("return document.getElementById('results').previousElementSibling.dataset.pattern", vec![])
        .await
        .unwrap();
    assert_eq!(above, "list-records-by-status");
    screenshot(&browser, "patterns").await;

    browser.goto(&running.url("/console/#/table/ledger/partition")).await.unwrap();
    find(&browser, "#p-value").await.send_keys("ORG#acme").await.unwrap();
    find(&browser, "#p-run").await.click().await.unwrap();
    text_where(&browser, "#partition-count", |t| t.starts_with("4 items")).await;
    let groups = browser.find_all(Locator::Css("section.group")).await.unwrap();
    let mut names = Vec::new();
    for g in groups {
        names.push(g.attr("data-entity").await.unwrap().unwrap_or_default());
    }
    names.sort();
    assert_eq!(names, ["Declaration", "Org", "Record"]);
    let decl = find(&browser, "section.group[data-entity=\"Declaration\"] td.decoded").await;
    assert_eq!(decl.text().await.unwrap(), "org_id = acme, period = 2024-Q1");
    screenshot(&browser, "partition").await;
    browser.close().await.unwrap();
}

#[tokio::test]
async fn hostile_item_values_render_as_text() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    let hostile = "<img src=x onerror=\"window.__xss=1\">";
    let script = "<script>window.__xss=2</script>";
    put(
        &running.sdk,
        "orders",
        &[
            ("pk", s(hostile)),
            ("sk", s(script)),
            ("EntityType", s("<b onmouseover=\"window.__xss=3\">Evil</b>")),
            ("\"><svg onload=window.__xss=4>", s("<iframe src=javascript:window.__xss=5>")),
            (
                "nested",
                AttributeValue::M([("x".to_string(), s("<img src=y onerror=window.__xss=6>"))].into()),
            ),
        ],
    )
    .await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/items")).await.unwrap();
    find(&browser, "#scan").await.click().await.unwrap();
    text_where(&browser, "#page-info", |t| t == "Page 1: 1 items").await;
    let link = find(&browser, "#results a.item-link").await;
    assert_eq!(link.text().await.unwrap(), hostile);
    assert_eq!(
        find(&browser, "#results .chip").await.text().await.unwrap(),
        "<b onmouseover=\"window.__xss=3\">Evil</b>"
    );
    let injected = "return [document.querySelectorAll('#main img, #main script, #main svg, #main iframe, #main b').length, \
                    window.__xss === undefined]";
    assert_eq!(browser.execute(injected, vec![]).await.unwrap(), serde_json::json!([0, true]));
    link.click().await.unwrap();
    let view = find(&browser, "#item-view").await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(view.text().await.unwrap().contains("window.__xss=6"));
    let value = find(&browser, "textarea[data-attr=\"sk\"]").await.prop("value").await.unwrap();
    assert_eq!(value.as_deref(), Some(script));
    assert_eq!(browser.execute(injected, vec![]).await.unwrap(), serde_json::json!([0, true]));
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_table_is_exported_and_imported_with_a_progress_bar() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..60 {
        put(
            &running.sdk,
            "orders",
            &[("pk", s(&format!("o{i:02}"))), ("sk", s("A")), ("n", n(&i.to_string()))],
        )
        .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/transfer")).await.unwrap();
    find(&browser, "#export").await.click().await.unwrap();
    find(&browser, "#download").await;
    text_where(&browser, "#transfer-status", |t| t == "Exported 60 items").await;
    let progress = browser
        .execute("const p = document.getElementById('progress'); return [p.value, p.max]", vec![])
        .await
        .unwrap();
    assert_eq!(progress, serde_json::json!([60, 60]), "the bar is full");
    screenshot(&browser, "transfer").await;
    // The browser downloads the file as a user's would.
    find(&browser, "#download").await.click().await.unwrap();
    let lines = downloaded(&driver, "orders.jsonl").await;
    assert_eq!(lines.lines().count(), 60);
    assert!(lines.lines().all(|l| l.starts_with("{\"Item\":{")), "DynamoDB's export format");
    create_table(&running.sdk, "copy").await;
    let file = driver.scratch("orders.jsonl");
    browser.goto(&running.url("/console/#/table/copy/transfer")).await.unwrap();
    // The route renders after a DescribeTable: wait for the new page, not the old one's input.
    text_where(&browser, "#main h2", |t| t == "Import / export copy").await;
    find(&browser, "#import-file").await.send_keys(&file.display().to_string()).await.unwrap();
    find(&browser, "#import").await.click().await.unwrap();
    text_where(&browser, "#transfer-status", |t| t == "Imported 60 of 60 items").await;
    let copied = running.sdk.scan().table_name("copy").send().await.unwrap();
    assert_eq!(copied.count(), 60);
    browser.close().await.unwrap();
}

/// For every key cell of the grid: how many line boxes its text takes, its height, and its
/// line height (from element geometry, as the browser laid it out).
const KEY_LINES: &str = "return [...document.querySelectorAll('#results td.pin .v')].map((v) => { \
    const r = document.createRange(); r.selectNodeContents(v); \
    const td = v.closest('td'); const cs = getComputedStyle(td); \
    return [r.getClientRects().length, td.getBoundingClientRect().height, parseFloat(cs.lineHeight) \
      + parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom) + 2]; })";

async fn header(browser: &fantoccini::Client) -> Vec<String> {
    let cells = browser.find_all(Locator::Css("#results thead th")).await.unwrap();
    let mut names = Vec::new();
    for c in cells {
        names.push(c.text().await.unwrap());
    }
    names
}

#[tokio::test]
async fn the_grid_keeps_long_keys_on_one_line_pages_rows_and_remembers_chosen_columns() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    let long = "a-very-long-customer-identifier-0123456789-abcdefghij-klmnopqrstuvwxyz";
    for i in 0..500 {
        put(
            &running.sdk,
            "orders",
            &[
                ("pk", s(&format!("CUSTOMER#{long}#{i:04}"))),
                ("sk", s(&format!("ORDER#2024-05-01 with spaces in the sort key #{i}"))),
                ("total", n(&i.to_string())),
                ("note", s(&"a long note that goes on and on ".repeat(8))),
                ("status", s("open")),
            ],
        )
        .await;
    }
    let browser = browser(&driver).await;
    browser.set_window_size(1000, 900).await.unwrap();
    browser.goto(&running.url("/console/#/table/orders/items")).await.unwrap();
    scan_in_pages_of(&browser, 500).await;
    text_where(&browser, "#page-info", |t| t == "Page 1: 500 items").await;
    // One screen page of rows is rendered, not all 500.
    assert_eq!(text_where(&browser, "#grid-rows", |t| !t.is_empty()).await, "Rows 1–100 of 500");
    assert_eq!(browser.find_all(Locator::Css("#results tbody tr")).await.unwrap().len(), 100);
    let lines = browser.execute(KEY_LINES, vec![]).await.unwrap();
    let lines = lines.as_array().unwrap();
    assert_eq!(lines.len(), 200, "two key cells per row");
    for cell in lines {
        let (rects, height, line) =
            (cell[0].as_u64().unwrap(), cell[1].as_f64().unwrap(), cell[2].as_f64().unwrap());
        assert_eq!(rects, 1, "a key's text is one line box: {cell}");
        assert!(height <= line + 1.0, "a key cell is one line high: {cell}");
    }
    // A long value is elided, and its whole text is the cell's title.
    let note = find(&browser, "#results td[data-attr=\"note\"] .c").await;
    assert_eq!(
        note.attr("title").await.unwrap().as_deref(),
        Some("a long note that goes on and on ".repeat(8).as_str())
    );
    let elided = browser
        .execute("const v = document.querySelector('#results td[data-attr=\"note\"] .v'); return v.scrollWidth > v.clientWidth", vec![])
        .await
        .unwrap();
    assert_eq!(elided, serde_json::json!(true));
    find(&browser, "#grid-next").await.click().await.unwrap();
    text_where(&browser, "#grid-rows", |t| t == "Rows 101–200 of 500").await;
    screenshot(&browser, "grid").await;

    // Keys first, then the other attributes by name; the user hides one and moves another.
    assert_eq!(header(&browser).await, ["pk", "sk", "note", "status", "total"]);
    find(&browser, "#grid-columns summary").await.click().await.unwrap();
    find(&browser, "#grid-columns li[data-col=\"note\"] .col-toggle").await.click().await.unwrap();
    find(&browser, "#grid-columns li[data-col=\"total\"] .col-up").await.click().await.unwrap();
    assert_eq!(header(&browser).await, ["pk", "sk", "total", "status"]);
    screenshot(&browser, "columns").await;
    // The choice is kept for this table across a reload.
    browser.refresh().await.unwrap();
    find(&browser, "#scan").await.click().await.unwrap();
    text_where(&browser, "#page-info", |t| t.starts_with("Page 1:")).await;
    assert_eq!(header(&browser).await, ["pk", "sk", "total", "status"]);

    // A column is resized by dragging its header's right edge (here narrower, as the grid's
    // right edge is the window's); the width is kept per table.
    let width =
        "return document.querySelector('#results th .th[data-col=\"status\"]').getBoundingClientRect().width";
    let before = browser.execute(width, vec![]).await.unwrap().as_f64().unwrap();
    let grip = find(&browser, "#results th .th[data-col=\"status\"] .grip").await;
    let drag = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement { element: grip, duration: None, x: 0.0, y: 0.0 })
        .then(PointerAction::Down { button: MOUSE_BUTTON_LEFT })
        .then(PointerAction::MoveBy { duration: Some(Duration::from_millis(100)), x: -10.0, y: 0.0 })
        .then(PointerAction::Up { button: MOUSE_BUTTON_LEFT });
    browser.perform_actions(drag).await.unwrap();
    let after = browser.execute(width, vec![]).await.unwrap().as_f64().unwrap();
    assert!((before - 11.0..=before - 9.0).contains(&after), "{before} → {after}");
    let kept = "return JSON.parse(localStorage.getItem('monotable.widths.orders')).status";
    assert_eq!(browser.execute(kept, vec![]).await.unwrap().as_f64(), Some(after));
    browser.close().await.unwrap();
}

/// Adds a filter row to the query builder and fills it.
async fn filter_row(browser: &fantoccini::Client, row: usize, attr: &str, ty: &str, op: &str, value: &str) {
    find(browser, "#q-add-filter").await.click().await.unwrap();
    let css = |part: &str| format!("#q-filters .filter-row:nth-child({}) {part}", row + 1);
    find(browser, &css(".f-attr")).await.send_keys(attr).await.unwrap();
    find(browser, &css(".f-type")).await.select_by_value(ty).await.unwrap();
    find(browser, &css(".f-op")).await.select_by_value(op).await.unwrap();
    find(browser, &css(".f-value")).await.send_keys(value).await.unwrap();
}

#[tokio::test]
async fn filter_rows_build_the_expression_sent_and_a_saved_query_survives_a_reload() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..6 {
        let status = if i % 2 == 0 { "open" } else { "closed" };
        put(
            &running.sdk,
            "orders",
            &[
                ("pk", s("CUSTOMER#1")),
                ("sk", s(&format!("ORDER#{i}"))),
                ("status", s(status)),
                ("total", n(&i.to_string())),
            ],
        )
        .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/query")).await.unwrap();
    find(&browser, "#q-pk").await.send_keys("CUSTOMER#1").await.unwrap();
    find(&browser, "#q-op").await.select_by_value("begins_with").await.unwrap();
    find(&browser, "#q-sk1").await.send_keys("ORDER#").await.unwrap();
    filter_row(&browser, 0, "status", "S", "=", "open").await;
    filter_row(&browser, 1, "total", "N", ">=", "2").await;
    find(&browser, "#q-run").await.click().await.unwrap();
    text_where(&browser, "#query-count", |t| t == "2 items (6 read)").await;
    // The request as sent: the rows became one FilterExpression over #n…/:v… placeholders,
    // with the comparators and AND of "Condition and filter expressions, operators, and
    // functions in DynamoDB" (docs.aws.amazon.com/amazondynamodb/latest/developerguide/
    // Expressions.OperatorsAndFunctions.html); each value keeps the row's type.
    let sent = browser
        .execute("return JSON.parse(document.querySelector('.meta pre.json').textContent)", vec![])
        .await
        .unwrap();
    assert_eq!(sent["FilterExpression"], "#n0 = :v0 AND #n1 >= :v1", "{sent}");
    assert_eq!(sent["ExpressionAttributeNames"]["#n0"], "status");
    assert_eq!(sent["ExpressionAttributeNames"]["#n1"], "total");
    assert_eq!(sent["ExpressionAttributeValues"][":v0"], serde_json::json!({ "S": "open" }));
    assert_eq!(sent["ExpressionAttributeValues"][":v1"], serde_json::json!({ "N": "2" }));
    let mut keys = Vec::new();
    for link in browser.find_all(Locator::Css("#results a.item-link")).await.unwrap() {
        keys.push(link.text().await.unwrap());
    }
    assert_eq!(keys, ["CUSTOMER#1", "CUSTOMER#1"]);
    let mut sks = Vec::new();
    for cell in browser.find_all(Locator::Css("#results td[data-attr=\"sk\"] .v")).await.unwrap() {
        sks.push(cell.text().await.unwrap());
    }
    assert_eq!(sks, ["ORDER#2", "ORDER#4"]);

    // The same rows filter a Scan of the whole table.
    find(&browser, "#q-mode").await.select_by_value("scan").await.unwrap();
    find(&browser, "#q-run").await.click().await.unwrap();
    let meta = text_where(&browser, ".meta", |t| t.contains("DynamoDB_20120810.Scan")).await;
    assert!(meta.contains("\"FilterExpression\": \"#n0 = :v0 AND #n1 >= :v1\""), "{meta}");
    assert_eq!(find(&browser, "#query-count").await.text().await.unwrap(), "2 items (6 read)");
    find(&browser, "#q-mode").await.select_by_value("query").await.unwrap();

    // The projection picker lists the attributes seen and fills the projection.
    find(&browser, "#q-picker").await; // inside a closed panel until opened
    browser
        .execute("document.getElementById('q-picker').closest('details').open = true", vec![])
        .await
        .unwrap();
    find(&browser, "#q-picker input[data-attr=\"status\"]").await.click().await.unwrap();
    find(&browser, "#q-picker input[data-attr=\"sk\"]").await.click().await.unwrap();
    let projection = find(&browser, "#q-projection").await.prop("value").await.unwrap();
    assert_eq!(projection.as_deref(), Some("status, sk"));
    find(&browser, "#q-run").await.click().await.unwrap();
    let meta = text_where(&browser, ".meta", |t| t.contains("ProjectionExpression")).await;
    assert!(
        meta.contains("\"ProjectionExpression\": \"#cp0, #cp1\"") && meta.contains("\"#cp0\": \"status\""),
        "{meta}"
    );
    find(&browser, "#q-projection").await.clear().await.unwrap();

    // Both runs are in the history; saved under a name, the query outlives a reload.
    text_where(&browser, "#q-history summary", |t| t == "History (2)").await;
    find(&browser, "#q-save-name").await.send_keys("big open orders").await.unwrap();
    find(&browser, "#q-save").await.click().await.unwrap();
    screenshot(&browser, "query-builder").await;
    browser.refresh().await.unwrap();
    let saved = find(&browser, "#q-saved li[data-saved=\"big open orders\"] .load-saved").await;
    assert_eq!(find(&browser, "#q-filters").await.text().await.unwrap(), "", "a fresh form");
    saved.click().await.unwrap();
    text_where(&browser, "#query-count", |t| t == "2 items (6 read)").await;
    let value =
        find(&browser, "#q-filters .filter-row:nth-child(2) .f-value").await.prop("value").await.unwrap();
    assert_eq!(value.as_deref(), Some("2"));

    // Saved queries leave as a JSON file (to check in) and come back from one.
    find(&browser, "#q-export").await.click().await.unwrap();
    find(&browser, "#q-export-file").await.click().await.unwrap();
    let exported = downloaded(&driver, "orders.queries.json").await;
    let exported: serde_json::Value = serde_json::from_str(&exported).unwrap();
    assert_eq!(exported["table"], "orders");
    assert_eq!(exported["queries"][0]["name"], "big open orders");
    assert_eq!(exported["queries"][0]["form"]["filters"][1]["attr"], "total");
    let file = driver.scratch("import.queries.json");
    let mut renamed = exported.clone();
    renamed["queries"][0]["name"] = "imported".into();
    std::fs::write(&file, renamed.to_string()).unwrap();
    find(&browser, "#q-import-file").await.send_keys(&file.display().to_string()).await.unwrap();
    find(&browser, "#q-saved li[data-saved=\"imported\"]").await;
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_partiql_select_fills_the_grid_and_follows_its_next_token() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..5 {
        put(
            &running.sdk,
            "orders",
            &[("pk", s("CUSTOMER#1")), ("sk", s(&format!("ORDER#{i}"))), ("total", n(&i.to_string()))],
        )
        .await;
    }
    put(&running.sdk, "orders", &[("pk", s("CUSTOMER#2")), ("sk", s("ORDER#9"))]).await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/partiql")).await.unwrap();
    let sql = find(&browser, "#sql").await;
    assert_eq!(sql.prop("value").await.unwrap().as_deref(), Some("SELECT * FROM \"orders\""));
    sql.clear().await.unwrap();
    sql.send_keys("SELECT * FROM \"orders\" WHERE pk = ?").await.unwrap();
    find(&browser, "#sql-params").await.send_keys("[{\"S\": \"CUSTOMER#1\"}]").await.unwrap();
    let limit = find(&browser, "#sql-limit").await;
    limit.clear().await.unwrap();
    limit.send_keys("3").await.unwrap();
    find(&browser, "#sql-run").await.click().await.unwrap();
    text_where(&browser, "#sql-page", |t| t == "Page 1: 3 items").await;
    let meta = find(&browser, ".meta").await.text().await.unwrap();
    assert!(meta.contains("DynamoDB_20120810.ExecuteStatement") && meta.contains("\"Limit\": 3"), "{meta}");
    let mut seen = Vec::new();
    for cell in browser.find_all(Locator::Css("#results td[data-attr=\"sk\"] .v")).await.unwrap() {
        seen.push(cell.text().await.unwrap());
    }
    screenshot(&browser, "partiql").await;
    // The next page sends the endpoint's NextToken with the same statement and parameters
    // ("ExecuteStatement", Amazon DynamoDB API Reference: Limit, NextToken).
    find(&browser, "#sql-next").await.click().await.unwrap();
    text_where(&browser, "#sql-page", |t| t == "Page 2: 2 items").await;
    assert!(find(&browser, ".meta").await.text().await.unwrap().contains("\"NextToken\""));
    for cell in browser.find_all(Locator::Css("#results td[data-attr=\"sk\"] .v")).await.unwrap() {
        seen.push(cell.text().await.unwrap());
    }
    find(&browser, "#sql-last").await;
    assert_eq!(seen, (0..5).map(|i| format!("ORDER#{i}")).collect::<Vec<_>>());
    // Rows with the whole key link to the item.
    let link = find(&browser, "#results a.item-link").await;
    assert_eq!(link.text().await.unwrap(), "CUSTOMER#1");
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_read_only_console_runs_partiql_selects_and_refuses_writes() {
    let Some(driver) = driver() else { return };
    let running = start(Options { writable: false, ..writable() }).await;
    create_table(&running.sdk, "orders").await;
    put(&running.sdk, "orders", &[("pk", s("a")), ("sk", s("b"))]).await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/partiql")).await.unwrap();
    find(&browser, "#sql-read-only").await;
    let sql = find(&browser, "#sql").await;
    sql.send_keys("DELETE FROM \"orders\" WHERE pk = 'a' AND sk = 'b'").await.unwrap();
    find(&browser, "#sql-run").await.click().await.unwrap();
    text_where(&browser, "#results .error", |t| t.contains("only SELECT statements run")).await;
    let left = running.sdk.scan().table_name("orders").send().await.unwrap();
    assert_eq!(left.count(), 1, "the DELETE never reached the endpoint");
    sql.clear().await.unwrap();
    sql.send_keys("select * from orders").await.unwrap();
    find(&browser, "#sql-run").await.click().await.unwrap();
    text_where(&browser, "#sql-page", |t| t == "Page 1: 1 items").await;
    browser.close().await.unwrap();
}

#[tokio::test]
async fn a_scan_result_is_downloaded_whole_as_csv_and_a_page_as_json_lines() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..5 {
        put(&running.sdk, "orders", &[("pk", s(&format!("o{i}"))), ("sk", s("A")), ("note", s("a, \"b\""))])
            .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/items")).await.unwrap();
    scan_in_pages_of(&browser, 2).await;
    text_where(&browser, "#page-info", |t| t == "Page 1: 2 items").await;
    // The whole result, though the page shows two items: the server reads every page.
    find(&browser, "#export-all-csv").await.click().await.unwrap();
    find(&browser, "#export-file").await.click().await.unwrap();
    let csv = downloaded(&driver, "orders.csv").await;
    let mut rows: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(rows.pop(), Some(""), "CRLF after the last record");
    assert_eq!(rows[0], "pk,sk,note");
    rows.remove(0);
    rows.sort();
    assert_eq!(rows, (0..5).map(|i| format!("o{i},A,\"a, \"\"b\"\"\"")).collect::<Vec<_>>());
    // This page only, as DynamoDB JSON lines.
    find(&browser, "#export-page-jsonl").await.click().await.unwrap();
    text_where(&browser, ".export-out", |t| t.contains("orders.jsonl")).await;
    find(&browser, "#export-file").await.click().await.unwrap();
    let lines = downloaded(&driver, "orders.jsonl").await;
    assert_eq!(lines.lines().count(), 2);
    assert!(lines.lines().all(|l| l.starts_with("{\"Item\":{")), "{lines}");
    browser.close().await.unwrap();
}

/// Clicks the settings button `id`, then its Confirm, and waits for the page to say it is done.
async fn confirm_change(browser: &fantoccini::Client, id: &str) {
    find(browser, &format!("#{id}")).await.click().await.unwrap();
    find(browser, &format!("#{id}-confirm")).await.click().await.unwrap();
    // "Done" appears once the page is drawn again from a fresh DescribeTable.
    text_where(browser, "#settings-out", |t| t.starts_with("Done:")).await;
}

#[tokio::test]
async fn a_table_is_created_with_an_lsi_ttl_stream_and_tags_and_its_settings_changed() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    let sdk = &running.sdk;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/create")).await.unwrap();
    find(&browser, "#create-name").await.send_keys("events").await.unwrap();
    find(&browser, "#create-pk-name").await.send_keys("pk").await.unwrap();
    find(&browser, "#create-sk-name").await.send_keys("sk").await.unwrap();
    find(&browser, "#add-lsi").await.click().await.unwrap();
    find(&browser, "#lsi0-index").await.send_keys("byTime").await.unwrap();
    find(&browser, "#lsi0-sk-name").await.send_keys("at").await.unwrap();
    find(&browser, "#lsi0-sk-type").await.select_by_value("N").await.unwrap();
    find(&browser, "#create-stream").await.select_by_value("NEW_AND_OLD_IMAGES").await.unwrap();
    find(&browser, "#create-ttl").await.send_keys("expires").await.unwrap();
    find(&browser, "#create-protection").await.click().await.unwrap();
    find(&browser, "#create-tags").await.send_keys("team=ledger\nstage=dev").await.unwrap();
    screenshot(&browser, "create").await;
    find(&browser, "#create").await.click().await.unwrap();
    find(&browser, "#created").await;

    let describe =
        || async { sdk.describe_table().table_name("events").send().await.unwrap().table.unwrap() };
    let ttl = || async {
        sdk.describe_time_to_live()
            .table_name("events")
            .send()
            .await
            .unwrap()
            .time_to_live_description
            .unwrap()
    };
    let tags = |arn: String| async move {
        let out = sdk.list_tags_of_resource().resource_arn(arn).send().await.unwrap();
        let mut tags: Vec<(String, String)> =
            out.tags().iter().map(|t| (t.key().to_string(), t.value().to_string())).collect();
        tags.sort();
        tags
    };
    let table = describe().await;
    let lsi = &table.local_secondary_indexes()[0];
    assert_eq!(lsi.index_name(), Some("byTime"));
    assert_eq!(lsi.key_schema()[1].attribute_name(), "at");
    assert!(table
        .attribute_definitions()
        .iter()
        .any(|d| d.attribute_name() == "at" && d.attribute_type().as_str() == "N"));
    let stream = table.stream_specification().unwrap();
    assert!(stream.stream_enabled());
    assert_eq!(stream.stream_view_type().map(|v| v.as_str()), Some("NEW_AND_OLD_IMAGES"));
    assert_eq!(table.deletion_protection_enabled(), Some(true));
    assert_eq!(
        table.billing_mode_summary().and_then(|b| b.billing_mode()).map(|b| b.as_str()),
        Some("PAY_PER_REQUEST")
    );
    let arn = table.table_arn().unwrap().to_string();
    assert_eq!(tags(arn.clone()).await, [("stage".into(), "dev".into()), ("team".into(), "ledger".into())]);
    let described_ttl = ttl().await;
    assert_eq!(described_ttl.attribute_name(), Some("expires"));
    assert_eq!(described_ttl.time_to_live_status().map(|s| s.as_str()), Some("ENABLED"));

    // Each setting changes only after its confirmation, through the call a client makes.
    browser.goto(&running.url("/console/#/table/events/settings")).await.unwrap();
    find(&browser, "#set-protection").await.click().await.unwrap();
    find(&browser, "#set-protection-confirm").await;
    assert_eq!(describe().await.deletion_protection_enabled(), Some(true), "nothing is sent before Confirm");
    find(&browser, "#set-protection-confirm").await.click().await.unwrap();
    text_where(&browser, "#settings-out", |t| t.starts_with("Done:")).await;
    assert_eq!(describe().await.deletion_protection_enabled(), Some(false));

    confirm_change(&browser, "set-ttl").await;
    assert_eq!(ttl().await.time_to_live_status().map(|s| s.as_str()), Some("DISABLED"));
    confirm_change(&browser, "set-stream").await;
    assert!(describe().await.stream_specification().is_none_or(|s| !s.stream_enabled()));

    find(&browser, "#set-billing-mode").await.select_by_value("PROVISIONED").await.unwrap();
    let rcu = find(&browser, "#set-rcu").await;
    rcu.clear().await.unwrap();
    rcu.send_keys("7").await.unwrap();
    let wcu = find(&browser, "#set-wcu").await;
    wcu.clear().await.unwrap();
    wcu.send_keys("3").await.unwrap();
    confirm_change(&browser, "set-billing").await;
    let table = describe().await;
    assert_eq!(
        table.billing_mode_summary().and_then(|b| b.billing_mode()).map(|b| b.as_str()),
        Some("PROVISIONED")
    );
    let throughput = table.provisioned_throughput().unwrap();
    assert_eq!((throughput.read_capacity_units(), throughput.write_capacity_units()), (Some(7), Some(3)));

    find(&browser, "#set-tag-key").await.send_keys("owner").await.unwrap();
    find(&browser, "#set-tag-value").await.send_keys("ops").await.unwrap();
    confirm_change(&browser, "set-tag").await;
    confirm_change(&browser, "untag-stage").await;
    assert_eq!(tags(arn.clone()).await, [("owner".into(), "ops".into()), ("team".into(), "ledger".into())]);

    find(&browser, "#set-gsi-name").await.send_keys("byKind").await.unwrap();
    find(&browser, "#set-gsi-pk").await.send_keys("kind").await.unwrap();
    confirm_change(&browser, "add-gsi").await;
    let table = describe().await;
    let gsi = &table.global_secondary_indexes()[0];
    assert_eq!((gsi.index_name(), gsi.key_schema()[0].attribute_name()), (Some("byKind"), "kind"));
    // A GSI of a provisioned table gets the table's capacity.
    assert_eq!(gsi.provisioned_throughput().and_then(|p| p.read_capacity_units()), Some(7));
    find(&browser, "#gsi-list li[data-index=\"byKind\"]").await;
    screenshot(&browser, "settings").await;
    confirm_change(&browser, "drop-gsi-byKind").await;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while !describe().await.global_secondary_indexes().is_empty() {
        assert!(std::time::Instant::now() < deadline, "the GSI was not deleted");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    browser.close().await.unwrap();
}

#[tokio::test]
async fn with_a_design_a_table_opens_on_its_entity_types_counts_and_largest_partitions() {
    let Some(driver) = driver() else { return };
    let running = start(Options { design: Some(orgs_design()), ..writable() }).await;
    seed_ledger(&running).await;
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/")).await.unwrap();
    find(&browser, "#tables a.table-link").await.click().await.unwrap();
    find(&browser, "#tab-overview.active").await;
    find(&browser, "#entities tr[data-entity=\"Record\"]").await;
    assert!(find(&browser, "#overview-patterns")
        .await
        .text()
        .await
        .unwrap()
        .contains("list-records-by-status"));
    // Nothing is scanned until asked.
    assert_eq!(
        find(&browser, "#entities tr[data-entity=\"Record\"] .count").await.text().await.unwrap(),
        "—"
    );
    find(&browser, "#stats-run").await.click().await.unwrap();
    text_where(&browser, "#stats-status", |t| t == "Scanned 5 items").await;
    let count = |entity: &'static str| {
        let browser = browser.clone();
        async move {
            let css = format!("#entities tr[data-entity=\"{entity}\"] .count");
            find(&browser, &css).await.text().await.unwrap()
        }
    };
    assert_eq!(
        (count("Record").await, count("Org").await, count("Declaration").await),
        ("3".into(), "1".into(), "1".into())
    );
    let progress = browser
        .execute("const p = document.getElementById('stats-progress'); return [p.value, p.max]", vec![])
        .await
        .unwrap();
    assert_eq!(progress, serde_json::json!([5, 5]));
    let first = find(&browser, "#largest-items tbody tr").await;
    assert_eq!(first.attr("data-partition").await.unwrap().as_deref(), Some("ORG#acme"));
    let items = first.find(Locator::Css("td:nth-child(2)")).await.unwrap().text().await.unwrap();
    assert_eq!(items, "4", "ORG#acme holds the profile, two records and a declaration");
    let bytes: Vec<u64> = browser
        .execute("return [...document.querySelectorAll('#largest-bytes tbody td:last-child')].map((td) => Number(td.textContent))", vec![])
        .await
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(bytes.len() == 2 && bytes[0] > bytes[1] && bytes[1] > 0, "{bytes:?}");
    screenshot(&browser, "overview").await;
    // A partition opens in place, in the partition view of the same page.
    first.find(Locator::Css("a.open-partition")).await.unwrap().click().await.unwrap();
    text_where(&browser, "#overview-partition #partition-count", |t| t.starts_with("4 items")).await;
    browser.close().await.unwrap();
}

/// WebDriver's key codes ("Keys", W3C WebDriver, section 17.4.2).
const ENTER: &str = "\u{E007}";
const ESCAPE: &str = "\u{E00C}";
const ARROW_LEFT: &str = "\u{E012}";
const ARROW_DOWN: &str = "\u{E015}";

/// The focused element's `[tag, class, text]`.
async fn focused(browser: &fantoccini::Client) -> serde_json::Value {
    browser
        .execute("const a = document.activeElement; return [a.tagName, a.className, a.textContent]", vec![])
        .await
        .unwrap()
}

#[tokio::test]
async fn slash_focuses_the_filter_enter_runs_arrows_move_in_the_grid_and_escape_closes() {
    let Some(driver) = driver() else { return };
    let running = start(writable()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..4 {
        let status = if i < 3 { "open" } else { "closed" };
        put(&running.sdk, "orders", &[("pk", s("C#1")), ("sk", s(&format!("O#{i}"))), ("status", s(status))])
            .await;
    }
    let browser = browser(&driver).await;
    browser.goto(&running.url("/console/#/table/orders/query")).await.unwrap();
    find(&browser, "#q-pk").await.send_keys("C#1").await.unwrap();
    browser.active_element().await.unwrap().send_keys(ESCAPE).await.unwrap();
    assert_eq!(focused(&browser).await[0], "BODY", "Escape leaves the field");
    browser.active_element().await.unwrap().send_keys("/").await.unwrap();
    assert_eq!(focused(&browser).await[1], "f-attr", "/ focuses the filter");
    browser.active_element().await.unwrap().send_keys("status").await.unwrap();
    let value = find(&browser, "#q-filters .f-value").await;
    value.send_keys("open").await.unwrap();
    value.send_keys(ENTER).await.unwrap();
    text_where(&browser, "#query-count", |t| t == "3 items (4 read)").await;

    // Arrows move between cells; Enter on a cell opens its item.
    find(&browser, "#results tbody td[data-attr=\"status\"]").await.click().await.unwrap();
    assert_eq!(focused(&browser).await[2], "openS", "a clicked cell takes focus");
    browser.active_element().await.unwrap().send_keys(ARROW_DOWN).await.unwrap();
    browser.active_element().await.unwrap().send_keys(ARROW_LEFT).await.unwrap();
    assert_eq!(focused(&browser).await[2], "O#1S", "second row, sort key");
    find(&browser, "#grid-columns summary").await.click().await.unwrap();
    assert_eq!(find(&browser, "#grid-columns").await.attr("open").await.unwrap().as_deref(), Some("true"));
    browser.active_element().await.unwrap().send_keys(ESCAPE).await.unwrap();
    assert_eq!(
        find(&browser, "#grid-columns").await.attr("open").await.unwrap(),
        None,
        "Escape closes the panel"
    );
    find(&browser, "#results tbody tr:nth-child(2) td[data-attr=\"sk\"]").await.click().await.unwrap();
    browser.active_element().await.unwrap().send_keys(ENTER).await.unwrap();
    text_where(&browser, "#item-view", |t| t.contains("O#1")).await;
    browser.close().await.unwrap();
}
