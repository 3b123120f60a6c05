//! Standard output of the commands that print a result (`design check`, `show`, `iac`, `new`,
//! `diff`, `apply`, `bench`, `export -o -`).
//!
//! Rust ignores SIGPIPE, so a write to a pipe whose reader has gone (`monotable design check
//! FILE | head -1`) fails with `BrokenPipe`; `println!` turns that into a panic. These
//! functions return it as an error instead, and [`exit_if_broken_pipe`] ends the process
//! quietly, with the status a shell reports for a Unix tool that SIGPIPE stopped.

use std::io::Write;

/// 128 + SIGPIPE (13): what `cat big | head -1` reports for `cat` under `set -o pipefail`.
pub const BROKEN_PIPE_STATUS: i32 = 141;

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

/// Writes `text` and a newline to standard output.
pub fn line(text: impl std::fmt::Display) -> std::io::Result<()> {
    print(&format!("{text}\n"))
}

/// Ends the process with [`BROKEN_PIPE_STATUS`], printing nothing, if `error` is (or was
/// caused by) a write to a closed pipe.
pub fn exit_if_broken_pipe(error: &anyhow::Error) {
    let broken = error
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
    if broken {
        std::process::exit(BROKEN_PIPE_STATUS);
    }
}
