#!/usr/bin/env bash
# run_code_server.sh -- a headless code-server on 127.0.0.1 for the end-to-end test; everything it
# writes (user data, extensions, log, pid, port) lives in STATE_DIR.
#
#   run_code_server.sh install-extension STATE_DIR FILE.vsix
#   run_code_server.sh start STATE_DIR WORKSPACE_DIR      # prints the URL once healthy
#   run_code_server.sh logs  STATE_DIR                    # code-server and extension-host logs
#   run_code_server.sh stop  STATE_DIR                    # ends the whole process group
#
# Needs CODE_SERVER_BIN (from the env.sh that setup.sh writes). The environment of `start` reaches
# the extension host and so the language server it spawns. CS_START_TIMEOUT (s, default 90).
set -euo pipefail

die() { echo "run_code_server.sh: ERROR: $*" >&2; exit 1; }
CMD="${1:-}"; STATE="${2:-}"
[ -n "$CMD" ] && [ -n "$STATE" ] || die "usage: run_code_server.sh install-extension|start|logs|stop STATE_DIR ..."
mkdir -p "$STATE"; STATE="$(cd "$STATE" && pwd)"
PIDFILE="$STATE/code-server.pid"; LOG="$STATE/code-server.log"

cs_bin() {
  [ -n "${CODE_SERVER_BIN:-}" ] || die "CODE_SERVER_BIN is not set: source the env.sh that setup.sh wrote"
  [ -x "$CODE_SERVER_BIN" ] || die "code-server not found at $CODE_SERVER_BIN: run setup.sh first"
  echo "$CODE_SERVER_BIN"
}
alive() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }
healthy() {
  local p; p="$(cat "$STATE/port" 2>/dev/null)"; [ -n "$p" ] || return 1
  curl -fs -o /dev/null --max-time 3 "http://127.0.0.1:$p/healthz" && curl -fs -o /dev/null --max-time 5 "http://127.0.0.1:$p/"
}
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# Quiet test settings: no welcome page, trust prompt, telemetry, update or extension checks; the
# terminal drawn as DOM text.
write_settings() {
  local f="$STATE/user-data/User/settings.json"
  mkdir -p "$(dirname "$f")"
  [ -f "$f" ] && return
  cat > "$f" <<'JSON'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.enableExperiments": false,
  "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "chat.commandCenter.enabled": false,
  "terminal.integrated.gpuAcceleration": "off",
  "window.restoreWindows": "none"
}
JSON
}

# --config always: otherwise code-server writes ~/.config/code-server/config.yaml with a password.
# $PORT would override --bind-addr; VSCODE_IPC_HOOK_CLI (set inside a code-server terminal) would
# make this a client of that other instance.
case "$CMD" in
  install-extension)
    VSIX="${3:-}"; [ -f "$VSIX" ] || die "no .vsix at '$VSIX'"
    BIN="$(cs_bin)"
    mkdir -p "$STATE/extensions"
    [ -f "$STATE/config.yaml" ] || printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$STATE/config.yaml"
    env -u PORT -u VSCODE_IPC_HOOK_CLI "$BIN" --config "$STATE/config.yaml" \
      --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" \
      --install-extension "$VSIX" --force </dev/null || die "installing $VSIX failed"
    ;;
  start)
    WS="${3:-}"; [ -d "$WS" ] || die "workspace folder '$WS' does not exist"
    WS="$(cd "$WS" && pwd)"
    alive && die "code-server (pid $(cat "$PIDFILE")) already runs for $STATE"
    BIN="$(cs_bin)"
    PORT="$(free_port)"; echo "$PORT" > "$STATE/port"
    write_settings
    mkdir -p "$STATE/extensions"
    printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$PORT" > "$STATE/config.yaml"
    # setsid: a process group of its own, so `stop` ends the whole tree (and the server it spawned).
    setsid env -u PORT -u VSCODE_IPC_HOOK_CLI "$BIN" --config "$STATE/config.yaml" --bind-addr "127.0.0.1:$PORT" \
      --auth none --disable-telemetry --disable-update-check --disable-workspace-trust \
      --disable-getting-started-override --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" \
      "$WS" </dev/null >"$LOG" 2>&1 &
    echo $! > "$PIDFILE"
    deadline=$(( $(date +%s) + ${CS_START_TIMEOUT:-90} ))
    until healthy; do
      alive || { tail -30 "$LOG" >&2; die "code-server exited while starting, log: $LOG"; }
      [ "$(date +%s)" -lt "$deadline" ] || { tail -30 "$LOG" >&2; die "code-server not healthy after ${CS_START_TIMEOUT:-90} s, log: $LOG"; }
      sleep 0.5
    done
    echo "http://127.0.0.1:$PORT/?folder=$WS"
    ;;
  logs)
    echo "== $LOG"; cat "$LOG" 2>/dev/null || true
    find "$STATE/user-data/logs" -type f -name '*.log' 2>/dev/null | sort | while read -r f; do echo "== $f"; tail -50 "$f"; done
    ;;
  stop)
    if [ -f "$PIDFILE" ]; then
      PID="$(cat "$PIDFILE")"
      if kill -0 "$PID" 2>/dev/null; then
        kill -TERM -- "-$PID" 2>/dev/null || kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 1 20); do kill -0 "$PID" 2>/dev/null || break; sleep 0.25; done
        kill -0 "$PID" 2>/dev/null && kill -KILL -- "-$PID" 2>/dev/null || true
      fi
      rm -f "$PIDFILE"
    fi
    ;;
  *) die "unknown command $CMD" ;;
esac
