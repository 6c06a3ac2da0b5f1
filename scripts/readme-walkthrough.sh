#!/usr/bin/env bash
# The README's curl walkthrough ("Try it with curl"), run as written there,
# twice in a row, as a newcomer pastes it twice: the block is taken from
# README.md at each run, so the README and this check cannot drift. Each run
# is the block as pasted (no set -e, in the repository's root, where the
# README says to paste it), then checks of what it left in its variables
# and printed. Between the runs the server the first one started keeps
# running; after them it is stopped.
# Needs: curl, jq, port 8080 free (the README's address).
set -uo pipefail
cd "$(dirname "$0")/.."
WORK=$(mktemp -d)
fail() { echo "readme-walkthrough: FAIL: $*" >&2; echo "--- output of the run:" >&2; tail -40 "$WORK/out" >&2; echo "--- tandem.log:" >&2; tail -20 tandem.log >&2; exit 1; }
server_pid() { ss -Htlnp 'sport = :8080' | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
cleanup() {
  local pid
  pid=$(server_pid)
  # The server is ours: port 8080 was free before the first run.
  [ -n "$pid" ] && [ -n "${STARTED:-}" ] && kill -TERM "$pid" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

awk '/^## Try it with curl/ {on = 1} on && /^```sh$/ && !done {inblock = 1; next} inblock && /^```$/ {inblock = 0; done = 1} inblock' README.md > "$WORK/block.sh"
[ -s "$WORK/block.sh" ] || fail "no sh block under README.md's 'Try it with curl'"
[ -z "$(server_pid)" ] || { echo "readme-walkthrough: FAIL: port 8080 is taken (pid $(server_pid)); the walkthrough must start its own server" >&2; exit 1; }
STARTED=1

# What a run must have done, read from its shell's variables and output.
cat > "$WORK/checks.sh" <<'CHECKS'

ok() { echo "readme-walkthrough: check: $*"; }
no() { echo "readme-walkthrough: CHECK FAILED: $*"; exit 1; }
for v in ANN ANN_T BOB BOB_T ANN_CODE BOB_CODE; do
  [ -n "${!v}" ] && [ "${!v}" != null ] || no "\$$v is '${!v}'"
done
[ "$(curl -s $API/api/users/user/$ANN/pairing -H "Authorization: Bearer $ANN_T" | jq -r '.state + " " + .partnerId')" = "connected $BOB" ] || no "Ann is not paired with Bob"
[ "$(curl -s -o /dev/null -w '%{http_code}' $API/api/users/user/$BOB -H "Authorization: Bearer $BOB_T")" = 401 ] || no "Bob's token works after his logout"
ok "ann-$N and bob-$N signed up, verified, paired; Bob logged out"
CHECKS

starts=$(grep -c '^tandem: http://' tandem.log 2>/dev/null || true)
for run in 1 2; do
  cat "$WORK/block.sh" "$WORK/checks.sh" > "$WORK/run.sh"
  bash "$WORK/run.sh" > "$WORK/out" 2>&1 < /dev/null
  status=$?
  grep -q '^readme-walkthrough: check: ' "$WORK/out" && [ $status -eq 0 ] || fail "run $run (exit $status)"
  grep -q '"state":"connected"' "$WORK/out" || fail "run $run: step 7 did not answer connected"
  grep -q '"status":"pending"' "$WORK/out" || fail "run $run: step 6 did not answer pending"
  grep -q 'administrator granted' "$WORK/out" || fail "run $run: step 9 did not make Ann an administrator"
  grep -E '^tandem: |address already in use|is not answering|no code mailed' "$WORK/out" && fail "run $run printed an error"
  echo "readme-walkthrough: run $run: ok ($(grep -o 'ann-[0-9-]*@example.com' "$WORK/out" | head -1))"
  [ $run = 1 ] && cp tandem.log "$WORK/log-after-1"
done
# One server for both runs, and its log appended to, never truncated.
[ "$(grep -c '^tandem: http://' tandem.log)" -eq $((starts + 1)) ] || fail "the two runs did not share one server"
head -c "$(wc -c < "$WORK/log-after-1")" tandem.log | cmp -s - "$WORK/log-after-1" || fail "tandem.log was truncated or rewritten"
[ "$(wc -l < tandem.log)" -gt "$(wc -l < "$WORK/log-after-1")" ] || fail "the second run wrote nothing to tandem.log"
echo "readme-walkthrough: ok: the README's block, pasted twice: one server, new addresses each run, tandem.log appended"
