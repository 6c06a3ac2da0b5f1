# The steps scripts/walkthrough.sh and scripts/kube-walk.sh share: a couple
# walked across the processes of a deployment. Sourced; the walk defines
#   url_of N     the base URL of process N (its own numbering),
#   server_logs  every process's log on stdout (the log mailer's lines),
#   fail, step   how it reports,
# and may set API_KEY (sent as X-API-Key).

# call N METHOD PATH [TOKEN] [JSON]: a request to process N.
call() {
  local auth=() body=() key=()
  [ -n "${4:-}" ] && auth=(-H "Authorization: Bearer $4")
  [ -n "${5:-}" ] && body=(-H 'Content-Type: application/json' -d "$5")
  [ -n "${API_KEY:-}" ] && key=(-H "X-API-Key: $API_KEY")
  curl -fsS -X "$2" "$(url_of "$1")$3" "${key[@]}" "${auth[@]}" "${body[@]}"
}

# code_for EMAIL: the newest code mailed to EMAIL, from every process's log
# (the log mailer's "code" field: any language).
code_for() {
  local c=""
  for _ in $(seq 1 40); do
    c=$(server_logs | jq -rR --arg to "$1" 'fromjson? | select(.msg == "mail" and .to == $to) | .code // empty' | tail -1)
    [ -n "$c" ] && { echo "$c"; return; }
    sleep 0.25
  done
  fail "no code mailed to $1"
}

# member EMAIL N M: signs up on process N, verifies on M; prints "ID TOKEN".
member() {
  local id token
  id=$(call "$2" POST /api/auth/signup/email "" "{\"email\":\"$1\",\"password\":\"walk-through password\"}" | jq -r .userId)
  token=$(call "$3" POST /api/auth/signup/email "" "{\"userId\":\"$id\",\"verificationCode\":\"$(code_for "$1")\"}" | jq -r .token)
  [ "$token" != null ] || fail "verification of $1"
  echo "$id $token"
}

# pair_by_codes A B C D E: $ANN and $BOB pair by codes, each step through
# the next process named: Ann's code, Bob's code, Bob's submit (pending),
# Ann's submit (connected), Bob's status.
pair_by_codes() {
  local ann_code bob_code
  ann_code=$(call "$1" POST "/api/users/user/$ANN/pairing" "$ANN_T" '{"action":"generate-code"}' | jq -r .code)
  bob_code=$(call "$2" POST "/api/users/user/$BOB/pairing" "$BOB_T" '{"action":"generate-code"}' | jq -r .code)
  call "$3" POST "/api/users/user/$BOB/pairing" "$BOB_T" "{\"action\":\"submit-code\",\"targetCode\":\"$ann_code\"}" |
    jq -e '.status == "pending"' >/dev/null || fail "Bob's submit"
  call "$4" POST "/api/users/user/$ANN/pairing" "$ANN_T" "{\"action\":\"submit-code\",\"targetCode\":\"$bob_code\"}" |
    jq -e '.state == "connected"' >/dev/null || fail "Ann's submit"
  call "$5" GET "/api/users/user/$BOB/pairing" "$BOB_T" |
    jq -e --arg a "$ANN" '.state == "connected" and .partnerId == $a' >/dev/null || fail "Bob's status"
}

# upload_photo N FILE: writes a 1×1 PNG to FILE, uploads it as Ann's through
# process N and prints its URL.
upload_photo() {
  base64 -d > "$2" <<< 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
  curl -fsS -X POST "$(url_of "$1")/api/users/user/$ANN/images" -H "Authorization: Bearer $ANN_T" \
    -F "file=@$2;type=image/png" | jq -r '.files[0].data.url'
}

# is_png FILE CONTENT-TYPE: the photo read back is a PNG (stored re-encoded:
# the type, not the bytes).
is_png() {
  [ "$2" = image/png ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] ||
    fail "the photo read back from the bucket is not the PNG stored ($2)"
}
