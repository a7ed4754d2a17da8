#!/usr/bin/env bash
# setup.sh DIR [--no-apt] -- install what the VS Code end-to-end test drives, into DIR (outside the
# checkout; reused across runs): code-server (VS Code in the browser), playwright-core (drives
# Debian's /usr/bin/chromium, never downloads a browser), and DIR/env.sh to source.
#
# Idempotent: a second run only checks (a few seconds). Nothing comes from GitHub or nodejs.org:
# native modules are compiled against the Node headers in /usr/include/node and ripgrep comes from
# Debian, so only the apt and npm registries are needed.
#
# Versions: CODE_SERVER_VERSION=4.100.3 (VS Code 1.100.3, the last code-server whose engines.node
# is 20; 4.103+ need Node 22 or 24), PLAYWRIGHT_CORE_VERSION=1.65.1.
set -euo pipefail

CODE_SERVER_VERSION="${CODE_SERVER_VERSION:-4.100.3}"
PLAYWRIGHT_CORE_VERSION="${PLAYWRIGHT_CORE_VERSION:-1.65.1}"
# libkrb5-dev: kerberos (a VS Code native module) compiles against it; libsecret, libx11, libxkbfile
# likewise; chromium is the browser Playwright drives.
APT_PACKAGES=(build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium curl)

die() { echo "setup.sh: ERROR: $*" >&2; exit 1; }
log() { echo "setup.sh: $*"; }

DIR="" ; USE_APT=1
for a in "$@"; do
  case "$a" in
    --no-apt) USE_APT=0 ;;
    -*) die "unknown option $a (usage: setup.sh DIR [--no-apt])" ;;
    *) [ -z "$DIR" ] || die "only one DIR may be given"; DIR="$a" ;;
  esac
done
[ -n "$DIR" ] || die "usage: setup.sh DIR [--no-apt]"
mkdir -p "$DIR"
DIR="$(cd "$DIR" && pwd)"
T_ALL=$(date +%s)

export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
export npm_config_yes=true              # node-pty's install script runs `npx node-gyp ...`
export npm_config_ignore_scripts=false  # the rebuild steps need install scripts
export JOBS="${JOBS:-max}"              # node-gyp: use every core

# 1. Debian packages ----------------------------------------------------------------------------
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  [ "$USE_APT" = 1 ] || die "missing Debian packages: ${missing[*]}
  install them first:  apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
  log "installing Debian packages: ${missing[*]}"
  $sudo_cmd apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install ${missing[*]} failed"
fi

# 2. Node and its headers (node-gyp must not download them) -------------------------------------
command -v node >/dev/null || die "node not found on PATH (Node 20 is needed for code-server $CODE_SERVER_VERSION)"
command -v npm >/dev/null || die "npm not found on PATH"
NODE_VER="$(node -p 'process.versions.node')"
NODE_MAJOR="${NODE_VER%%.*}"
stamp_engines="$DIR/.engines-$CODE_SERVER_VERSION"
if [ ! -s "$stamp_engines" ]; then
  npm view "code-server@$CODE_SERVER_VERSION" engines.node > "$stamp_engines.tmp" 2>/dev/null && [ -s "$stamp_engines.tmp" ] \
    || die "cannot read engines.node of code-server@$CODE_SERVER_VERSION from the npm registry"
  mv "$stamp_engines.tmp" "$stamp_engines"
fi
WANT_MAJOR="$(tr -dc '0-9' < "$stamp_engines" | cut -c1-2)"
[ "$WANT_MAJOR" = "$NODE_MAJOR" ] || die "code-server@$CODE_SERVER_VERSION needs Node $WANT_MAJOR, this machine has Node $NODE_VER"
hdr_ok() { [ -f "$1/include/node/node_version.h" ] && \
  [ "$(sed -n 's/^#define NODE_MAJOR_VERSION \([0-9]*\).*/\1/p' "$1/include/node/node_version.h")" = "$NODE_MAJOR" ]; }
if [ -n "${npm_config_nodedir:-}" ] && hdr_ok "$npm_config_nodedir"; then
  :
elif hdr_ok /usr; then
  export npm_config_nodedir=/usr
elif hdr_ok "$(dirname "$(dirname "$(command -v node)")")"; then
  npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"; export npm_config_nodedir
elif [ ! -f "$HOME/.cache/node-gyp/$NODE_VER/include/node/node.h" ]; then
  die "no Node $NODE_MAJOR headers (looked in \$npm_config_nodedir, /usr/include/node, next to node, ~/.cache/node-gyp);
  node-gyp would download them from nodejs.org. Install a nodejs package that ships /usr/include/node (NodeSource's does)."
fi

# 3. code-server --------------------------------------------------------------------------------
CS="$DIR/code-server"
VSC="$CS/node_modules/code-server/lib/vscode"
stamp_cs="$CS/.harness-ok-$CODE_SERVER_VERSION"
check_code_server() {
  local f
  for f in node-pty/build/Release/pty.node @vscode/spdlog/build/Release/spdlog.node \
           kerberos/build/Release/kerberos.node native-watchdog/build/Release/watchdog.node; do
    [ -f "$VSC/node_modules/$f" ] || { echo "missing native module $f" >&2; return 1; }
  done
  ls "$CS/node_modules/argon2/lib/binding/"*/argon2.node >/dev/null 2>&1 || { echo "missing argon2.node" >&2; return 1; }
  "$VSC/node_modules/@vscode/ripgrep/bin/rg" --version >/dev/null || { echo "ripgrep link broken" >&2; return 1; }
  [ -L "$VSC/node_modules.asar" ] || { echo "node_modules.asar link missing" >&2; return 1; }
  # --config: without it code-server writes ~/.config/code-server/config.yaml with a password
  [ -f "$CS/harness-config.yaml" ] || printf 'bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n' > "$CS/harness-config.yaml"
  "$CS/node_modules/.bin/code-server" --config "$CS/harness-config.yaml" --version 2>/dev/null | grep -q "^$CODE_SERVER_VERSION " \
    || { echo "code-server --version does not report $CODE_SERVER_VERSION" >&2; return 1; }
}
if [ -f "$stamp_cs" ] && check_code_server; then
  log "code-server $CODE_SERVER_VERSION already in $CS"
else
  rm -f "$CS"/.harness-ok-*
  mkdir -p "$CS"
  [ -f "$CS/package.json" ] || echo '{"name":"fourfold-harness-code-server","private":true}' > "$CS/package.json"
  # The package without its postinstall: that runs `npm install` in lib/vscode, where
  # @vscode/ripgrep's own postinstall downloads rg from api.github.com.
  log "npm install code-server@$CODE_SERVER_VERSION (~1.5 min on 2 cores, most of it compiling)"
  (cd "$CS" && npm install --ignore-scripts "code-server@$CODE_SERVER_VERSION" >"$CS/npm-install.log" 2>&1) \
    || die "npm install code-server@$CODE_SERVER_VERSION failed, see $CS/npm-install.log"
  (cd "$CS" && npm rebuild argon2 >"$CS/npm-rebuild-argon2.log" 2>&1) \
    || die "building argon2 failed, see $CS/npm-rebuild-argon2.log"
  # What code-server's postinstall.sh does, with ripgrep from Debian.
  (cd "$VSC" && npm install --omit=dev --ignore-scripts >"$CS/npm-install-vscode.log" 2>&1) \
    || die "npm install in lib/vscode failed, see $CS/npm-install-vscode.log"
  mkdir -p "$VSC/node_modules/@vscode/ripgrep/bin"
  ln -sfn "$(command -v rg)" "$VSC/node_modules/@vscode/ripgrep/bin/rg"   # its postinstall then exits early
  (cd "$VSC" && npm rebuild >"$CS/npm-rebuild-vscode.log" 2>&1) || {
    grep -E "gyp ERR|fatal error|error:|npx canceled" "$CS/npm-rebuild-vscode.log" | head -20 >&2
    die "compiling VS Code's native modules failed, see $CS/npm-rebuild-vscode.log"
  }
  ln -sfn node_modules "$VSC/node_modules.asar"
  (cd "$VSC/bin/remote-cli" && ln -sfn code-linux.sh code-server)
  (cd "$VSC/bin/helpers" && ln -sfn browser-linux.sh browser.sh)
  (cd "$VSC/extensions" && npm install --omit=dev >"$CS/npm-install-extensions.log" 2>&1) \
    || die "npm install in lib/vscode/extensions failed, see $CS/npm-install-extensions.log"
  check_code_server || die "code-server installed but the check failed (see above)"
  date -u +%FT%TZ > "$stamp_cs"
fi

# 4. playwright-core (the .vsix is packaged by vsce from vscode-client's own devDependencies) ----
TOOLS="$DIR/tools"
stamp_tools="$TOOLS/.fourfold-ok-pw$PLAYWRIGHT_CORE_VERSION"
if [ -f "$stamp_tools" ] && [ -d "$TOOLS/node_modules/playwright-core" ]; then
  log "playwright-core $PLAYWRIGHT_CORE_VERSION already in $TOOLS"
else
  mkdir -p "$TOOLS"
  [ -f "$TOOLS/package.json" ] || echo '{"name":"fourfold-harness-tools","private":true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install "playwright-core@$PLAYWRIGHT_CORE_VERSION" >"$TOOLS/npm-install.log" 2>&1) \
    || die "npm install playwright-core failed, see $TOOLS/npm-install.log"
  date -u +%FT%TZ > "$stamp_tools"
fi
/usr/bin/chromium --version >/dev/null 2>&1 || die "/usr/bin/chromium does not run"

# 5. env.sh -------------------------------------------------------------------------------------
cat > "$DIR/env.sh" <<ENV
# written by tests/e2e/vscode/harness/setup.sh -- source me
export CS_HOME="$DIR"
export CODE_SERVER_BIN="$CS/node_modules/.bin/code-server"
export HARNESS_TOOLS="$TOOLS"
export CHROMIUM="\${CHROMIUM:-/usr/bin/chromium}"
ENV
log "ready in $(( $(date +%s) - T_ALL )) s: $DIR"
