//! Tiny benchmark runs against the real monotable server, started in-process on a free
//! loopback port with signature verification on, so every request the load generator sends
//! must carry a correct SigV4 signature.

use std::net::SocketAddr;
use std::thread::JoinHandle;

use monotable_bench::{run, BenchConfig, SigningConfig, Stop, Workload};
use monotable_engine::Engine;
use monotable_server::{Auth, Credentials, Service};
use tokio::sync::oneshot;

/// A monotable server on its own thread and runtime; stopped when dropped.
struct Server {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start() -> Server {
        let signing = SigningConfig::default();
        let auth = Auth::Verify(Credentials::new().with(signing.access_key, signing.secret_key));
        let (stop, stopped) = oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let service = Service::new(Engine::new()).with_auth(auth);
                monotable_server::serve(listener, service, async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
            });
        });
        let addr = addr_rx.recv().unwrap();
        Server { addr, stop: Some(stop), thread: Some(thread) }
    }

    fn config(&self, workload: Workload, requests: u64) -> BenchConfig {
        let mut c = BenchConfig::new(&format!("http://{}", self.addr), workload);
        c.model.items = 100;
        c.concurrency = 4;
        c.stop = Stop::Requests(requests);
        c.distinct = 50;
        c
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[test]
fn a_200_request_get_bench_succeeds_with_signed_requests() {
    let server = Server::start();
    let mut config = server.config(Workload::Get, 200);
    config.server_pid = Some(std::process::id());
    let report = run(&config).unwrap();
    assert_eq!(report.error_kinds, Default::default());
    assert_eq!((report.requests, report.ok, report.errors, report.empty_results), (200, 200, 0, 0));
    assert_eq!(report.setup.as_ref().map(|s| s.items_loaded), Some(100));
    assert!(report.throughput_per_sec > 0.0);
    let l = report.latency_us;
    assert!(l.min > 0.0 && l.min <= l.p50 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.p99_9);
    assert!(report.server_memory.and_then(|m| m.rss_after_kib).is_some());
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["ok"], 200);
}

#[test]
fn every_workload_runs_without_errors_on_a_recreated_table() {
    let server = Server::start();
    for workload in Workload::ALL {
        let mut config = server.config(workload, 40);
        if workload == Workload::Transact {
            // Two transactions in flight on one item conflict, as in DynamoDB
            // (TransactionCanceledException, TransactionConflict): with four connections on
            // four partitions that happens by chance. One connection cannot conflict.
            config.concurrency = 1;
        }
        let report = run(&config).unwrap();
        assert_eq!(report.errors, 0, "{workload}: {:?}", report.error_kinds);
        assert_eq!(report.ok, 40, "{workload}");
        assert_eq!(report.empty_results, 0, "{workload}");
    }
}

#[test]
fn errors_are_counted_by_type_not_hidden() {
    let server = Server::start();
    let mut config = server.config(Workload::Get, 30);
    config.setup = false; // no table exists: every request fails
    let report = run(&config).unwrap();
    assert_eq!((report.ok, report.errors), (0, 30));
    assert_eq!(report.error_kinds.get("ResourceNotFoundException"), Some(&30), "{:?}", report.error_kinds);
    assert!(report.to_table().contains("ResourceNotFoundException"));
}

#[test]
fn a_wrong_secret_is_reported_as_a_setup_error() {
    let server = Server::start();
    let mut config = server.config(Workload::Get, 10);
    config.signing.secret_key = "not-the-secret".into();
    let err = run(&config).unwrap_err().to_string();
    assert!(err.contains("InvalidSignatureException"), "{err}");
}
