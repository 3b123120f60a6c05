//! The end-to-end test of `monotable mcp` with the official MCP Python SDK
//! (`tests/python/e2e.py`, which says what it covers), run on the built `monotable` binary.
//!
//! The binary is `$MONOTABLE_BIN`, else `target/debug/monotable` (which `cargo test
//! --workspace` builds before any test runs, so it is the tree's own), else
//! `target/dist/monotable` (what `.ci/packages` builds).
//! When Python, its `mcp` package or the binary is missing, the test fails if `CI` is set
//! (`.ci/run` installs `mcp` and builds the binary): a cross-language step that cannot run
//! fails CI. Elsewhere it prints a loud notice and passes.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

/// The version of the MCP Python SDK `.ci/run` installs.
const MCP_VERSION: &str = "2.3.0";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn binary() -> Option<PathBuf> {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root().join("target"));
    std::env::var_os("MONOTABLE_BIN")
        .map(PathBuf::from)
        .into_iter()
        .chain([target.join("debug/monotable"), target.join("dist/monotable")])
        .find(|p| p.is_file())
}

fn skip_or_fail(what: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "{what}, but CI=true: .ci/run must provide it (pip install mcp=={MCP_VERSION}, the dist build)"
        );
    }
    eprintln!("!!! skipped the MCP Python end-to-end test: {what}. CI fails here instead.");
}

#[test]
fn the_official_python_sdk_drives_monotable_mcp_end_to_end() {
    let has_mcp = Command::new("python3")
        .args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_mcp {
        return skip_or_fail(&format!(
            "python3 with the `mcp` package is not installed (pip install mcp=={MCP_VERSION})"
        ));
    }
    let Some(exe) = binary() else {
        return skip_or_fail("no monotable binary ($MONOTABLE_BIN, target/dist or target/debug)");
    };
    let script = root().join("crates/mcp/tests/python/e2e.py");
    let started = Instant::now();
    let out = Command::new("python3").arg(&script).arg(&exe).output().expect("python3 runs");
    eprintln!("e2e.py on {} took {:.1} s", exe.display(), started.elapsed().as_secs_f64());
    assert!(
        out.status.success(),
        "e2e.py failed\n--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
