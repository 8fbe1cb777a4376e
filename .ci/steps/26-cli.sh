# pushmock send apns|fcm: answers and records printed; pushmock rejections runs the whole
# catalogue through the push port (table, markdown, json).
source .ci/lib.sh
need_debug_build
serve CLI
SENT="$("$BIN" send apns --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --alert "from the CLI" --title CI)" || fail "pushmock send apns failed"
echo "$SENT" | grep -q "^200 apns-id: " || fail "pushmock send apns: no 200 with apns-id: $SENT"
echo "$SENT" | grep -q "^recorded: accepted" || fail "pushmock send apns: the recorded outcome is missing: $SENT"
SENT="$("$BIN" send apns --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --device zz --alert x)" || fail "pushmock send apns (bad token) failed"
echo "$SENT" | grep -q "^recorded: rejected BadDeviceToken" || fail "pushmock send apns: the rejection is not explained: $SENT"
SENT="$("$BIN" send fcm --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --title CI --body "from the CLI")" || fail "pushmock send fcm failed"
echo "$SENT" | grep -q "projects/pushmock-demo/messages/" || fail "pushmock send fcm: no message name: $SENT"
echo "$SENT" | grep -q "^recorded: accepted" || fail "pushmock send fcm: the recorded outcome is missing: $SENT"
echo "send apns and fcm: answered and recorded"

# pushmock rejections runs the whole catalogue through the push port.
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION >"$STEP_WORK/rejections.txt" || { cat "$STEP_WORK/rejections.txt"; fail "pushmock rejections: an entry did not produce its answer"; }
entries="$(curl -sS http://127.0.0.1:$CLI_INSPECTION/api/v1/rejections | jq '.entries | length')"
produced="$(grep -c '^ok ' "$STEP_WORK/rejections.txt")"
[ "$produced" = "$entries" ] || fail "pushmock rejections: $produced of $entries entries produced"
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION --service fcm --format markdown | grep -q "^| a registration token whose app instance is gone | 404 | UNREGISTERED |" \
  || fail "pushmock rejections --format markdown: no UNREGISTERED row"
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION --service liveactivity --format json | jq -e 'all(.produced) and length == 19' >/dev/null \
  || fail "pushmock rejections --format json: not every Live Activity rule produced"
echo "rejections: $produced of $entries entries produced their answer (table, markdown, json)"

# An inspection API that listens beyond loopback takes the data directory's token when none is
# given; `--inspection-token none` serves without one. (Started outside the checkout, whose Certs/
# would be used instead of a data directory.)
pushd "$STEP_WORK" >/dev/null
serve WIDE --inspection-host 0.0.0.0 --data-dir "$STEP_WORK/wide-data"
popd >/dev/null
status="$(curl -sS -o /dev/null -w '%{http_code}' "$WIDE_API/credentials")"
[ "$status" = "401" ] || fail "an inspection API on 0.0.0.0 with no token given answered $status, not 401"
[ "$(stat -c %a "$STEP_WORK/wide-data/certs/inspection-token")" = "600" ] || fail "the data directory's inspection-token is not 0600"
status="$(curl -sS -o /dev/null -w '%{http_code}' -H "authorization: Bearer $(cat "$STEP_WORK/wide-data/certs/inspection-token")" "$WIDE_API/credentials")"
[ "$status" = "200" ] || fail "the data directory's inspection token was refused: $status"
grep -q "Bearer $(cat "$STEP_WORK/wide-data/certs/inspection-token") (the page asks for it once; kept in $STEP_WORK/wide-data/certs/inspection-token)" "$WIDE_LOG" || fail "the start did not print the inspection token and where it is kept"
serve OPEN --inspection-host 0.0.0.0 --data-dir "$STEP_WORK/open-data" --inspection-token none
status="$(curl -sS -o /dev/null -w '%{http_code}' "$OPEN_API/credentials")"
[ "$status" = "200" ] || fail "--inspection-token none still wanted a token: $status"
echo "inspection beyond loopback: the data directory's token by default (401 without it), none on request"
