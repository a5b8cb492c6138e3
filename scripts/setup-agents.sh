#!/usr/bin/env bash
# Installs the real coding agents the agent tests drive, idempotently, into a cache outside the
# clone (so CI's fresh clones reuse it): Claude Code (its native binary comes in a platform
# package), Codex CLI, Gemini CLI, OpenCode (a platform package too), Qwen Code, Cline (one too) and GitHub
# Copilot CLI (a platform binary that unpacks itself into $XDG_CACHE_HOME on its first run: the
# cache's own), and Verdaccio (an npm registry, for the package test), each from the npm registry, at a pinned version. Prints the cache folder on its last line.
set -euo pipefail

CACHE="${RETAINED_AGENTS_CACHE:-$HOME/.cache/retained-outputs-agents}"
log() { echo "[setup-agents] $*" >&2; }

# install <folder> <package@version> <size> <file the install leaves> <a command that checks it runs> [npm flags]
# Install scripts are skipped: they only link a platform binary into bin/ or build optional
# native helpers (a pty, a keychain) that the tests do not need; the tests call the files directly.
install() {
  local dir="$CACHE/$1" spec="$2" size="$3" file="$CACHE/$1/$4" check="$5" flags="${6:-}"
  if [ -e "$file" ] && [ -f "$dir/.complete" ]; then return; fi
  log "$spec (about $size)"
  rm -rf "$dir" && mkdir -p "$dir"
  echo '{"private": true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --ignore-scripts $flags "$spec" > install.log 2>&1) \
    || { tail -20 "$dir/install.log" >&2; log "$spec: install failed"; exit 1; }
  (cd "$dir" && eval "$check") > /dev/null || { log "$spec: installed, but it does not run"; exit 1; }
  touch "$dir/.complete"
}

install claude-code-2.1.332 @anthropic-ai/claude-code@2.1.332 '400 MB' \
  node_modules/@anthropic-ai/claude-code-linux-x64/claude \
  'node_modules/@anthropic-ai/claude-code-linux-x64/claude --version'
install codex-0.171.0 @openai/codex@0.171.0 '420 MB' \
  node_modules/@openai/codex/bin/codex.js 'node node_modules/@openai/codex/bin/codex.js --version'
install gemini-cli-0.61.0 @google/gemini-cli@0.61.0 '100 MB' \
  node_modules/@google/gemini-cli/bundle/gemini.js 'node node_modules/@google/gemini-cli/bundle/gemini.js --version'
install opencode-1.18.33 opencode-ai@1.18.33 '350 MB' \
  node_modules/opencode-linux-x64/bin/opencode 'node_modules/opencode-linux-x64/bin/opencode --version'
install qwen-code-0.24.4 @qwen-code/qwen-code@0.24.4 '150 MB' \
  node_modules/@qwen-code/qwen-code/cli-entry.js 'test -f node_modules/@qwen-code/qwen-code/cli.js'
install copilot-1.0.102 @github/copilot@1.0.102 '200 MB' \
  node_modules/@github/copilot-linux-x64/copilot \
  'XDG_CACHE_HOME="$PWD/cache" HOME="$PWD" node_modules/@github/copilot-linux-x64/copilot --version'
install cline-3.0.65 cline@3.0.65 '450 MB' \
  node_modules/@cline/cli-linux-x64/bin/cline 'HOME="$PWD" node_modules/@cline/cli-linux-x64/bin/cline --version'
# The Claude Agent SDK without its own copy of Claude Code (400 MB): its test points it at the one above.
install claude-agent-sdk-0.3.333 @anthropic-ai/claude-agent-sdk@0.3.333 '30 MB' \
  node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs 'test -f node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts' \
  --omit=optional
# Not an agent: the npm registry server the package test publishes the command line to, on loopback.
install verdaccio-6.8.0 verdaccio@6.8.0 '60 MB' \
  node_modules/verdaccio/bin/verdaccio 'node node_modules/verdaccio/bin/verdaccio --version'
log "ready in $CACHE"
echo "$CACHE"
