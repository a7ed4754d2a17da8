#!/usr/bin/env bash
# The VS Code extension end to end: build and test vscode-client/ (lint, types, unit tests, .vsix),
# set up the editor harness of tests/e2e/vscode/harness/ (code-server 4.100.3 + Playwright driving
# Debian's Chromium; installed once, outside the checkout), then drive the installed extension
# against this checkout's server on a copy of tests/fixtures/polyglot.
#
#   bash scripts/vscode-e2e.sh [OUT_DIR]        # default build/vscode-e2e; last line "N passed, N failed"
#
# FOURFOLD_HARNESS   where the harness installs code-server and playwright-core (default ~/.cache/fourfold-harness)
# FOURFOLD_SERVER    the fourfold program to run (default .venv/bin/fourfold; made by scripts/setup.sh)
# FOURFOLD_UPDATE_SCREENSHOT=1  copy the panel screenshot to docs/vscode-panel.png
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KIT="$ROOT/tests/e2e/vscode/harness"
HARNESS="${FOURFOLD_HARNESS:-$HOME/.cache/fourfold-harness}"
OUT="${1:-$ROOT/build/vscode-e2e}"
mkdir -p "$OUT"
fail() { echo "vscode-e2e: $*" >&2; echo "0 passed, 1 failed"; exit 1; }
ms() { date +%s%3N; }
T0=$(ms)

mkdir -p "$(dirname "$HARNESS")"
bash "$KIT/setup.sh" "$HARNESS" >"$HARNESS.setup.log" 2>&1 \
  || { tail -20 "$HARNESS.setup.log" >&2; fail "harness setup failed, see $HARNESS.setup.log"; }
# shellcheck disable=SC1091
source "$HARNESS/env.sh"
T1=$(ms)

SERVER="${FOURFOLD_SERVER:-$ROOT/.venv/bin/fourfold}"
if [ ! -x "$SERVER" ] && [ -z "${FOURFOLD_SERVER:-}" ]; then
  bash "$ROOT/scripts/setup.sh" || fail "scripts/setup.sh failed"
fi
[ -x "$SERVER" ] || fail "server $SERVER is not executable"

cd "$ROOT/vscode-client" || fail "no vscode-client/"
# npm ci only when the lock file changed since the last install (it wipes node_modules).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >"$OUT.npm-ci.log" 2>&1 || { mkdir -p "$OUT"; fail "npm ci failed, see $OUT.npm-ci.log"; }
fi
npm run --silent lint || fail "eslint failed"
npm run --silent typecheck || fail "tsc --noEmit failed"
npm test >"$OUT.unit.log" 2>&1 || { grep -E "^not ok|Error" "$OUT.unit.log" | head -20 >&2; fail "unit tests failed, see $OUT.unit.log"; }
grep -E "^# (pass|fail)" "$OUT.unit.log" | tr '\n' ' '; echo "(unit tests)"
npm run --silent package </dev/null >"$OUT.vsce.log" 2>&1 || fail "vsce package failed, see $OUT.vsce.log"
VSIX="$ROOT/vscode-client/fourfold.vsix"
cd "$ROOT" || exit 1
T2=$(ms)

mkdir -p "$OUT"; OUT="$(cd "$OUT" && pwd)"
STATE="$(mktemp -d "${TMPDIR:-/tmp}/fourfold-vscode.XXXXXX")"
RUN="$KIT/run_code_server.sh"
cleanup() {
  bash "$RUN" stop "$STATE" >/dev/null 2>&1 || true
  if [ "${KEEP_STATE:-0}" = 1 ]; then echo "state kept in $STATE"; else rm -rf "$STATE"; fi
}
trap cleanup EXIT
WS="$STATE/polyglot"
cp -r "$ROOT/tests/fixtures/polyglot" "$WS" && chmod -R u+w "$WS"
# Three files that call a name above its definition, for the Ctrl+T landing checks.
mkdir -p "$WS/languages"
cp "$ROOT"/tests/fixtures/languages/{client.kt,config.lua,report.py} "$WS/languages/" && chmod -R u+w "$WS/languages"
mkdir -p "$WS/.vscode"
cat > "$WS/.vscode/settings.json" <<JSON
{
  "fourfold.server.command": ["$SERVER", "serve"],
  "fourfold.semantic.backend": "none",
  "fourfold.indexDir": "$STATE/index"
}
JSON
bash "$RUN" install-extension "$STATE" "$VSIX" >"$OUT/install.log" 2>&1 || fail "installing the .vsix failed, see $OUT/install.log"
URL="$(bash "$RUN" start "$STATE" "$WS")" || fail "code-server did not start"
T3=$(ms)
rc=0
node "$ROOT/tests/e2e/vscode/extension_test.mjs" "$URL" "$WS" "$OUT" 2>&1 | tee "$OUT/extension_test.log" || rc=$?
T4=$(ms)
if [ "$rc" != 0 ]; then
  bash "$RUN" logs "$STATE" >"$OUT/code-server-logs.txt" 2>&1 || true
  echo "logs: $OUT/code-server-logs.txt"
elif [ "${FOURFOLD_UPDATE_SCREENSHOT:-0}" = 1 ]; then
  cp "$OUT/1-panel-definition.png" "$ROOT/docs/vscode-panel.png" && echo "updated docs/vscode-panel.png"
fi
echo "timings: harness $(( T1 - T0 )) ms, build+unit $(( T2 - T1 )) ms, code-server $(( T3 - T2 )) ms, browser test $(( T4 - T3 )) ms"
grep -E '^[0-9]+ passed, [0-9]+ failed$' "$OUT/extension_test.log" | tail -1 || echo "0 passed, 1 failed"
exit "$rc"
