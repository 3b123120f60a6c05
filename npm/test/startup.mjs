// How long from starting `npx monotable serve` to its first answered request (ListTables
// through the AWS SDK), run from a project where the npm package is installed. Prints one
// line per way of starting it; .ci/run runs it and docs/BENCHMARKS.md records the figures.
import { spawn } from "node:child_process";
import { DynamoDBClient, ListTablesCommand } from "@aws-sdk/client-dynamodb";
import { binaryPath } from "monotable";

const READY = /monotable is serving DynamoDB on (http:\/\/\S+)/;
const ROUNDS = 5;

async function firstAnswer(command, args) {
  const started = process.hrtime.bigint();
  const child = spawn(command, [...args, "serve", "--port", "0"], { stdio: ["ignore", "pipe", "ignore"] });
  try {
    const endpoint = await new Promise((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const m = READY.exec(out);
        if (m) resolve(m[1]);
      });
      child.on("exit", (code) => reject(new Error(`${command} exited with ${code} before it served`)));
    });
    const client = new DynamoDBClient({ endpoint, region: "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } });
    await client.send(new ListTablesCommand({}));
    const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
    client.destroy();
    return elapsed;
  } finally {
    child.kill("SIGTERM");
  }
}

// The SDK's first request loads and initialises its modules: done once before timing.
await firstAnswer(binaryPath(), []);
for (const [label, command, args] of [
  ["npx monotable serve", "npx", ["--no-install", "monotable"]],
  ["node_modules/.bin/monotable serve", "node_modules/.bin/monotable", []],
  ["the executable itself", binaryPath(), []],
]) {
  const times = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await firstAnswer(command, args));
  times.sort((a, b) => a - b);
  console.log(`${label}: first answered request after ${times[ROUNDS >> 1].toFixed(0)} ms (median of ${ROUNDS}; ${times.map((t) => t.toFixed(0)).join(", ")})`);
}
// Sockets the SDK keeps for reuse would hold the process open.
process.exit(0);
