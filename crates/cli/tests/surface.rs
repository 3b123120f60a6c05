//! The command line itself, through the built binary: what `--help` lists, the one spelling of
//! the output option, and what happens when the reader of standard output goes away.

use std::io::Read;
use std::process::{Command, Output, Stdio};

fn monotable(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_monotable")).args(args).output().unwrap()
}

fn help(args: &[&str]) -> String {
    let out = monotable(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

const SEED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../design/tests/fixtures/seed.yaml");

#[test]
fn top_level_help_lists_every_subcommand_and_names_none_selectively() {
    let text = help(&["--help"]);
    for command in ["serve", "bench", "export", "import", "copy", "design", "console"] {
        assert!(text.lines().any(|l| l.trim_start().starts_with(command)), "{command} missing:\n{text}");
    }
    // The summary line must not be a partial list of the subcommands (the package
    // description names only serve, bench, import/export and design).
    let summary = text.lines().next().unwrap_or_default();
    assert!(!summary.contains("import/export"), "{summary}");
}

#[test]
fn every_output_option_is_dash_o_or_dash_dash_output_and_never_dash_dash_out() {
    for args in [
        &["export", "--help"][..],
        &["design", "new", "--help"],
        &["design", "iac", "--help"],
        &["design", "show", "--help"],
        &["design", "schema", "--help"],
    ] {
        let text = help(args);
        assert!(text.contains("-o, --output <OUTPUT>"), "{args:?}:\n{text}");
        assert!(!text.contains("--out ") && !text.contains("[aliases: --out]"), "{args:?}:\n{text}");
    }
    let dir = temp_dir();
    let file = dir.path().join("design.yaml");
    let file = file.to_str().unwrap();
    let refused = monotable(&["design", "new", "--out", file]);
    assert_eq!(refused.status.code(), Some(2), "--out is not an option any more");
    assert!(String::from_utf8_lossy(&refused.stderr).contains("unexpected argument '--out'"));
    assert!(monotable(&["design", "new", "--output", file]).status.success());
    let tf = dir.path().join("table.tf");
    let out = monotable(&["design", "iac", file, "--format", "terraform", "--output", tf.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&tf).unwrap().contains("aws_dynamodb_table"));
    let md = dir.path().join("patterns.md");
    assert!(monotable(&["design", "show", file, "--markdown", "-o", md.to_str().unwrap()]).status.success());
    assert!(std::fs::read_to_string(&md).unwrap().contains("list-records"));
    let refused = monotable(&["export", "--data-dir", ".", "--table", "T", "--out", "t.jsonl"]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn each_transfer_lists_only_the_capacity_limits_it_applies() {
    let export = help(&["export", "--help"]);
    assert!(export.contains("--max-rcu") && export.contains("--page-size"), "{export}");
    assert!(!export.contains("--max-wcu"), "export reads only:\n{export}");
    let import = help(&["import", "--help"]);
    assert!(import.contains("--max-wcu"), "{import}");
    assert!(
        !import.contains("--max-rcu") && !import.contains("--page-size"),
        "import writes only:\n{import}"
    );
    let copy = help(&["copy", "--help"]);
    for option in ["--max-rcu", "--max-wcu", "--page-size", "--rate"] {
        assert!(copy.contains(option), "{option}:\n{copy}");
    }
    let both = monotable(&["export", "--data-dir", ".", "--table", "T", "--rate", "5", "--max-rcu", "5"]);
    assert_eq!(both.status.code(), Some(2), "one rate limit at a time");
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

/// Runs `args` with standard output connected to a reader that is already gone, as in
/// `monotable … | head -0`; returns the exit status and standard error. The reader is the
/// closed end of a socket pair, closed before the command starts, so its first write fails with
/// EPIPE whatever the timing (a pipe closed after the spawn could lose the race to a fast child).
fn with_closed_stdout(args: &[&str]) -> (Option<i32>, String) {
    let (writer, reader) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(reader);
    let mut child = Command::new(env!("CARGO_BIN_EXE_monotable"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(writer)))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    (child.wait().unwrap().code(), stderr)
}

#[test]
fn a_printing_command_whose_reader_went_away_exits_quietly_with_the_sigpipe_status() {
    for args in [
        &["design", "check", SEED][..],
        &["design", "check", SEED, "--format", "json"],
        &["design", "show", SEED, "--markdown"],
        &["design", "iac", SEED, "--format", "cloudformation"],
        &["design", "new"],
    ] {
        let (code, stderr) = with_closed_stdout(args);
        assert_eq!(code, Some(141), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}: nothing on stderr, no panic");
    }
}
