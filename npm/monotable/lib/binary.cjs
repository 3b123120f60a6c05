"use strict";
// Finds the `monotable` executable: MONOTABLE_BINARY if set, else the one in the platform
// package (@monotable/<os>-<cpu>[-<libc>]) that npm installed beside this package as an
// optional dependency.
const fs = require("node:fs");
const path = require("node:path");

/**
 * The platform packages that may hold this machine's executable. On Linux both the glibc and
 * the musl package are candidates: npm installs only the one whose `libc` field fits, so
 * whichever is present is right, and no libc detection (which costs a diagnostic report) is
 * needed on every start.
 */
function platformPackages(platform = process.platform, arch = process.arch) {
  if (platform === "linux") return [`@monotable/linux-${arch}-gnu`, `@monotable/linux-${arch}-musl`];
  return [`@monotable/${platform}-${arch}`];
}

function binaryPath() {
  const fromEnv = process.env.MONOTABLE_BINARY;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`MONOTABLE_BINARY is set to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  const exe = process.platform === "win32" ? "monotable.exe" : "monotable";
  const packages = platformPackages();
  for (const pkg of packages) {
    let manifest;
    try {
      manifest = require.resolve(`${pkg}/package.json`);
    } catch {
      continue;
    }
    return path.join(path.dirname(manifest), "bin", exe);
  }
  throw new Error(
    `monotable has no prebuilt binary for this machine (${process.platform} ${process.arch}): none of ` +
      `${packages.join(", ")} is installed. If npm skipped optional dependencies (--omit=optional, ` +
      `--no-optional), install again without that flag; otherwise build it with \`cargo install ` +
      `monotable-cli\` and set MONOTABLE_BINARY to its path.`
  );
}

module.exports = { binaryPath, platformPackages };
