#!/usr/bin/env bash
# The README's "A payment, step by step", run against the gateway that
# `npm run dev` serves on http://127.0.0.1:${PORT:-8787}. Fails (non-zero,
# naming the step and what it got) on any unexpected answer.
#
#   PORT=8799 npm run dev            # one terminal
#   PORT=8799 scripts/walkthrough.sh # another; or `npm run walkthrough`, which starts and stops its own
#
# Between the README markers below, every line but the `step` and `check...`
# lines is the README's code block, character for character
# (test/docs/walkthrough-doc.test.ts holds them equal): edit it here, then copy
# the block into README.md. The `# ->` comments are answers of a real run.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in curl jq; do
  command -v "$tool" >/dev/null || { echo "walkthrough: needs $tool (apt-get install $tool, brew install $tool)" >&2; exit 2; }
done

WORK=$(mktemp -d)
STEP="setup"
STEPS=0
trap 'rm -rf "$WORK"' EXIT
# A command that fails outright (curl cannot connect, npm fails): say where.
# Only the main shell reports, not the subshell of a $(...) it failed in.
set -E
trap 'on_error $? "$BASH_COMMAND"' ERR
on_error() {
  [[ $BASH_SUBSHELL -eq 0 ]] || return 0
  echo >&2
  local last
  last=$(last_answer || true)
  echo "walkthrough: FAILED at step \"$STEP\": \`$2\` exited $1${last:+; $last}" >&2
}

# The README's own curl commands, unchanged; this keeps each answer's headers
# and body (and the command, to ask again) for the checks.
curl() {
  printf '%q ' "$@" >"$WORK/command"
  : >"$WORK/headers"
  : >"$WORK/body"
  command curl --show-error --dump-header "$WORK/headers" "$@" | tee "$WORK/body"
}

step() {
  STEP=$1
  STEPS=$((STEPS + 1))
  printf '\n== %s\n' "$STEP"
}

fail() {
  echo >&2
  echo "walkthrough: FAILED at step \"$STEP\": $*" >&2
  exit 1
}

status() { sed -n 's/^HTTP\/[0-9.]* \([0-9]*\).*/\1/p' "$WORK/headers" 2>/dev/null | tail -n 1; }
header() { { grep -i "^$1:" "$WORK/headers" || true; } | tail -n 1 | cut -d: -f2- | tr -d '\r' | sed 's/^ *//'; }
# The answer's JSON body (a `curl -i` prints the headers first).
body() {
  if [[ $(head -c 5 "$WORK/body" 2>/dev/null) == HTTP/ ]]; then sed '1,/^\r\{0,1\}$/d' "$WORK/body"; else cat "$WORK/body" 2>/dev/null || true; fi
}
# What the last call got, for a failure message.
last_answer() { if [[ -s $WORK/headers ]]; then echo "the last answer was HTTP $(status): $(body | head -c 2000)"; fi; }

# check STATUS [JQ_CONDITION]: the last answer had this HTTP status and its body meets the condition.
check() {
  local want=$1 condition=${2:-true} got
  got=$(status)
  if [[ $got != "$want" ]] || ! body | jq -e "$condition" >/dev/null 2>&1; then
    fail "expected HTTP $want with $condition; got HTTP ${got:-(none)}: $(body | head -c 2000)$(hint)"
  fi
}

# check_header NAME VALUE: the last answer carried this header with this value.
check_header() {
  local got
  got=$(header "$1")
  [[ $got == "$2" ]] || fail "expected the header $1: $2; got ${got:-no such header} (HTTP $(status))"
}

# check_within SECONDS STATUS JQ_CONDITION: as check, asking again (quietly) until the
# condition holds or SECONDS pass. For what the gateway does after answering:
# the event log is written by the queue's consumer, a moment after the change.
check_within() {
  local seconds=$1 want=$2 condition=$3 waited=0
  while [[ $(status) != "$want" ]] || ! body | jq -e "$condition" >/dev/null 2>&1; do
    ((waited < seconds)) || check "$want" "$condition"
    sleep 1
    waited=$((waited + 1))
    eval "command curl --show-error --dump-header \"\$WORK/headers\" $(cat "$WORK/command")" >"$WORK/body" || true
  done
  ((waited == 0)) || echo "(complete after ${waited} s: $(body | jq -c 'if .events then [.events[] | {type, sequence}] else [.entries[]? | .op] end'))"
}

# check_gateway: something answers GET /healthz on PORT the way the gateway does.
check_gateway() {
  command curl -sf --max-time 5 "http://127.0.0.1:$PORT/healthz" 2>/dev/null | jq -e '.ok == true' >/dev/null ||
    fail "no gateway answers http://127.0.0.1:$PORT/healthz: start it with \`PORT=$PORT npm run dev\` (or run \`npm run walkthrough\`, which starts its own)"
}

hint() {
  case $(body | jq -r '.error.code? // empty' 2>/dev/null) in
    rate_limited) echo " (users may authorize 5 and pay 10 times a minute: wait $(header Retry-After) s)" ;;
    otp_expired) echo " (the sandbox accepts 111111 only after authorize sent it, for SANDBOX_OTP_TTL_MS)" ;;
  esac
}

# >>> README: A payment, step by step
PORT=${PORT:-8787}   # where `npm run dev` serves; PORT=8799 npm run dev moves it
GW=http://127.0.0.1:$PORT/api/v1/partner
APP="Authorization: Bearer $(npm run -s token -- alice)"   # a mobile app: user alice's JWT
PARTNER="Authorization: Bearer sk_test_local_partner"     # the partner backend: its server key
JSON="Content-Type: application/json"
RUN=$(date +%s)   # a new tid suffix per run, so the walk-through runs again on the same state
check_gateway

step "1. create a receipt"
# 1. The app creates a receipt: 1 500 sum (150000 tiyin) of mobile top-up at merchant 1001.
ORDER='{"tid":"order-'$RUN'","amount":150000,"merchant_id":1001,"account":[{"key":"phone","value":"998901234567"}]}'
ID=$(curl -s $GW/receipt/create -H "$APP" -H "$JSON" -d "$ORDER" | jq -r .id); echo $ID
# -> 303470825cbe890c54361ba9
check 200 '.state == 0 and .is_verify == true and .merchant.merchant_id == 1001 and .amount == 150000'

step "1b. retry the identical create"
# Retrying the same create (say the answer was lost) is safe: the same receipt, nothing new upstream.
curl -si $GW/receipt/create -H "$APP" -H "$JSON" -d "$ORDER"
# -> HTTP/1.1 200 OK
#    Content-Length: 557
#    Content-Type: application/json
#    Idempotent-Replayed: true
#    X-Request-Id: 88f9c22b-9d39-475e-9d38-77bcb87d5d71
#
#    {"tid":"order-1795327687","id":"303470825cbe890c54361ba9","state":0,...,"is_verify":true,...}
check 200 ".id == \"$ID\" and .state == 0"
check_header Idempotent-Replayed true

step "2. authorize: send the OTP"
# 2. is_verify is true: have the OTP sent to the card owner's phone.
curl -s $GW/receipt/authorize -H "$APP" -H "$JSON" -d '{"id":"'$ID'","card":{"token":"tok_sandbox_ok"}}' | jq -c .
# -> {"id":"303470825cbe890c54361ba9","sent":true,"phone":"+998 90 *** ** 67","wait":60000}
check 200 ".id == \"$ID\" and .sent == true and .wait > 0"

step "3. pay with a wrong OTP"
# 3. A wrong OTP is refused and counted: the third wrong one ends the receipt. `message` is for the
#    developer; `user_message` is for the app's user, in the language Accept-Language asks for.
#    The Idempotency-Key names this one request (rule 11): a retry of it, with the same body, sends it again.
curl -s $GW/receipt/pay -H "$APP" -H "$JSON" -H "Accept-Language: uz" -H "Idempotency-Key: pay-1-$RUN" -d '{"id":"'$ID'","card":{"token":"tok_sandbox_ok"},"otp":"000000"}' | jq -c .error
# -> {"code":"otp_invalid","message":"The OTP is wrong.","user_message":"Tasdiqlash kodi notoʻgʻri. SMSni tekshirib, kodni qayta kiriting.","request_id":"746062fb-ade8-45ee-abf7-17b64fa3322f","attempts_left":2,"upstream_code":"OTP_INVALID"}
check 422 '.error.code == "otp_invalid" and .error.attempts_left == 2 and (.error.user_message | test("notoʻgʻri"))'
check_header Content-Language uz

step "4. pay with the OTP"
# 4. Another OTP is another request, so it takes a new key: the wrong OTP's key with another body is
#    refused (409 idempotency_key_reused), and nothing reaches the payment service.
curl -s $GW/receipt/pay -H "$APP" -H "$JSON" -H "Idempotency-Key: pay-1-$RUN" -d '{"id":"'$ID'","card":{"token":"tok_sandbox_ok"},"otp":"111111"}' | jq -c .error.code
# -> "idempotency_key_reused"
check 409 '.error.code == "idempotency_key_reused"'
# Now the OTP authorize sent (the sandbox's is 111111, for 5 minutes after the last send), under a new
# key: paid (4), with the fiscal receipt (ofd) and the card's masked number.
KEY=pay-2-$RUN
curl -s $GW/receipt/pay -H "$APP" -H "$JSON" -H "Idempotency-Key: $KEY" -d '{"id":"'$ID'","card":{"token":"tok_sandbox_ok"},"otp":"111111"}' | jq -c '{state, card_number, ofd: .ofd.type}'
# -> {"state":4,"card_number":"860049******0011","ofd":"Sale"}
check 200 '.state == 4 and .ofd.type == "Sale" and (.card_number | test("^[0-9]{6}[*]+[0-9]{4}$"))'
# The answer was lost on the way? Send the same pay with the same key: the same answer, no second debit.
curl -s $GW/receipt/pay -H "$APP" -H "$JSON" -H "Idempotency-Key: $KEY" -d '{"id":"'$ID'","card":{"token":"tok_sandbox_ok"},"otp":"111111"}' | jq -c '{state}'
# -> {"state":4}
check 200 '.state == 4'
check_header Idempotent-Replayed true

step "5. check-id and check-tid"
# 5. Read it back, by id or by the app's own tid.
curl -s $GW/receipt/check-id -H "$APP" -H "$JSON" -d '{"id":"'$ID'"}' | jq -c '{id, state}'
# -> {"id":"303470825cbe890c54361ba9","state":4}
check 200 ".id == \"$ID\" and .state == 4"
curl -s $GW/receipt/check-tid -H "$APP" -H "$JSON" -d '{"tid":"order-'$RUN'"}' | jq -c '{tid, id, state}'
# -> {"tid":"order-1795327687","id":"303470825cbe890c54361ba9","state":4}
check 200 ".id == \"$ID\" and .tid == \"order-$RUN\" and .state == 4"

step "6. cancel"
# 6. An app may cancel only an unpaid receipt; a paid one is refunded by the partner backend (state 21).
curl -s $GW/receipt/cancel -H "$APP" -H "$JSON" -d '{"id":"'$ID'"}' | jq -c .error
# -> {"code":"forbidden","message":"Only the partner backend may cancel a paid or held receipt.","user_message":"This action is not available to you. Please contact support.","request_id":"71429209-b288-4b9d-bcc7-7880a088152f"}
check 403 '.error.code == "forbidden" and .error.user_message == "This action is not available to you. Please contact support."'
curl -s $GW/receipt/cancel -H "$PARTNER" -H "$JSON" -d '{"id":"'$ID'","reason":"refund"}' | jq -c '{state, ofd: .ofd.type}'
# -> {"state":21,"ofd":"Refund"}
check 200 '.state == 21'

step "7. anonymous pay"
# 7. Anonymous pay, with a card number and expiry instead of a token, here at merchant 1003 (is_verify false):
#    anonymous pay always takes an OTP, so anonymous/authorize sends one first.
BILL=$(curl -s $GW/receipt/create -H "$APP" -H "$JSON" -d '{"tid":"bill-'$RUN'","amount":50000,"merchant_id":1003,"account":[{"key":"account","value":"12345"}]}' | jq -r .id)
check 200 '.state == 0 and .is_verify == false and .merchant.merchant_id == 1003'
curl -s $GW/receipt/anonymous/authorize -H "$APP" -H "$JSON" -d '{"id":"'$BILL'","card":{"number":"8600000000000007","expire":"3012"}}' | jq -c .
# -> {"id":"c46769dc684ae09ee1330855","sent":true,"phone":"+998 93 *** ** 07","wait":60000}
check 200 ".id == \"$BILL\" and .sent == true"
curl -s $GW/receipt/anonymous/pay -H "$APP" -H "$JSON" -d '{"id":"'$BILL'","card":{"number":"8600000000000007","expire":"3012"},"otp":"111111"}' | jq -c '{id, state, commission, ofd: .ofd.message}'
# -> {"id":"c46769dc684ae09ee1330855","state":4,"commission":500,"ofd":"accepted"}
check 200 ".id == \"$BILL\" and .state == 4 and .ofd != null and (tostring | contains(\"8600000000000007\") | not)"

step "8. hold, then hold-confirm"
# 8. Hold, then confirm (the partner backend): pay blocks the amount on the card (5), hold-confirm debits it (4).
HOLD=$(curl -s $GW/receipt/create -H "$PARTNER" -H "$JSON" -d '{"tid":"hold-'$RUN'","amount":50000,"merchant_id":1003,"account":[],"is_hold":true}' | jq -r .id)
check 200 '.state == 0'
curl -s $GW/receipt/pay -H "$PARTNER" -H "$JSON" -d '{"id":"'$HOLD'","card":{"token":"tok_sandbox_ok"}}' | jq -c '{state}'
# -> {"state":5}
check 200 '.state == 5'
curl -s $GW/receipt/hold-confirm -H "$PARTNER" -H "$JSON" -d '{"id":"'$HOLD'"}' | jq -c '{state}'
# -> {"state":4}
check 200 '.state == 4'

step "9. a card-to-card transfer"
# 9. A card-to-card transfer of 5 000 sum (is_verify, and so an OTP, only from 1 000 000 tiyin).
TRANSFER=$(curl -s $GW/a2c/create -H "$APP" -H "$JSON" -d '{"tid":"p2p-'$RUN'","amount":500000,"rate_id":1,"receiver_card":"9860000000000018","token":"tok_sandbox_ok"}' | jq -r .receipt_id)
check 200 '.state == 0 and .is_verify == false'
curl -s $GW/a2c/pay -H "$APP" -H "$JSON" -d '{"id":"'$TRANSFER'"}' | jq -c '{receipt_id, state, from: .sender.masked_pan, to: .receiver.masked_pan}'
# -> {"receipt_id":"01M80XX0SNP3S1XCJZJTRN0BF3","state":4,"from":"860049******0011","to":"986000******0018"}
check 200 ".receipt_id == \"$TRANSFER\" and .state == 4"

step "10. events/list"
# 10. What the partner backend was told about the first receipt: its events, newest first, each with
#     its delivery to WEBHOOK_URL (delivered while `npm run listen` runs, else pending and retried).
curl -s http://127.0.0.1:$PORT/api/v1/gateway/events/list -H "$PARTNER" -H "$JSON" -d '{"receipt_id":"'$ID'"}' | jq -c '.events[] | {type, sequence, delivery: .delivery.status}'
# -> {"type":"receipt.cancelled","sequence":3,"delivery":"delivered"}
#    {"type":"receipt.paid","sequence":2,"delivery":"delivered"}
#    {"type":"receipt.created","sequence":1,"delivery":"delivered"}
check_within 30 200 '[.events[] | [.type, .sequence]] == [["receipt.cancelled", 3], ["receipt.paid", 2], ["receipt.created", 1]] and all(.events[]; .data.object.id == "'$ID'" and (.delivery.status | IN("pending", "delivered", "failed")))'

step "11. the audit trail"
# 11. The first receipt's audit trail, kept a year in R2 (rule 15): every operation on it, refusals
#     included, and the partner's own calls that named it, oldest first (in R2 a second after each answer).
NOW=$(date +%s)000
curl -s http://127.0.0.1:$PORT/api/v1/gateway/audit/search -H "$PARTNER" -H "$JSON" -d '{"receipt_id":"'$ID'","from":'$((NOW - 3600000))',"to":'$((NOW + 60000))'}' | jq -c '.entries[] | {source, op, actor, outcome}'
# -> {"source":"record","op":"create","actor":"user:alice","outcome":"ok"}
#    {"source":"record","op":"authorize","actor":"user:alice","outcome":"ok"}
#    {"source":"record","op":"pay","actor":"user:alice","outcome":"otp_invalid"}
#    {"source":"record","op":"pay","actor":"user:alice","outcome":"ok"}
#    {"source":"record","op":"pay","actor":"user:alice","outcome":"ok"}
#    {"source":"record","op":"cancel","actor":"user:alice","outcome":"forbidden"}
#    {"source":"record","op":"cancel","actor":"partner","outcome":"ok"}
#    {"source":"gateway","op":"events/list","actor":"partner","outcome":"ok"}
check_within 30 200 '([.entries[] | select(.source == "record") | .op] | .[0] == "create" and index("cancel") != null) and any(.entries[]; .op == "events/list") and (tostring | contains("tok_sandbox") | not)'

step "12. today's statement"
# 12. Today's statement so far (rule 16: each night the gateway writes the day before, in Asia/Tashkent's
#     days), written now (in a second or two), and its totals per merchant and change; CSV: statements/$TODAY.csv.
TODAY=$(TZ=Asia/Tashkent date +%F)
curl -s http://127.0.0.1:$PORT/api/v1/gateway/statements/rebuild -H "$PARTNER" -H "$JSON" -d '{"date":"'$TODAY'"}' | jq -c '{date, state, lines, mismatches}'
# -> {"date":"2026-11-28","state":"building","lines":0,"mismatches":0}
check 202 '.date == "'$TODAY'" and .state == "building"'
curl -s http://127.0.0.1:$PORT/api/v1/gateway/statements/$TODAY.json -H "$PARTNER" | jq -c '.totals[] | {merchant_id, change, count, amount_sum}'
# -> {"merchant_id":null,"change":"paid","count":1,"amount_sum":"5000.00"}
#    {"merchant_id":1001,"change":"paid","count":1,"amount_sum":"1500.00"}
#    {"merchant_id":1001,"change":"refunded","count":1,"amount_sum":"1500.00"}
#    {"merchant_id":1003,"change":"held","count":1,"amount_sum":"500.00"}
#    {"merchant_id":1003,"change":"paid","count":2,"amount_sum":"1000.00"}
check_within 30 200 'any(.totals[]; .merchant_id == 1001 and .change == "refunded") and any(.totals[]; .merchant_id == 1003 and .change == "held") and .mismatches == []'

step "13. audit:verify"
# 13. Nobody changed the audit trail unseen: every chain of the local state walked, batch by batch.
npm run -s audit:verify
# -> The audit trail in the local state (npm run dev on port 8787): 2 chain(s), 20 entries.
#      w0: batches 1..6 (6 read)
#      w1: batches 1..3 (3 read)
#    ✓ every chain is whole.
# <<< README

echo
echo "walkthrough: all $STEPS steps answered as expected on http://127.0.0.1:$PORT"
