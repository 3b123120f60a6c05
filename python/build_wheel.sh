#!/usr/bin/env bash
# Builds the `monotable` wheel around an executable built beforehand:
#
#   python/build_wheel.sh target/dist/monotable OUT_DIR
#
# The executable is copied to python/bin/ (not tracked), the wheel is built with pip from
# python/pyproject.toml (hatchling; hatch_build.py tags it for the executable's platform),
# and the copy is removed.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 EXECUTABLE OUT_DIR" >&2; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
exe="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' "$here/../Cargo.toml")
grep -qx "version = \"$version\"" "$here/pyproject.toml" || {
  echo "python/pyproject.toml's version differs from the workspace's ($version)" >&2; exit 1; }
cleanup() { rm -rf "$here/bin"; }
trap cleanup EXIT
mkdir -p "$here/bin"
cp "$exe" "$here/bin/monotable"
chmod 755 "$here/bin/monotable"
python3 -m pip wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$out" "$here"
ls "$out"/monotable-"$version"-*.whl
