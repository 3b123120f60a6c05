// Packs the npm packages from binaries built beforehand (one `cargo build --profile dist`):
//
//   node npm/pack.mjs --out DIR --platform linux-x64-gnu=target/dist/monotable [--platform ...]
//
// writes DIR/monotable-<version>.tgz (the launcher and test helper) and one
// DIR/monotable-<platform>-<version>.tgz per platform, whose package is @monotable/<platform>.
// The version is the workspace's (Cargo.toml); the launcher depends, as optional
// dependencies, on exactly the platform packages packed with it. Adding a platform means
// building its binary and naming it here.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");

/** The platforms a package can be built for: npm's os, cpu and libc fields for each. */
const PLATFORMS = {
  "linux-x64-gnu": { os: "linux", cpu: "x64", libc: "glibc", text: "Linux on x86-64 with glibc" },
  "linux-arm64-gnu": { os: "linux", cpu: "arm64", libc: "glibc", text: "Linux on ARM64 with glibc" },
  "linux-x64-musl": { os: "linux", cpu: "x64", libc: "musl", text: "Linux on x86-64 with musl" },
  "darwin-x64": { os: "darwin", cpu: "x64", text: "macOS on Intel" },
  "darwin-arm64": { os: "darwin", cpu: "arm64", text: "macOS on Apple silicon" },
  "win32-x64": { os: "win32", cpu: "x64", text: "Windows on x86-64", exe: "monotable.exe" },
};

function parseArgs(argv) {
  const out = { platforms: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--out") out.dir = argv[++i];
    else if (a === "--platform") {
      const [name, binary] = (argv[++i] ?? "").split("=");
      if (!PLATFORMS[name] || !binary) die(`--platform takes NAME=BINARY with NAME one of ${Object.keys(PLATFORMS).join(", ")}`);
      out.platforms.push({ name, binary: resolve(binary) });
    } else die(`unknown argument ${a}`);
  }
  if (!out.dir || out.platforms.length === 0) die("usage: node npm/pack.mjs --out DIR --platform NAME=BINARY [--platform ...]");
  return out;
}

function die(message) {
  console.error(`npm/pack.mjs: ${message}`);
  process.exit(2);
}

function workspaceVersion() {
  const toml = readFileSync(join(root, "Cargo.toml"), "utf8");
  const m = /\[workspace\.package\][^[]*?\nversion = "([^"]+)"/.exec(toml);
  if (!m) die("no version in [workspace.package] of Cargo.toml");
  return m[1];
}

function pack(stage, outDir) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", outDir], { cwd: stage, encoding: "utf8" }).trim();
  console.log(join(outDir, name.split("\n").pop()));
}

const args = parseArgs(process.argv.slice(2));
const version = workspaceVersion();
const outDir = resolve(args.dir);
mkdirSync(outDir, { recursive: true });
const staging = mkdtempSync(join(tmpdir(), "monotable-npm-"));
const licenses = ["LICENSE-MIT", "LICENSE-APACHE"];

try {
  const optional = {};
  for (const { name, binary } of args.platforms) {
    const p = PLATFORMS[name];
    const stage = join(staging, name);
    mkdirSync(join(stage, "bin"), { recursive: true });
    const exe = p.exe ?? "monotable";
    copyFileSync(binary, join(stage, "bin", exe));
    chmodSync(join(stage, "bin", exe), 0o755);
    for (const l of licenses) copyFileSync(join(root, l), join(stage, l));
    const readme = readFileSync(join(here, "platform", "README.md"), "utf8");
    writeFileSync(join(stage, "README.md"), readme.replaceAll("PLATFORM_TEXT", p.text).replaceAll("PLATFORM", name));
    const manifest = {
      name: `@monotable/${name}`,
      version,
      description: `The monotable executable for ${p.text}.`,
      license: "MIT OR Apache-2.0",
      os: [p.os],
      cpu: [p.cpu],
      ...(p.libc ? { libc: [p.libc] } : {}),
      files: ["bin", "README.md", ...licenses],
      preferUnplugged: true,
    };
    writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    pack(stage, outDir);
    optional[manifest.name] = version;
  }

  const stage = join(staging, "monotable");
  cpSync(join(here, "monotable"), stage, { recursive: true });
  for (const l of licenses) copyFileSync(join(root, l), join(stage, l));
  const manifest = JSON.parse(readFileSync(join(stage, "package.json"), "utf8"));
  manifest.version = version;
  manifest.optionalDependencies = optional;
  writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  pack(stage, outDir);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
