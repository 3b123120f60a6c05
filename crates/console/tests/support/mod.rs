//! Shared by the console's test suites: a console on a real socket over an embedded engine,
//! a raw HTTP helper, and headless Chromium driven over WebDriver (chromedriver).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, GlobalSecondaryIndex, KeySchemaElement, KeyType,
    Projection, ProjectionType, ScalarAttributeType,
};
use aws_sdk_dynamodb::Client;
use fantoccini::{elements::Element, Locator};
use monotable_console::{Access, Console, Options};
use monotable_engine::Engine;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A console listening on a loopback port, over an in-memory engine.
pub struct Running {
    pub engine: Engine,
    /// An SDK client on the same engine, for seeding and for checking what the console did.
    pub sdk: Client,
    pub addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Running {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Starts a console with `options` (loopback-only) on a fresh engine.
pub async fn start(options: Options) -> Running {
    let engine = Engine::new();
    let sdk = monotable_embedded::client_for(engine.clone());
    let console = Console::new(Access::Open(sdk.clone()), Options { loopback_only: true, ..options });
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(monotable_console::serve(listener, console, async move {
        let _ = stopped.await;
    }));
    Running { engine, sdk, addr, _stop: stop }
}

/// The example design used by the single-table tests (crates/example-orgs).
pub fn orgs_design() -> monotable_design::Design {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../example-orgs/design.yaml");
    monotable_design::Design::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Creates `name` with string keys `pk`/`sk` and a GSI `gsi1` on `gsi1pk`/`gsi1sk`.
pub async fn create_table(sdk: &Client, name: &str) {
    let key =
        |n: &str, t: KeyType| KeySchemaElement::builder().attribute_name(n).key_type(t).build().unwrap();
    let def = |n: &str| {
        AttributeDefinition::builder()
            .attribute_name(n)
            .attribute_type(ScalarAttributeType::S)
            .build()
            .unwrap()
    };
    sdk.create_table()
        .table_name(name)
        .billing_mode(BillingMode::PayPerRequest)
        .key_schema(key("pk", KeyType::Hash))
        .key_schema(key("sk", KeyType::Range))
        .attribute_definitions(def("pk"))
        .attribute_definitions(def("sk"))
        .attribute_definitions(def("gsi1pk"))
        .attribute_definitions(def("gsi1sk"))
        .global_secondary_indexes(
            GlobalSecondaryIndex::builder()
                .index_name("gsi1")
                .key_schema(key("gsi1pk", KeyType::Hash))
                .key_schema(key("gsi1sk", KeyType::Range))
                .projection(Projection::builder().projection_type(ProjectionType::All).build())
                .build()
                .unwrap(),
        )
        .send()
        .await
        .unwrap();
}

/// Puts an item given as `(name, value)` pairs.
pub async fn put(sdk: &Client, table: &str, attrs: &[(&str, AttributeValue)]) {
    let mut request = sdk.put_item().table_name(table);
    for (name, value) in attrs {
        request = request.item(*name, value.clone());
    }
    request.send().await.unwrap();
}

pub fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.into())
}

pub fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.into())
}

/// One raw HTTP/1.1 exchange (`Connection: close`): `(status, head, body)`.
pub fn http(addr: SocketAddr, request: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_string(), body.to_string())
}

/// The CSRF token the console embeds in its page.
pub fn csrf(addr: SocketAddr) -> String {
    let (_, _, body) =
        http(addr, &format!("GET /console/ HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"));
    let start = body.find("name=\"csrf\" content=\"").unwrap() + "name=\"csrf\" content=\"".len();
    body[start..start + 64].to_string()
}

/// POSTs `body` to the console API call `name` with `token`: `(status, JSON)`.
pub fn call(addr: SocketAddr, token: &str, name: &str, body: &str) -> (u16, serde_json::Value) {
    let request = format!(
        "POST /console/api/{name} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         X-Console-Csrf: {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let (status, _, body) = http(addr, &request);
    (status, serde_json::from_str(&body).unwrap_or(serde_json::Value::Null))
}

// ---- the browser ----

/// Tests that drive a browser run one at a time: two Chromiums on two cores only slow each
/// other down.
static BROWSER_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// chromedriver running on a free port, stopped on drop.
pub struct Driver {
    child: Child,
    pub port: u16,
    profile: PathBuf,
    _lock: std::sync::MutexGuard<'static, ()>,
}

impl Driver {
    /// A path for a scratch file, removed with the browser profile.
    pub fn scratch(&self, name: &str) -> PathBuf {
        let dir = self.profile.with_extension("files");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
        let _ = std::fs::remove_dir_all(self.profile.with_extension("files"));
    }
}

fn find_chromedriver() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHROMEDRIVER") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join("chromedriver"))
        .find(|p| p.is_file())
}

fn find_chromium() -> PathBuf {
    ["/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("chromium"))
}

/// Starts chromedriver, or returns `None` after a loud message when it is not installed.
/// Under CI (`CI=true`) a missing chromedriver fails the test instead: `.ci/run` installs it.
pub fn driver() -> Option<Driver> {
    let lock = BROWSER_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let Some(path) = find_chromedriver() else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("chromedriver is not installed, and CI=true requires the browser tests to run (.ci/run installs chromium-driver)");
        }
        eprintln!(
            "\n\n!!!!!!!!!! SKIPPED: chromedriver not found (install Debian's chromium and chromium-driver, \
             or set CHROMEDRIVER); the console's browser tests did NOT run !!!!!!!!!!\n"
        );
        return None;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(path)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    let profile =
        std::env::temp_dir().join(format!("monotable-console-chromium-{}-{port}", std::process::id()));
    Some(Driver { child, port, profile, _lock: lock })
}

/// A headless Chromium session with a fresh profile and no network beyond loopback.
pub async fn browser(driver: &Driver) -> fantoccini::Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ]
    .iter()
    .map(|a| a.to_string())
    .chain([format!("--user-data-dir={}", driver.profile.display())])
    .collect::<Vec<_>>();
    let mut capabilities = serde_json::Map::new();
    capabilities.insert("browserName".into(), "chrome".into());
    capabilities.insert(
        "goog:chromeOptions".into(),
        serde_json::json!({
            "binary": find_chromium().display().to_string(),
            "args": args,
            "prefs": {
                "download.default_directory": driver.scratch("").display().to_string(),
                "download.prompt_for_download": false,
            },
        }),
    );
    fantoccini::ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(capabilities)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a Chromium session")
}

/// Waits (up to 15 s) for an element matching `css`.
pub async fn find(browser: &fantoccini::Client, css: &str) -> Element {
    browser
        .wait()
        .at_most(Duration::from_secs(15))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element `{css}`: {e}"))
}

/// Waits (up to 15 s) until the text of `css` satisfies `ok`; returns it.
pub async fn text_where(browser: &fantoccini::Client, css: &str, ok: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    let mut last = String::new();
    while Instant::now() < deadline {
        if let Ok(el) = browser.find(Locator::Css(css)).await {
            if let Ok(text) = el.text().await {
                if ok(&text) {
                    return text;
                }
                last = text;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("`{css}` never had the expected text; last text: {last:?}");
}

/// Saves a screenshot as `docs/console/<name>.png` when MONOTABLE_CONSOLE_SCREENSHOTS is set
/// (how the README's pictures are made); takes it either way, so the path stays tested.
pub async fn screenshot(browser: &fantoccini::Client, name: &str) {
    let png = browser.screenshot().await.expect("a screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
    if std::env::var_os("MONOTABLE_CONSOLE_SCREENSHOTS").is_some() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/console");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }
}
