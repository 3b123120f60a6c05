import type { ChildProcess } from "node:child_process";

/** Options of {@link startMonotable}. Every one is optional. */
export interface StartOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port to listen on; `0` (the default) picks a free one. */
  port?: number;
  /** Keep tables on disk in this directory (created if absent); in memory when unset. */
  dataDir?: string;
  /**
   * A monotable design file (YAML or JSON): its table, indexes, TTL and stream are created
   * once the server is up (`monotable design apply`), and the console shows its single-table
   * views. The table's name is {@link Monotable.tableName}.
   */
  design?: string;
  /** With `design`: the stage in the table name `<app>-<stage>-<model>`. Default `dev`. */
  stage?: string;
  /** With `design`: the table's name instead of the one the design and stage give. */
  tableName?: string;
  /** The region clients should use, returned in {@link Monotable.clientConfig}. Default `us-east-1`. */
  region?: string;
  /** Further arguments of `monotable serve`, e.g. `["--auth", "verify"]`. */
  args?: string[];
  /** Environment variables for the server, added to this process's. */
  env?: Record<string, string>;
  /** The `monotable` executable; default: the one installed with this package. */
  binary?: string;
  /** How long to wait for the server to listen, in milliseconds. Default 10000. */
  timeoutMs?: number;
}

/** Static credentials any `monotable serve` in its default `--auth accept` mode accepts. */
export interface LocalCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** A running `monotable serve`. */
export interface Monotable {
  /** The endpoint URL, e.g. `http://127.0.0.1:38017`. */
  endpoint: string;
  host: string;
  port: number;
  region: string;
  credentials: LocalCredentials;
  /**
   * Ready for an AWS SDK v3 client: `new DynamoDBClient(server.clientConfig)`.
   */
  clientConfig: { endpoint: string; region: string; credentials: LocalCredentials };
  /** The table created from {@link StartOptions.design}, if one was given. */
  tableName?: string;
  /** The server process. */
  process: ChildProcess;
  /** Stops the server gracefully (SIGTERM; SIGKILL after 5 s). Calling it again is harmless. */
  stop(): Promise<void>;
}

/**
 * Starts `monotable serve` and resolves once it accepts requests (and, with `design`, once
 * the design's table exists). Rejects with the server's own error output if it cannot start.
 */
export declare function startMonotable(options?: StartOptions): Promise<Monotable>;

/** The path of the `monotable` executable this package runs. */
export declare function binaryPath(): string;
