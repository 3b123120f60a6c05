//! `monotable export/import/copy --endpoint` as a user runs them, against `monotable serve`
//! started as a child process: plain log lines when standard error is not a terminal, a
//! progress bar when it is (run under a pseudo-terminal with `script`), Ctrl-C and --resume.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

struct Served {
    child: Child,
    endpoint: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve() -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(["serve", "--port", "0"])
        .env_remove("MONOTABLE_PORT")
        .env_remove("MONOTABLE_DATA_DIR")
        .env_remove("MONOTABLE_CREDENTIALS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("monotable serve starts");
    let stdout = child.stdout.take().expect("piped stdout");
    let mut lines = BufReader::new(stdout).lines();
    let endpoint = (0..4)
        .filter_map(|_| lines.next().and_then(Result::ok))
        .flat_map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .find(|w| w.starts_with("http://"))
        .expect("the banner names the endpoint");
    Served { child, endpoint }
}

fn monotable(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(args)
        .current_dir(dir)
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("AWS_REGION", "us-east-1")
        .stdin(Stdio::null())
        .output()
        .expect("monotable runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes `n` items (attributes in name order, as exports write them) and a definition for
/// table `Orders`.
fn write_input(dir: &Path, n: usize) {
    let lines: String = (0..n)
        .map(|i| format!("{{\"Item\":{{\"pk\":{{\"S\":\"order-{i:05}\"}},\"tags\":{{\"SS\":[\"a\",\"b{}\"]}},\"total\":{{\"N\":\"{i}.25\"}}}}}}\n", i % 5))
        .collect();
    std::fs::write(dir.join("in.jsonl"), lines).expect("write input");
    let def = r#"{"Format": "monotable-table-definition/1", "CreateTable": {"TableName": "Orders",
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}], "BillingMode": "PAY_PER_REQUEST"}}"#;
    std::fs::write(dir.join("Orders.table.json"), def).expect("write definition");
}

/// Asserts two sorted line sets are equal, naming the first difference (not the whole set).
fn assert_same_lines(got: &[String], want: &[String]) {
    let first = got.iter().zip(want).position(|(g, w)| g != w);
    assert!(
        got == want,
        "{} lines, expected {}; first difference at {first:?}: {:?} vs {:?}",
        got.len(),
        want.len(),
        first.map(|i| &got[i]),
        first.map(|i| &want[i])
    );
}

fn sorted_lines(path: &Path) -> Vec<String> {
    let mut lines: Vec<String> =
        std::fs::read_to_string(path).expect("read export").lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

/// What a person would see on the terminal: the text after the last carriage return of each
/// line, with ANSI escape sequences removed.
fn screen(raw: &str) -> String {
    let mut plain = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ params final-byte
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if ('@'..='~').contains(&d) {
                        break;
                    }
                }
            }
            continue;
        }
        plain.push(c);
    }
    plain.lines().map(|l| l.rsplit('\r').next().unwrap_or("").to_owned()).collect::<Vec<_>>().join("\n")
}

#[test]
fn import_export_and_copy_through_the_cli_agree_and_log_plainly_off_a_terminal() {
    let served = serve();
    let dir = tempfile::tempdir().expect("temp dir");
    write_input(dir.path(), 2_000);
    let e = served.endpoint.as_str();

    let out =
        monotable(&["import", "--endpoint", e, "in.jsonl", "--definition", "Orders.table.json"], dir.path());
    assert!(out.status.success(), "import failed: {}", stderr(&out));
    assert!(stderr(&out).contains("imported 2000 items"), "{}", stderr(&out));
    assert!(stderr(&out).contains("created"), "the table was created from the definition: {}", stderr(&out));
    assert!(!stderr(&out).contains('\u{1b}') && !stderr(&out).contains('\r'), "no bar off a terminal");

    let out = monotable(
        &["export", "--endpoint", e, "--table", "Orders", "--output", "out.jsonl", "--segments", "3"],
        dir.path(),
    );
    assert!(out.status.success(), "export failed: {}", stderr(&out));
    let mut input = sorted_lines(&dir.path().join("in.jsonl"));
    input.dedup();
    assert_same_lines(&sorted_lines(&dir.path().join("out.jsonl")), &input);
    assert!(dir.path().join("Orders.table.json").exists());

    let from = format!("{e}/Orders");
    let to = format!("{e}/OrdersCopy");
    let out = monotable(&["copy", "--from", &from, "--to", &to, "--segments", "2"], dir.path());
    assert!(out.status.success(), "copy failed: {}", stderr(&out));
    let out = monotable(
        &["export", "--endpoint", e, "--table", "OrdersCopy", "--output", "copy.jsonl"],
        dir.path(),
    );
    assert!(out.status.success(), "export of the copy failed: {}", stderr(&out));
    assert_same_lines(&sorted_lines(&dir.path().join("copy.jsonl")), &input);
}

#[test]
fn the_progress_bar_draws_on_a_terminal() {
    let served = serve();
    let dir = tempfile::tempdir().expect("temp dir");
    write_input(dir.path(), 3_000);
    let e = served.endpoint.as_str();
    let out =
        monotable(&["import", "--endpoint", e, "in.jsonl", "--definition", "Orders.table.json"], dir.path());
    assert!(out.status.success(), "import failed: {}", stderr(&out));

    // `script` gives the command a pseudo-terminal and copies what it draws to our pipe. The
    // rate limit makes the export last about two seconds, long enough for several redraws.
    let command = format!(
        "{} export --endpoint {e} --table Orders --output tty.jsonl --rate 1000 --segments 2",
        env!("CARGO_BIN_EXE_monotable")
    );
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(dir.path())
        .env("AWS_ACCESS_KEY_ID", "local")
        .env("AWS_SECRET_ACCESS_KEY", "local")
        .env("TERM", "xterm")
        .env("COLUMNS", "120")
        .stdin(Stdio::null())
        .output()
        .expect("script(1) from util-linux runs");
    assert!(out.status.success(), "export under a terminal failed: {}", String::from_utf8_lossy(&out.stdout));
    let raw = String::from_utf8_lossy(&out.stdout);
    let seen = screen(&raw);
    let bars: Vec<&str> = seen.lines().filter(|l| l.contains("exported [")).collect();
    assert!(!bars.is_empty(), "no progress bar was drawn; the terminal showed:\n{seen}");
    assert!(raw.matches("exported [").count() >= 2, "the bar was drawn only once:\n{raw:?}");
    assert!(
        seen.contains("3,000/3,000 items") || seen.contains("3000/3000 items"),
        "the finished bar shows every item; the terminal showed:\n{seen}"
    );
    assert!(seen.contains("exported 3000 items"), "the summary follows the bar:\n{seen}");
}

#[test]
fn ctrl_c_leaves_a_checkpoint_that_resume_completes() {
    let served = serve();
    let dir = tempfile::tempdir().expect("temp dir");
    write_input(dir.path(), 4_000);
    let e = served.endpoint.as_str();
    let out =
        monotable(&["import", "--endpoint", e, "in.jsonl", "--definition", "Orders.table.json"], dir.path());
    assert!(out.status.success(), "import failed: {}", stderr(&out));
    let (from, to) = (format!("{e}/Orders"), format!("{e}/Target"));
    let args = ["copy", "--from", &from, "--to", &to, "--rate", "1000", "--segments", "2"];
    let child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(args)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("copy starts");
    std::thread::sleep(Duration::from_millis(1_500));
    let status = Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill(1)");
    assert!(status.success());
    let started = Instant::now();
    let out = child.wait_with_output().expect("copy exits");
    assert!(started.elapsed() < Duration::from_secs(5), "Ctrl-C stops the copy promptly");
    assert!(!out.status.success(), "an interrupted copy does not report success");
    assert!(stderr(&out).contains("--resume"), "{}", stderr(&out));

    let out = monotable(&args, dir.path());
    assert!(
        !out.status.success() && stderr(&out).contains("--resume"),
        "a rerun without --resume is refused"
    );
    let mut resume: Vec<&str> = args.to_vec();
    resume.retain(|a| *a != "--rate" && *a != "1000");
    resume.push("--resume");
    let out = monotable(&resume, dir.path());
    assert!(out.status.success(), "resume failed: {}", stderr(&out));
    assert!(stderr(&out).contains("copied 4000 items"), "{}", stderr(&out));
    assert!(stderr(&out).contains("by the interrupted run"), "{}", stderr(&out));
    let out = monotable(&["export", "--endpoint", e, "--table", "Target", "--output", "t.jsonl"], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let mut input = sorted_lines(&dir.path().join("in.jsonl"));
    input.dedup();
    assert_same_lines(&sorted_lines(&dir.path().join("t.jsonl")), &input);
}
