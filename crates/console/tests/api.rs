//! The console's API over a real socket, without a browser: the security checks (CSRF,
//! origin, host, read-only, sign-in), sealed cursors, the protocol's value validation, and
//! the mount on `monotable serve`'s port.

mod support;

use std::sync::Arc;

use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use monotable_console::{Access, Console, Options};
use monotable_server::{Auth, Mount, Service};
use serde_json::json;
use support::*;
use tokio::net::TcpListener;

fn api_request(addr: std::net::SocketAddr, name: &str, extra: &str, body: &str) -> (u16, String, String) {
    http(
        addr,
        &format!(
            "POST /console/api/{name} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{extra}\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_call_needs_the_page_csrf_token() {
    let running = start(Options::default()).await;
    let addr = running.addr;
    let token = csrf(addr);
    let (status, _, body) =
        tokio::task::spawn_blocking(move || api_request(addr, "tables", "", "{}")).await.unwrap();
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("CSRF"), "{body}");
    let wrong = "0".repeat(64);
    let (status, _, _) = tokio::task::spawn_blocking(move || {
        api_request(addr, "tables", &format!("X-Console-Csrf: {wrong}\r\n"), "{}")
    })
    .await
    .unwrap();
    assert_eq!(status, 403);
    let (status, body) =
        tokio::task::spawn_blocking(move || call(addr, &token, "tables", "{}")).await.unwrap();
    assert_eq!((status, body), (200, json!({ "tables": [] })));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_or_host_name_is_refused() {
    let running = start(Options::default()).await;
    let addr = running.addr;
    let token = csrf(addr);
    let (status, _, body) = tokio::task::spawn_blocking(move || {
        api_request(
            addr,
            "tables",
            &format!("X-Console-Csrf: {token}\r\nOrigin: http://evil.example\r\n"),
            "{}",
        )
    })
    .await
    .unwrap();
    assert_eq!(status, 403, "{body}");
    // DNS rebinding: a page served from another name that resolves to 127.0.0.1.
    let (status, _, body) = tokio::task::spawn_blocking(move || {
        http(addr, "GET /console/ HTTP/1.1\r\nHost: rebind.example:8000\r\nConnection: close\r\n\r\n")
    })
    .await
    .unwrap();
    assert_eq!(status, 403, "{body}");
    assert!(!body.contains("csrf"), "the token is not handed to a foreign host name");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_console_refuses_every_write() {
    let running = start(Options::default()).await;
    create_table(&running.sdk, "orders").await;
    put(&running.sdk, "orders", &[("pk", s("o1")), ("sk", s("A"))]).await;
    let addr = running.addr;
    let token = csrf(addr);
    let calls = [
        ("put", r#"{"table":"orders","item":{"pk":{"S":"o2"},"sk":{"S":"A"}}}"#),
        ("delete", r#"{"table":"orders","key":{"pk":{"S":"o1"},"sk":{"S":"A"}}}"#),
        ("batch-put", r#"{"table":"orders","items":[{"pk":{"S":"o3"},"sk":{"S":"A"}}]}"#),
        ("create-table", r#"{"table":"other","pk":{"name":"pk","type":"S"}}"#),
        ("delete-table", r#"{"table":"orders","confirm":"orders"}"#),
        ("statement", r#"{"statement":"DELETE FROM \"orders\" WHERE pk = 'o1' AND sk = 'A'"}"#),
        ("statement", r#"{"statement":"  update orders SET x = 1 WHERE pk = 'o1' AND sk = 'A'"}"#),
        ("statement", r#"{"statement":"INSERT INTO orders VALUE {'pk': 'o4', 'sk': 'A'}"}"#),
    ];
    for (name, body) in calls {
        let token = token.clone();
        let (status, answer) =
            tokio::task::spawn_blocking(move || call(addr, &token, name, body)).await.unwrap();
        assert_eq!(status, 403, "{name}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("read-only"), "{answer}");
    }
    let scan = running.sdk.scan().table_name("orders").send().await.unwrap();
    assert_eq!(scan.count(), 1);
    assert_eq!(running.sdk.list_tables().send().await.unwrap().table_names(), ["orders"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_opens_only_for_its_own_table_and_cannot_be_forged() {
    let running = start(Options::default()).await;
    create_table(&running.sdk, "orders").await;
    create_table(&running.sdk, "others").await;
    for i in 0..3 {
        put(&running.sdk, "orders", &[("pk", s(&format!("o{i}"))), ("sk", s("A"))]).await;
    }
    let addr = running.addr;
    let token = csrf(addr);
    let (status, page) = {
        let token = token.clone();
        tokio::task::spawn_blocking(move || call(addr, &token, "scan", r#"{"table":"orders","limit":2}"#))
            .await
            .unwrap()
    };
    assert_eq!(status, 200, "{page}");
    let cursor = page["cursor"].as_str().unwrap().to_string();
    let next = json!({ "table": "orders", "limit": 2, "cursor": cursor }).to_string();
    let elsewhere = json!({ "table": "others", "limit": 2, "cursor": cursor }).to_string();
    let forged = json!({ "table": "orders", "cursor": format!("eyJwayI6eyJTIjoibzAifX0.{}", cursor.split_once('.').unwrap().1) }).to_string();
    let (a, b, c) = tokio::task::spawn_blocking(move || {
        (
            call(addr, &token, "scan", &next),
            call(addr, &token, "scan", &elsewhere),
            call(addr, &token, "scan", &forged),
        )
    })
    .await
    .unwrap();
    assert_eq!((a.0, a.1["count"].as_i64()), (200, Some(1)), "{}", a.1);
    assert_eq!(b.0, 400, "{}", b.1);
    assert_eq!(c.0, 400, "{}", c.1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_value_gets_the_protocol_servers_message() {
    let running = start(Options { writable: true, ..Options::default() }).await;
    create_table(&running.sdk, "orders").await;
    let addr = running.addr;
    let token = csrf(addr);
    let body = r#"{"table":"orders","item":{"pk":{"S":"o1"},"sk":{"S":"A"},"n":{"N":"12abc"}}}"#;
    let (status, answer) =
        tokio::task::spawn_blocking(move || call(addr, &token, "put", body)).await.unwrap();
    assert_eq!(status, 400, "{answer}");
    assert_eq!(
        answer["error"]["message"], "The parameter cannot be converted to a numeric value: 12abc",
        "the same text the protocol server gives (monotable_types' parser)"
    );
}

/// `monotable serve`'s arrangement on a loopback port: the protocol for `engine`, with a
/// console over the same engine mounted as the CLI mounts it (off the workers). Returns the
/// address, an SDK client for it, and the sender whose drop stops the server.
async fn serve_with_console(
    engine: &monotable_engine::Engine,
    writable: bool,
) -> (std::net::SocketAddr, aws_sdk_dynamodb::Client, tokio::sync::oneshot::Sender<()>) {
    let console = Console::new(
        Access::Open(monotable_embedded::client_for(engine.clone())),
        Options { loopback_only: true, writable, ..Options::default() },
    );
    let mount = Mount::new(monotable_console::PREFIX, move |parts, body| {
        let console = console.clone();
        Box::pin(async move { console.handle_off_worker(parts, body).await })
    });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(monotable_server::serve_with(
        listener,
        Service::new(engine.clone()),
        Some(mount),
        async move {
            let _ = stopped.await;
        },
    ));
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .endpoint_url(format!("http://{addr}"))
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("local", "local", None, None, "static"))
        .build();
    (addr, aws_sdk_dynamodb::Client::from_conf(config), stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_mounted_on_the_protocol_port_leaves_the_protocol_alone() {
    let engine = monotable_engine::Engine::new();
    let (addr, sdk, stop) = serve_with_console(&engine, false).await;
    create_table(&sdk, "orders").await;
    let token = tokio::task::spawn_blocking(move || csrf(addr)).await.unwrap();
    let (status, tables) =
        tokio::task::spawn_blocking(move || call(addr, &token, "tables", "{}")).await.unwrap();
    assert_eq!(status, 200);
    assert_eq!(tables["tables"][0]["name"], "orders");
    assert_eq!(sdk.list_tables().send().await.unwrap().table_names(), ["orders"]);
    let (status, _, body) = tokio::task::spawn_blocking(move || {
        http(addr, &format!("GET / HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"))
    })
    .await
    .unwrap();
    assert_eq!((status, body.as_str()), (200, monotable_server::HEALTH_BODY));
    // `/consoles` is not under the mount: the protocol answers it.
    let (status, _, _) = tokio::task::spawn_blocking(move || {
        http(addr, &format!("GET /consoles HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"))
    })
    .await
    .unwrap();
    assert_ne!(status, 200);
    drop(stop);
}

/// A standalone console in login mode for a server that verifies the key pair
/// `AKIDCONSOLE`/`s3cret-value`; it runs until the returned sender is dropped.
async fn login_console() -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let service = Service::new(monotable_engine::Engine::new())
        .with_auth(Auth::Verify(monotable_server::Credentials::new().with("AKIDCONSOLE", "s3cret-value")));
    let access = Access::Login(Arc::new(move |id: &str, secret: &str| {
        let credentials = Credentials::new(id, secret, None, None, "test");
        aws_sdk_dynamodb::Client::from_conf(
            monotable_embedded::config_builder(service.clone()).credentials_provider(credentials).build(),
        )
    }));
    let console = Console::new(access, Options { loopback_only: true, ..Options::default() });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(monotable_console::serve(listener, console, async move {
        let _ = stopped.await;
    }));
    (addr, stop)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_verify_the_console_asks_for_a_key_pair_the_endpoint_accepts() {
    let (addr, _stop) = login_console().await;
    let outcome = tokio::task::spawn_blocking(move || {
        let token = csrf(addr);
        let session = call(addr, &token, "session", "{}");
        let refused = call(addr, &token, "tables", "{}");
        let wrong = call(addr, &token, "login", r#"{"accessKeyId":"AKIDCONSOLE","secretAccessKey":"guess"}"#);
        let login = api_request(
            addr,
            "login",
            &format!("X-Console-Csrf: {token}\r\n"),
            r#"{"accessKeyId":"AKIDCONSOLE","secretAccessKey":"s3cret-value"}"#,
        );
        let cookie = login
            .1
            .lines()
            .find_map(|l| l.strip_prefix("set-cookie: "))
            .and_then(|c| c.split(';').next())
            .unwrap_or_default()
            .to_string();
        let tables =
            api_request(addr, "tables", &format!("X-Console-Csrf: {token}\r\nCookie: {cookie}\r\n"), "{}");
        (session, refused, wrong, login, cookie, tables)
    })
    .await
    .unwrap();
    let (session, refused, wrong, login, cookie, tables) = outcome;
    assert_eq!(session.1["login"], true);
    assert_eq!(session.1["signedIn"], false);
    assert_eq!(refused.0, 403, "{}", refused.1);
    assert_eq!(wrong.0, 401, "{}", wrong.1);
    assert_eq!(wrong.1["error"]["type"], "Unauthorized", "{}", wrong.1);
    assert_eq!(login.0, 200, "{}", login.2);
    assert!(login.1.contains("HttpOnly") && login.1.contains("SameSite=Strict"), "{}", login.1);
    assert!(cookie.starts_with("monotable_console="), "{cookie}");
    assert_eq!(tables.0, 200, "{}", tables.2);
    for text in [login.1.as_str(), login.2.as_str(), tables.2.as_str()] {
        assert!(!text.contains("s3cret-value"), "a secret reached the page");
    }
}

/// Sign-in attempts are counted per client: ten a minute, right or wrong, then 429 with the
/// wait; a guesser cannot try keys at speed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_attempts_past_ten_a_minute_are_refused() {
    let (addr, _stop) = login_console().await;
    let statuses = tokio::task::spawn_blocking(move || {
        let token = csrf(addr);
        let guess = r#"{"accessKeyId":"AKIDCONSOLE","secretAccessKey":"guess"}"#;
        let mut statuses: Vec<u16> = (0..10).map(|_| call(addr, &token, "login", guess).0).collect();
        let (status, body) =
            call(addr, &token, "login", r#"{"accessKeyId":"AKIDCONSOLE","secretAccessKey":"s3cret-value"}"#);
        assert_eq!(body["error"]["type"], "TooManyRequests", "{body}");
        assert!(body["error"]["message"].as_str().unwrap_or("").contains("try again in"), "{body}");
        statuses.push(status);
        statuses
    })
    .await
    .unwrap();
    assert_eq!(&statuses[..10], &[401; 10]);
    assert_eq!(statuses[10], 429, "even the right key waits once the client has used its attempts");
}

/// A console call that takes long holds up no SDK request on the same server: the console runs
/// off the workers (`Console::handle_off_worker`, as `monotable serve` mounts it). One worker
/// (a current-thread runtime, as `serve` runs on two cores) serves both here; the console's
/// PutItem is held inside the engine by the in-flight hook while a GetItem goes over the
/// protocol. Run on the worker, the held call would block the only thread until the hook gave
/// up (10 s), and the GetItem would be answered only after it.
#[tokio::test]
async fn a_console_call_held_in_the_engine_stalls_no_sdk_request() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Mutex};
    use std::time::Duration;

    let engine = monotable_engine::Engine::new();
    let (addr, sdk, _stop) = serve_with_console(&engine, true).await;
    create_table(&sdk, "orders").await;
    put(&sdk, "orders", &[("pk", s("o1")), ("sk", s("A"))]).await;

    // From here the next PutItem waits in the engine until released (at most 10 s).
    let (entered_tx, entered) = mpsc::channel::<()>();
    let (release, released) = mpsc::channel::<()>();
    let gate = Mutex::new(Some((entered_tx, released)));
    let held = Arc::new(AtomicBool::new(false));
    let holding = held.clone();
    engine.set_in_flight_hook(Some(Arc::new(move |op| {
        // Plain writes (PutItem, UpdateItem, DeleteItem) pause under the name "write".
        if op == "write" {
            if let Some((entered, released)) = gate.lock().unwrap().take() {
                holding.store(true, Ordering::SeqCst);
                let _ = entered.send(());
                let _ = released.recv_timeout(Duration::from_secs(10));
                holding.store(false, Ordering::SeqCst);
            }
        }
    })));

    let token = tokio::task::spawn_blocking(move || csrf(addr)).await.unwrap();
    let console_put = tokio::task::spawn_blocking(move || {
        call(addr, &token, "put", r#"{"table":"orders","item":{"pk":{"S":"o2"},"sk":{"S":"A"}}}"#)
    });
    tokio::task::spawn_blocking(move || entered.recv_timeout(Duration::from_secs(10)))
        .await
        .unwrap()
        .expect("the console's PutItem reached the engine");
    let got = tokio::time::timeout(
        Duration::from_secs(5),
        sdk.get_item().table_name("orders").key("pk", s("o1")).key("sk", s("A")).send(),
    )
    .await;
    let answered_while_held = held.load(Ordering::SeqCst);
    let _ = release.send(());
    assert!(got.expect("the GetItem was answered").expect("GetItem").item.is_some());
    assert!(answered_while_held, "the GetItem waited for the console's held call");
    let (status, body) = console_put.await.unwrap();
    assert_eq!(status, 200, "{body}");
    engine.set_in_flight_hook(None);
}

/// With a design, an editor save of a versioned entity is a save as the library makes it: the
/// next version and a fresh updated stamp, conditional on the version read. An application
/// still holding the old version then conflicts instead of overwriting the console's edit, and
/// a second save from a stale page conflicts too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_of_a_versioned_entity_increments_the_version_and_stamps_it() {
    let running = start(Options { writable: true, design: Some(orgs_design()), ..Options::default() }).await;
    create_table(&running.sdk, "ledger").await;
    let read = [
        ("pk", s("ORG#acme")),
        ("sk", s("RECORD#r1")),
        ("entityType", s("Record")),
        ("status", s("open")),
        ("version", n("3")),
        ("updatedOn", s("2020-01-01T00:00:00.000Z")),
    ];
    put(&running.sdk, "ledger", &read).await;
    let expected = r#"{"pk":{"S":"ORG#acme"},"sk":{"S":"RECORD#r1"},"entityType":{"S":"Record"},
        "status":{"S":"open"},"version":{"N":"3"},"updatedOn":{"S":"2020-01-01T00:00:00.000Z"}}"#;
    let edited = expected.replace(r#""status":{"S":"open"}"#, r#""status":{"S":"closed"}"#);
    let body = format!(r#"{{"table":"ledger","item":{edited},"expected":{expected}}}"#);
    let (addr, token) = (running.addr, csrf(running.addr));
    let save = move || call(addr, &token, "put", &body);
    let (status, answer) = tokio::task::spawn_blocking(save.clone()).await.unwrap();
    assert_eq!(status, 200, "{answer}");

    let got = running.sdk.get_item().table_name("ledger").key("pk", s("ORG#acme")).key("sk", s("RECORD#r1"));
    let stored = got.send().await.unwrap().item.unwrap();
    assert_eq!(stored["status"], s("closed"));
    assert_eq!(stored["version"], n("4"), "the version read plus one");
    let stamp = stored["updatedOn"].as_s().unwrap();
    assert!(stamp.as_str() > "2020-01-01T00:00:00.000Z" && stamp.ends_with('Z'), "{stamp}");

    let stale_app_write = running
        .sdk
        .put_item()
        .table_name("ledger")
        .set_item(Some(read.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()))
        .condition_expression("version = :v")
        .expression_attribute_values(":v", n("3"))
        .send()
        .await;
    let error = stale_app_write.unwrap_err().into_service_error();
    assert!(error.is_conditional_check_failed_exception(), "{error:?}");

    let (status, answer) = tokio::task::spawn_blocking(save).await.unwrap();
    assert_eq!(status, 502, "a save from the stale page conflicts: {answer}");
    assert_eq!(answer["error"]["type"], "ConditionalCheckFailedException", "{answer}");
}

/// An item of a versioned entity written without a version (by hand, or before the field was
/// declared) gets version 1 from its first console save, on condition that it still has none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_of_an_unversioned_item_starts_its_version_at_one() {
    let running = start(Options { writable: true, design: Some(orgs_design()), ..Options::default() }).await;
    create_table(&running.sdk, "ledger").await;
    put(
        &running.sdk,
        "ledger",
        &[("pk", s("ORG#acme")), ("sk", s("RECORD#r2")), ("entityType", s("Record"))],
    )
    .await;
    let expected = r#"{"pk":{"S":"ORG#acme"},"sk":{"S":"RECORD#r2"},"entityType":{"S":"Record"}}"#;
    let body = format!(r#"{{"table":"ledger","item":{expected},"expected":{expected}}}"#);
    let (addr, token) = (running.addr, csrf(running.addr));
    let (status, answer) =
        tokio::task::spawn_blocking(move || call(addr, &token, "put", &body)).await.unwrap();
    assert_eq!(status, 200, "{answer}");
    let request = answer["request"].to_string();
    assert!(request.contains("attribute_not_exists"), "conditional on the version's absence: {request}");
    let scan = running.sdk.scan().table_name("ledger").send().await.unwrap();
    assert_eq!(scan.items()[0]["version"], n("1"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_whole_result_is_exported_as_rfc_4180_csv_and_as_json_lines_page_by_page() {
    let running = start(Options::default()).await;
    create_table(&running.sdk, "orders").await;
    for i in 0..5 {
        put(
            &running.sdk,
            "orders",
            &[("pk", s("C#1")), ("sk", s(&format!("O#{i}"))), ("total", n(&format!("{i}.50")))],
        )
        .await;
    }
    let note = aws_sdk_dynamodb::types::AttributeValue::S("say \"hi\", then\nleave".into());
    put(&running.sdk, "orders", &[("pk", s("C#1")), ("sk", s("O#9")), ("note", note)]).await;
    put(&running.sdk, "orders", &[("pk", s("C#2")), ("sk", s("O#0"))]).await;
    let addr = running.addr;
    let token = csrf(addr);
    let export = |body: serde_json::Value| {
        let token = token.clone();
        tokio::task::spawn_blocking(move || call(addr, &token, "export", &body.to_string()))
    };
    // A Query of two items a page, read to its end on the server.
    let query = json!({ "table": "orders", "pk": { "name": "pk", "value": { "S": "C#1" } }, "limit": 2 });
    let (status, csv) =
        export(json!({ "source": "query", "request": query, "format": "csv", "keys": ["pk", "sk"] }))
            .await
            .unwrap();
    assert_eq!(status, 200, "{csv}");
    assert_eq!((csv["name"].as_str(), csv["items"].as_u64()), (Some("orders.csv"), Some(6)));
    // RFC 4180, section 2: CRLF line ends, a header line, and a field with a comma, a double
    // quote or a line break enclosed in double quotes with its double quotes doubled. Numbers
    // are written as the endpoint returns them (4.50 is stored as 4.5).
    assert_eq!(
        csv["body"],
        "pk,sk,note,total\r\nC#1,O#0,,0.5\r\nC#1,O#1,,1.5\r\nC#1,O#2,,2.5\r\nC#1,O#3,,3.5\r\n\
         C#1,O#4,,4.5\r\nC#1,O#9,\"say \"\"hi\"\", then\nleave\",\r\n"
    );
    // One page only, in the grid's chosen columns.
    let (_, page) = export(json!({ "source": "query", "request": query, "format": "csv", "pages": 1, "columns": ["sk", "total"] }))
        .await
        .unwrap();
    assert_eq!(page["body"], "sk,total\r\nO#0,0.5\r\nO#1,1.5\r\n");
    // A Scan as DynamoDB JSON lines, DynamoDB's export format: one {"Item": …} a line.
    let (_, lines) =
        export(json!({ "source": "scan", "request": { "table": "orders", "limit": 3 }, "format": "jsonl" }))
            .await
            .unwrap();
    let body = lines["body"].as_str().unwrap();
    assert_eq!(body.lines().count(), 7);
    for line in body.lines() {
        let item: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(item["Item"]["pk"]["S"].is_string(), "{line}");
    }
    // A PartiQL SELECT follows its NextToken.
    let statement = json!({ "statement": "SELECT sk FROM \"orders\" WHERE pk = 'C#1'", "limit": 4 });
    let (_, csv) =
        export(json!({ "source": "statement", "request": statement, "format": "csv" })).await.unwrap();
    assert_eq!(csv["items"], 6, "{csv}");
    let (status, bad) =
        export(json!({ "source": "scan", "request": { "table": "orders" }, "format": "xlsx" }))
            .await
            .unwrap();
    assert_eq!(status, 400);
    assert!(bad["error"]["message"].as_str().unwrap().contains("csv or jsonl"), "{bad}");
}
