#!/usr/bin/env bash
# npm run demo: the main job end to end on the embedded SQLite default, in a temporary HANDOFF_HOME:
# brief -> dispatch -> gate (blocks) -> writes -> receipt + evidence -> refused closes (an early one, a bare pass) ->
# a close on the receipt -> finalize -> gate (allows)
# -> list. Every step must exit as shown, or the demo fails.
set -euo pipefail
cd "$(dirname "$0")/.."

HANDOFF_HOME="$(mktemp -d "${TMPDIR:-/tmp}/handoff-demo.XXXXXX")"
export HANDOFF_HOME HANDOFF_WORKSPACE=demo
unset HANDOFF_DB HANDOFF_DEBUG
trap 'rm -rf "$HANDOFF_HOME"' EXIT
h() { node bin/run.js "$@"; }
# Bold step titles only on a terminal, and never with NO_COLOR (the CLI itself follows the same rule).
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold=$'\033[1m' plain=$'\033[0m'; else bold='' plain=''; fi
step() { printf '\n%s== %s%s\n' "$bold" "$*" "$plain"; }
expect_exit() { # expect_exit CODE CMD...: run CMD, fail the demo unless it exits CODE
  local want=$1; shift
  set +e; "$@"; local got=$?; set -e
  if [ "$got" -ne "$want" ]; then echo "demo: expected exit $want, got $got: $*" >&2; exit 1; fi
  echo "(exit $got, as expected)"
}
json_field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

echo "HANDOFF_HOME=$HANDOFF_HOME"
# npm run demo:pg sets HANDOFF_STORE_URL: the same steps on a PostgreSQL store (drafts stay under HANDOFF_HOME).
if [ -n "${HANDOFF_STORE_URL:-}" ]; then echo "store: PostgreSQL (HANDOFF_STORE_URL)"; else echo "store: SQLite under HANDOFF_HOME"; fi

step "1. The orchestrator writes a brief with an acceptance criterion"
h brief add payments-hardening --title "Payments hardening" --ac "AC-1=Duplicate POST returns the first response"

step "2. The orchestrator dispatches the turn: the row and the draft exist before the agent runs"
# The kind names the work; every kind but investigation closes COMPLETE only on a passing, fresh receipt of the
# claimed command (the verification policy receipt, printed in the block).
block=$(h contract dispatch --goal "Add idempotency keys to POST /payments" --brief payments-hardening --kind change)
echo "$block"
id=$(sed -n 's/^contract_id: //p' <<<"$block")

step "3. The agent tries to stop at once: the stop gate (a Claude Code Stop hook) blocks it"
hook='{"hook_event_name":"Stop","session_id":"demo-session","stop_reason":"end_turn"}'
expect_exit 2 h contract gate --draft-id "$id" <<<"$hook"

step "4. The agent builds its envelope by value, one validated write at a time"
h contract set work_phase Executing --draft-id "$id"
h contract add evidence_report.files_checked src/payments.ts --draft-id "$id"
h contract add evidence_report.patterns_checked "idempotency key lookup before insert" --draft-id "$id"

step "5. Closing too early is refused with named codes, and nothing is written"
expect_exit 1 h contract set agent_status.agent_state COMPLETE --draft-id "$id"

step "6. The agent runs its check through the tool: a receipt, and evidence for AC-1"
check='node -e "console.log(\"14 tests passed\")"'
h evidence run --draft-id "$id" --brief payments-hardening --ac AC-1 --shell -- "$check"
receipt=$(h evidence receipts --draft-id "$id" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).receipts[0].receipt_id))')
h evidence add --brief payments-hardening --ac AC-1 --type text --text "Replayed POST /payments twice; one charge, same response body."

step "7. A claim with no receipt behind it cannot close COMPLETE under the policy receipt (nothing is written)"
h contract fill --draft-id "$id" --json '{"agent_status":{"next_action":"done"},"evidence_report":{"verification":{"type":"self_review","reviewed":"read my diff","result":"pass"}}}'
h contract set agent_status.agent_state COMPLETE --draft-id "$id"
expect_exit 1 h contract finalize --draft-id "$id"

step "8. The agent writes the verification claim citing the receipt, and closes"
patch=$(node -e 'console.log(JSON.stringify({evidence_report:{verification:{type:"command",command:process.argv[1],result:"PASS",receipt:process.argv[2]}}}))' "$check" "$receipt")
h contract fill --draft-id "$id" --json "$patch"

step "9. Finalize into the handoff store (idempotent: the repeat is a no-op)"
h contract finalize --draft-id "$id"
h contract finalize --draft-id "$id" --json | json_field unchanged_reason

step "10. The stop gate now allows the stop"
expect_exit 0 h contract gate --draft-id "$id" <<<"$hook"

step "11. The orchestrator reads the result"
h contract list
h evidence list --brief payments-hardening
h evidence show "$receipt" --verify --json | json_field verified
echo
echo "Demo complete: dispatch -> writes -> receipt -> finalize -> gate -> list."
