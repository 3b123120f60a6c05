// Vitest's globalSetup (vitest.config.ts): one monotable server for the whole run. The test
// files read its endpoint from DYNAMODB_ENDPOINT, which worker processes inherit.
import { startMonotable, type Monotable } from "monotable";

let server: Monotable | undefined;

export async function setup(): Promise<void> {
  server = await startMonotable();
  process.env.DYNAMODB_ENDPOINT = server.endpoint;
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
