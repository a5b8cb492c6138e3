#!/usr/bin/env bash
# Installs the real coding agents the agent tests drive, idempotently, into a cache outside the
# clone (so CI's fresh clones reuse it): Claude Code from the npm registry (its native binary
# comes in a platform package), Codex CLI, Gemini CLI, OpenCode and Qwen Code. Prints the cache folder on its last line.
set -euo pipefail

CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0
GEMINI_VERSION=0.61.0
OPENCODE_VERSION=1.18.33
QWEN_VERSION=0.24.4
CACHE="${RETAINED_AGENTS_CACHE:-$HOME/.cache/retained-outputs-agents}"
CC_DIR="$CACHE/claude-code-$CLAUDE_CODE_VERSION"
log() { echo "[setup-agents] $*" >&2; }

CLAUDE="$CC_DIR/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if [ ! -x "$CLAUDE" ] || [ ! -f "$CC_DIR/.complete" ]; then
  log "Claude Code $CLAUDE_CODE_VERSION (about 400 MB)"
  rm -rf "$CC_DIR" && mkdir -p "$CC_DIR"
  echo '{"private": true}' > "$CC_DIR/package.json"
  # Its postinstall only links the platform binary into bin/; the tests call that binary directly.
  (cd "$CC_DIR" && npm install --no-audit --no-fund --ignore-scripts "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" > install.log 2>&1) \
    || { tail -20 "$CC_DIR/install.log" >&2; log "Claude Code install failed"; exit 1; }
  "$CLAUDE" --version >/dev/null
  touch "$CC_DIR/.complete"
fi
CX_DIR="$CACHE/codex-$CODEX_VERSION"
CODEX="$CX_DIR/node_modules/@openai/codex/bin/codex.js"
if [ ! -f "$CODEX" ] || [ ! -f "$CX_DIR/.complete" ]; then
  log "Codex CLI $CODEX_VERSION (about 420 MB)"
  rm -rf "$CX_DIR" && mkdir -p "$CX_DIR"
  echo '{"private": true}' > "$CX_DIR/package.json"
  (cd "$CX_DIR" && npm install --no-audit --no-fund --ignore-scripts "@openai/codex@$CODEX_VERSION" > install.log 2>&1) \
    || { tail -20 "$CX_DIR/install.log" >&2; log "Codex install failed"; exit 1; }
  node "$CODEX" --version >/dev/null
  touch "$CX_DIR/.complete"
fi
GM_DIR="$CACHE/gemini-cli-$GEMINI_VERSION"
GEMINI="$GM_DIR/node_modules/@google/gemini-cli/bundle/gemini.js"
if [ ! -f "$GEMINI" ] || [ ! -f "$GM_DIR/.complete" ]; then
  log "Gemini CLI $GEMINI_VERSION (about 100 MB)"
  rm -rf "$GM_DIR" && mkdir -p "$GM_DIR"
  echo '{"private": true}' > "$GM_DIR/package.json"
  # Its install scripts build optional native helpers (a pty, a keychain) that the tests do not need.
  (cd "$GM_DIR" && npm install --no-audit --no-fund --ignore-scripts "@google/gemini-cli@$GEMINI_VERSION" > install.log 2>&1) \
    || { tail -20 "$GM_DIR/install.log" >&2; log "Gemini CLI install failed"; exit 1; }
  node "$GEMINI" --version >/dev/null
  touch "$GM_DIR/.complete"
fi
OC_DIR="$CACHE/opencode-$OPENCODE_VERSION"
OPENCODE="$OC_DIR/node_modules/opencode-linux-x64/bin/opencode"
if [ ! -x "$OPENCODE" ] || [ ! -f "$OC_DIR/.complete" ]; then
  log "OpenCode $OPENCODE_VERSION (about 350 MB)"
  rm -rf "$OC_DIR" && mkdir -p "$OC_DIR"
  echo '{"private": true}' > "$OC_DIR/package.json"
  # Its native binary comes in a platform package; its postinstall only links it into bin/.
  (cd "$OC_DIR" && npm install --no-audit --no-fund --ignore-scripts "opencode-ai@$OPENCODE_VERSION" > install.log 2>&1) \
    || { tail -20 "$OC_DIR/install.log" >&2; log "OpenCode install failed"; exit 1; }
  "$OPENCODE" --version >/dev/null
  touch "$OC_DIR/.complete"
fi
QW_DIR="$CACHE/qwen-code-$QWEN_VERSION"
QWEN="$QW_DIR/node_modules/@qwen-code/qwen-code/cli-entry.js"
if [ ! -f "$QWEN" ] || [ ! -f "$QW_DIR/.complete" ]; then
  log "Qwen Code $QWEN_VERSION (about 150 MB)"
  rm -rf "$QW_DIR" && mkdir -p "$QW_DIR"
  echo '{"private": true}' > "$QW_DIR/package.json"
  (cd "$QW_DIR" && npm install --no-audit --no-fund --ignore-scripts "@qwen-code/qwen-code@$QWEN_VERSION" > install.log 2>&1) \
    || { tail -20 "$QW_DIR/install.log" >&2; log "Qwen Code install failed"; exit 1; }
  touch "$QW_DIR/.complete"
fi
log "ready: claude=$CLAUDE codex=$CODEX gemini=$GEMINI opencode=$OPENCODE qwen=$QWEN"
echo "$CACHE"
