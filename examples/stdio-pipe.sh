#!/usr/bin/env bash
# Driving `tsclaw stdio` from the shell: requests go in as JSON lines, answers come out as JSON
# lines matched by id. A coprocess keeps one tsclaw running, so each call can wait for its answer.
#
# Usage: bash examples/stdio-pipe.sh
#   TSCLAW overrides the command. Default: tsclaw when it is on PATH (npm install -g, or npx in a
#   project that depends on tsclaw), else this checkout's CLI (dist/cli.js after npm run build,
#   else the TypeScript source through tsx).
#   CLAW_DB picks the database (default: :memory:).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${TSCLAW:-}" ]; then
  if command -v tsclaw >/dev/null; then TSCLAW=tsclaw
  elif [ -f "$repo/dist/cli.js" ]; then TSCLAW="node $repo/dist/cli.js"
  else TSCLAW="$repo/node_modules/.bin/tsx $repo/adapters/cli/index.ts"
  fi
fi

coproc CLAW { $TSCLAW stdio --db "${CLAW_DB:-:memory:}"; }

# call <id> <request>: sends one request and prints its response line (event lines are shown too).
call() {
  printf '%s\n' "$2" >&"${CLAW[1]}"
  local line
  while IFS= read -r line <&"${CLAW[0]}"; do
    case "$line" in
      *"\"id\":\"$1\""*) printf '%s\n' "$line"; return 0 ;;
      *) printf 'event: %s\n' "$line" ;;
    esac
  done
  return 1
}

call out '{"op":"out","args":{"bus":"pipe","payload":{"from":"shell"}},"id":"out"}'
call bash '{"op":"bash","args":{"script":"seq 3","stdoutLineEvent":{"template":{"n":"{payload}"},"bus":"pipe"}},"id":"bash"}'
call read '{"op":"read","args":{"bus":"pipe","after":0},"id":"read"}'
call bad '{"op":"read","args":{"limit":0},"id":"bad"}'

# End of input: tsclaw finishes what is in flight and exits 0.
eval "exec ${CLAW[1]}>&-"
wait "$CLAW_PID"

# A one-shot pipeline works too: one answer line per request line, in order of completion.
printf '%s\n' '{"op":"server_identity","id":1}' | $TSCLAW stdio --db :memory: | cut -c1-60
