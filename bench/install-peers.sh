#!/usr/bin/env bash
# Installs the peer DynamoDB emulators into bench/.cache (git-ignored), from the package
# registries only, and skips whatever is already there:
#   dynoxide  cargo install dynoxide-rs   -> bench/.cache/cargo/bin/dynoxide
#   dynalite  npm install dynalite        -> bench/.cache/npm/node_modules/dynalite
#   moto      pip install "moto[server]"  -> bench/.cache/venv/bin/moto_server
# Usage: bench/install-peers.sh [dynoxide] [dynalite] [moto]   (default: all three)
# A peer that cannot be installed is reported and left out; the script goes on.
set -uo pipefail
CACHE="$(cd "$(dirname "$0")" && pwd)/.cache"
mkdir -p "$CACHE"
peers=("$@")
[ ${#peers[@]} -eq 0 ] && peers=(dynoxide dynalite moto)
status=0
for peer in "${peers[@]}"; do
  case "$peer" in
    dynoxide)
      # .ci/peers keeps a dynoxide build of its own (same crate): reuse it rather than
      # compiling SQLite again.
      shared="${XDG_CACHE_HOME:-$HOME/.cache}/monotable-peers/dynoxide/bin/dynoxide"
      if [ ! -x "$CACHE/cargo/bin/dynoxide" ] && [ -x "$shared" ]; then
        mkdir -p "$CACHE/cargo/bin" && cp "$shared" "$CACHE/cargo/bin/dynoxide"
        echo "dynoxide: copied the build of .ci/peers ($shared)" >&2
      fi
      if [ ! -x "$CACHE/cargo/bin/dynoxide" ]; then
        echo "installing dynoxide (cargo install dynoxide-rs; compiles SQLite, takes minutes)" >&2
        CARGO_TARGET_DIR="$CACHE/cargo-target" cargo install --locked dynoxide-rs --root "$CACHE/cargo" \
          >"$CACHE/dynoxide-install.log" 2>&1 || { echo "dynoxide: install failed, see $CACHE/dynoxide-install.log" >&2; status=1; }
        rm -rf "$CACHE/cargo-target" # half a gigabyte of build products, not needed to run it
      fi ;;
    dynalite)
      if [ ! -f "$CACHE/npm/node_modules/dynalite/cli.js" ]; then
        echo "installing dynalite (npm)" >&2
        npm install --prefix "$CACHE/npm" dynalite >"$CACHE/npm.log" 2>&1 \
          || { echo "dynalite: install failed, see $CACHE/npm.log" >&2; status=1; }
      fi ;;
    moto)
      if [ ! -x "$CACHE/venv/bin/moto_server" ]; then
        echo "installing moto (pip, in a venv)" >&2
        { python3 -m venv "$CACHE/venv" && "$CACHE/venv/bin/pip" install -q "moto[server]"; } >"$CACHE/pip.log" 2>&1 \
          || { echo "moto: install failed, see $CACHE/pip.log" >&2; status=1; }
      fi ;;
    *) echo "unknown peer $peer (expected dynoxide, dynalite or moto)" >&2; status=2 ;;
  esac
done
exit $status
