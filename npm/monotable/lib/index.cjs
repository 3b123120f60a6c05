"use strict";
// startMonotable(): a private `monotable serve` for tests and `pnpm dev`, on a free loopback
// port by default, ready when the promise resolves.
const { spawn, execFile } = require("node:child_process");
const { binaryPath } = require("./binary.cjs");

const READY = /monotable is serving DynamoDB on (http:\/\/\S+)/;
/** What is kept of the server's standard error for an error message. */
const STDERR_KEPT = 16 * 1024;

/** Servers not yet stopped: killed if this process exits without stopping them. */
const live = new Set();
let reaperInstalled = false;
function track(child) {
  if (!reaperInstalled) {
    reaperInstalled = true;
    process.on("exit", () => {
      for (const c of live) c.kill("SIGKILL");
    });
  }
  live.add(child);
  child.once("exit", () => live.delete(child));
}

function startMonotable(options = {}) {
  const {
    host = "127.0.0.1",
    port = 0,
    dataDir,
    design,
    stage,
    tableName,
    region = "us-east-1",
    args = [],
    env,
    timeoutMs = 10_000,
  } = options;
  const exe = options.binary ?? binaryPath();
  // Tables live in the region a request is signed for; --region makes the console show the
  // region the returned client configuration uses.
  const serveArgs = ["serve", "--host", host, "--port", String(port), "--region", region];
  if (dataDir !== undefined) serveArgs.push("--data-dir", dataDir);
  if (design !== undefined) serveArgs.push("--design", design);
  serveArgs.push(...args);
  const childEnv = { ...process.env, ...env };

  return new Promise((resolve, reject) => {
    const child = spawn(exe, serveArgs, { stdio: ["ignore", "pipe", "pipe"], env: childEnv });
    let stderr = "";
    let stdout = "";
    let settled = false;
    const fail = (message) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill("SIGKILL");
      const said = stderr.trim() ? `\n${stderr.trim()}` : "";
      reject(new Error(`${message} (${exe} ${serveArgs.join(" ")})${said}`));
    };
    const timer = setTimeout(() => fail(`monotable did not start within ${timeoutMs} ms`), timeoutMs);
    // Both streams are read to the end, so a chatty server never blocks on a full pipe.
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
    });
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      if (settled) return;
      stdout += chunk;
      const m = READY.exec(stdout);
      if (!m) return;
      settled = true;
      clearTimeout(timer);
      ready(m[1]).then(resolve, (e) => {
        child.kill("SIGKILL");
        reject(e);
      });
    });
    child.on("error", (e) => fail(`could not run monotable: ${e.message}`));
    child.on("exit", (code, signal) => fail(`monotable exited before it was ready (${signal ?? `exit code ${code}`})`));

    // A process that exits without calling stop() does not leave the server behind.
    track(child);

    async function ready(endpoint) {
      const url = new URL(endpoint);
      const credentials = { accessKeyId: "local", secretAccessKey: "local" };
      let table;
      if (design !== undefined) {
        table = await applyDesign(exe, design, endpoint, { stage, tableName, region, env: childEnv });
      }
      let stopping;
      return {
        endpoint,
        host: url.hostname,
        port: Number(url.port),
        region,
        credentials,
        clientConfig: { endpoint, region, credentials },
        tableName: table,
        process: child,
        stop() {
          stopping ??= new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
            child.once("exit", () => {
              clearTimeout(kill);
              done();
            });
            // SIGTERM: in-flight requests finish and a data directory is flushed.
            child.kill("SIGTERM");
          });
          return stopping;
        },
      };
    }
  });
}

/** `monotable design apply`: creates the design's table; resolves to the table's name. */
function applyDesign(exe, design, endpoint, { stage, tableName, region, env }) {
  const args = ["design", "apply", design, "--endpoint", endpoint];
  if (stage !== undefined) args.push("--stage", stage);
  if (tableName !== undefined) args.push("--table", tableName);
  const applyEnv = { ...env, AWS_REGION: region };
  return new Promise((resolve, reject) => {
    execFile(exe, args, { env: applyEnv }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`monotable ${args.join(" ")} failed: ${(stderr || stdout || error.message).trim()}`));
        return;
      }
      const m = /(?:created table|table) (\S+)/.exec(stdout);
      if (!m) {
        reject(new Error(`monotable ${args.join(" ")} did not name the table it applied: ${stdout.trim()}`));
        return;
      }
      resolve(m[1]);
    });
  });
}

module.exports = { startMonotable, binaryPath };
