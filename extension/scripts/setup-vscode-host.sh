#!/usr/bin/env bash
# Installs everything the real-extension-host tests need, from npm + Debian only
# (how the tests use them: README, "VS Code extension"):
#   - Debian chromium (opens the workbench), libkrb5-dev (headers for code-server's kerberos addon)
#   - Node 24 from the npm "node" package (code-server 4.139 needs Node 24; Node 20 fails at run time),
#     installed by scripts/node-from-npm.sh into its own cache, shared with .ci/run's test runs
#   - code-server (VS Code 1.139.1 server + web workbench), native addons built against Node 24's headers
# The host is cached outside the checkout (~/.cache/vscode-host); a missing cache is rebuilt.
# Prints CODE_SERVER_NODE=… and CODE_SERVER_ENTRY=… on stdout; everything else goes to stderr.
set -euo pipefail
EXT="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(dirname "$EXT")"
CS_VERSION=4.139.1 NODE_VERSION=24.21.0
HOST_DIR="${VSCODE_HOST_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/vscode-host/cs-$CS_VERSION-node-$NODE_VERSION}"

# Under `npm run`, npm exports npm_config_* (user agent naming Node 20, local prefix = the project):
# the installs below must not inherit them, or npm installs into the project and code-server's
# postinstall sees Node 20.
while IFS= read -r var; do unset "$var"; done < <(env | grep -o '^npm_[A-Za-z0-9_]*' || true)

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || need_apt+=(libkrb5-dev)
{ command -v make >/dev/null && command -v g++ >/dev/null && command -v python3 >/dev/null; } || need_apt+=(build-essential python3)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "apt-get install ${need_apt[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >&2
fi

# bin/node + include/node headers (cached apart: a new code-server does not fetch Node again)
NODE24_PKG="$(bash "$ROOT/scripts/node-from-npm.sh" "$NODE_VERSION")"
if [ ! -f "$HOST_DIR/.complete" ]; then
  echo "installing code-server $CS_VERSION into $HOST_DIR (about 2.5 min)" >&2
  rm -rf "$HOST_DIR"; mkdir -p "$HOST_DIR/vscode-host"
  cp "$EXT/tools/vscode-host/package.json" "$HOST_DIR/vscode-host/"
  # npm must itself run on Node 24 (code-server's postinstall checks the version in npm's user agent)
  # and node-gyp must build against Node 24 headers, not the machine's Node 20 ones (npm config nodedir=/usr).
  (cd "$HOST_DIR/vscode-host" && PATH="$NODE24_PKG/bin:$PATH" npm_config_nodedir="$NODE24_PKG" \
     npm install --no-audit --no-fund --loglevel=error) >&2
  touch "$HOST_DIR/.complete"
fi
echo "CODE_SERVER_NODE=$NODE24_PKG/bin/node"
echo "CODE_SERVER_ENTRY=$HOST_DIR/vscode-host/node_modules/code-server/out/node/entry.js"
