//! Start-up time and idle memory of a server: spawn it, poll until the first successful
//! request, read its resident memory once it has settled, then stop it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::conn::{Conn, RequestSigner};
use crate::endpoint::Endpoint;
use crate::run::{rss_kib, runtime};
use crate::{BenchError, SigningConfig};

/// Pause between probes while the server is not answering yet.
const PROBE_INTERVAL: Duration = Duration::from_micros(250);

/// What [`measure_startup`] found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartupReport {
    pub command: Vec<String>,
    /// From spawning the process to the first `ListTables` answered with HTTP 200.
    pub startup_ms: f64,
    /// Probes sent, the successful one included.
    pub probes: u64,
    /// Resident memory after the first success plus the settle time, in KiB.
    pub rss_idle_kib: Option<u64>,
}

impl StartupReport {
    pub fn to_table(&self) -> String {
        format!(
            "start-up of `{}`: first successful request after {:.1} ms ({} probes); idle RSS {}\n",
            self.command.join(" "),
            self.startup_ms,
            self.probes,
            self.rss_idle_kib.map_or("?".into(), |k| format!("{:.1} MiB", k as f64 / 1024.0))
        )
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
    }
}

/// Kills the child when dropped, so that no path out of [`measure_startup`] leaves it running.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn probe(endpoint: &Endpoint, signer: &mut RequestSigner) -> bool {
    let Ok(mut conn) = Conn::connect(endpoint.addr).await else { return false };
    let body = serde_json::json!({});
    matches!(conn.call(signer, "DynamoDB_20120810.ListTables", &body).await, Ok(r) if r.status == 200)
}

/// Spawns `command` (program and arguments), waits at most `timeout` for a successful
/// `ListTables` at `endpoint`, waits `settle`, reads the process's resident memory and kills it.
///
/// The endpoint must be free before the call: a server already listening there would answer
/// the first probe and make the measurement meaningless, so that case is refused.
pub fn measure_startup(
    endpoint: &str,
    command: &[String],
    timeout: Duration,
    settle: Duration,
    signing: &SigningConfig,
) -> Result<StartupReport, BenchError> {
    let endpoint = Endpoint::parse(endpoint)?;
    let (program, args) = command
        .split_first()
        .ok_or_else(|| BenchError::InvalidConfig("a server command is needed after --".into()))?;
    let rt = runtime(1)?;
    rt.block_on(async {
        let mut signer = RequestSigner::new(&endpoint, signing)?;
        if probe(&endpoint, &mut signer).await {
            return Err(BenchError::InvalidConfig(format!(
                "{} already answers before the server was started; stop it first",
                endpoint.url
            )));
        }
        let started = Instant::now();
        let child = Command::new(program)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(BenchError::Process)?;
        let mut guard = ChildGuard(child);
        let mut probes = 0u64;
        loop {
            probes += 1;
            if probe(&endpoint, &mut signer).await {
                break;
            }
            if let Some(status) = guard.0.try_wait().map_err(BenchError::Process)? {
                return Err(BenchError::Process(std::io::Error::other(format!(
                    "the server exited with {status} before answering"
                ))));
            }
            if started.elapsed() > timeout {
                return Err(BenchError::Timeout(timeout, format!("{} to answer", endpoint.url)));
            }
            tokio::time::sleep(PROBE_INTERVAL).await;
        }
        let startup = started.elapsed();
        tokio::time::sleep(settle).await;
        Ok(StartupReport {
            command: command.to_vec(),
            startup_ms: startup.as_secs_f64() * 1000.0,
            probes,
            rss_idle_kib: rss_kib(guard.0.id()),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_command_is_refused() {
        let err = measure_startup(
            "http://127.0.0.1:1",
            &[],
            Duration::from_secs(1),
            Duration::ZERO,
            &SigningConfig::default(),
        );
        assert!(matches!(err, Err(BenchError::InvalidConfig(_))));
    }

    #[test]
    fn a_server_that_exits_early_is_reported_not_awaited() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let cmd = vec!["true".to_string()];
        let err = measure_startup(
            &format!("http://127.0.0.1:{port}"),
            &cmd,
            Duration::from_secs(5),
            Duration::ZERO,
            &SigningConfig::default(),
        );
        assert!(matches!(err, Err(BenchError::Process(_))), "{err:?}");
    }
}
