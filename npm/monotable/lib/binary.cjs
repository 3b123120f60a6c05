"use strict";
// Finds the `monotable` executable: MONOTABLE_BINARY if set, else the one in the platform
// package (@monotable/<os>-<cpu>[-<libc>]) that npm installed beside this package as an
// optional dependency.
const fs = require("node:fs");
const path = require("node:path");

/** The platform package's name for this machine, e.g. `@monotable/linux-x64-gnu`. */
function platformPackage(platform = process.platform, arch = process.arch) {
  if (platform === "linux") return `@monotable/linux-${arch}-${isMusl() ? "musl" : "gnu"}`;
  return `@monotable/${platform}-${arch}`;
}

function isMusl() {
  // Node's diagnostic report names the glibc it runs on; on musl there is none.
  const report = process.report && typeof process.report.getReport === "function" ? process.report.getReport() : null;
  return !(report && report.header && report.header.glibcVersionRuntime);
}

function binaryPath() {
  const fromEnv = process.env.MONOTABLE_BINARY;
  if (fromEnv) {
    if (!fs.existsSync(fromEnv)) throw new Error(`MONOTABLE_BINARY is set to ${fromEnv}, which does not exist`);
    return fromEnv;
  }
  const pkg = platformPackage();
  const exe = process.platform === "win32" ? "monotable.exe" : "monotable";
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    throw new Error(
      `monotable has no prebuilt binary for this machine (${process.platform} ${process.arch}): the package ` +
        `${pkg} is not installed. If npm skipped optional dependencies (--omit=optional, --no-optional), ` +
        `install again without that flag; otherwise build it with \`cargo install monotable-cli\` ` +
        `and set MONOTABLE_BINARY to its path.`
    );
  }
  return path.join(path.dirname(manifest), "bin", exe);
}

module.exports = { binaryPath, platformPackage };
