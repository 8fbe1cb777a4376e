# pushmock send apns|fcm|webpush: answers and records printed; pushmock rejections runs the whole
# catalogue through the push port (table, markdown, json); send given only a server's inspection
# API; --cert-host; pushmock exec.
# ci: beside
source .ci/lib.sh
need_debug_build
serve CLI
SENT="$("$BIN" send apns --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --alert "from the CLI" --title CI)" || fail "pushmock send apns failed"
grep -q "^200 apns-id: " <<<"$SENT" || fail "pushmock send apns: no 200 with apns-id: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send apns: the recorded outcome is missing: $SENT"
SENT="$("$BIN" send apns --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --device zz --alert x --allow-rejection)" || fail "pushmock send apns --allow-rejection (bad token) failed"
grep -q "^recorded: rejected BadDeviceToken" <<<"$SENT" || fail "pushmock send apns: the rejection is not explained: $SENT"
SENT="$("$BIN" send fcm --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --title CI --body "from the CLI")" || fail "pushmock send fcm failed"
grep -q "projects/pushmock-demo/messages/" <<<"$SENT" || fail "pushmock send fcm: no message name: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send fcm: the recorded outcome is missing: $SENT"
# AndroidConfigV2 (message.android_v2): each member of its union, accepted and recorded as sent.
for kind in remote-notification background-sync; do
  args=(--title V2 --body "android_v2")
  [ "$kind" = background-sync ] && args=()
  SENT="$("$BIN" send fcm --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --android-v2 "$kind" "${args[@]}")" \
    || fail "pushmock send fcm --android-v2 $kind failed: $SENT"
  grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send fcm --android-v2 $kind: $SENT"
done
curl -sS "http://127.0.0.1:$CLI_INSPECTION/api/v1/deliveries?service=fcm&limit=2" \
  | jq -e '[.deliveries[].payload.message.android_v2 | keys[0]] == ["background_sync", "remote_notification"]' >/dev/null \
  || fail "the android_v2 messages were not recorded as sent: $(curl -sS "http://127.0.0.1:$CLI_INSPECTION/api/v1/deliveries?service=fcm&limit=2" | jq -c '[.deliveries[].payload]')"
if "$BIN" send fcm --url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION --android-v2 background-sync --title x >"$STEP_WORK/v2.out" 2>&1; then
  fail "pushmock send fcm --android-v2 background-sync --title was not refused"
fi
grep -q "background-sync sends no notification" "$STEP_WORK/v2.out" || fail "--android-v2 background-sync --title: $(cat "$STEP_WORK/v2.out")"
echo "send apns and fcm (and fcm --android-v2): answered and recorded"

# pushmock send webpush: mints a subscription, encrypts to its keys, signs VAPID; or sends to a
# subscription given by id or as PushSubscription JSON, signed with a VAPID key from a PEM file.
CLIURLS=(--url https://localhost:$CLI_PUSH --inspection-url http://127.0.0.1:$CLI_INSPECTION)
SENT="$("$BIN" send webpush "${CLIURLS[@]}" --title CI --body "from the CLI")" || fail "pushmock send webpush failed: $SENT"
grep -q "^minted a mozilla subscription: https://localhost:$CLI_PUSH/wpush/v2/" <<<"$SENT" || fail "pushmock send webpush: no minted subscription: $SENT"
grep -q "^201 location: https://localhost:$CLI_PUSH/m/" <<<"$SENT" || fail "pushmock send webpush: no 201 with a Location: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send webpush: the recorded outcome is missing: $SENT"
recorded="$(curl -sS "http://127.0.0.1:$CLI_INSPECTION/api/v1/deliveries?service=webpush&limit=1" | jq -cS '.deliveries[0].payload')"
[ "$recorded" = '{"body":"from the CLI","title":"CI"}' ] || fail "pushmock send webpush: the recorded plaintext is $recorded"
SENT="$("$BIN" send webpush "${CLIURLS[@]}" --service apple --title Order --navigate https://shop.example.com/orders/1)" || fail "pushmock send webpush --navigate failed: $SENT"
grep -q 'Declarative Web Push: shown as "Order"' <<<"$SENT" || fail "pushmock send webpush --navigate: not shown as a declarative notification: $SENT"
openssl ecparam -name prime256v1 -genkey -noout -out "$STEP_WORK/vapid.pem" 2>/dev/null || fail "openssl could not make a VAPID key"
key="$(openssl ec -in "$STEP_WORK/vapid.pem" -pubout -outform DER 2>/dev/null | tail -c 65 | basenc --base64url | tr -d '=\n')"
curl -sS -X POST -H 'content-type: application/json' -d "{\"service\":\"apple\",\"applicationServerKey\":\"$key\"}" \
  "http://127.0.0.1:$CLI_INSPECTION/api/v1/web-push/subscriptions" >"$STEP_WORK/subscription.json" || fail "minting a subscription failed"
SENT="$("$BIN" send webpush "${CLIURLS[@]}" --subscription-file "$STEP_WORK/subscription.json" --vapid-key "$STEP_WORK/vapid.pem" --urgency high --topic order-1)" \
  || fail "pushmock send webpush --subscription-file --vapid-key failed: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send webpush --subscription-file: $SENT"
SENT="$("$BIN" send webpush "${CLIURLS[@]}" --subscription "$(jq -r .id "$STEP_WORK/subscription.json")" --subject mailto:admin@localhost --allow-rejection 2>&1)" \
  || fail "pushmock send webpush --allow-rejection failed: $SENT"
grep -q '^403' <<<"$SENT" && grep -q "^recorded: rejected subjectLocalhost" <<<"$SENT" || fail "pushmock send webpush to Apple from @localhost: $SENT"
grep -q "pass --vapid-key with its private half" <<<"$SENT" || fail "pushmock send webpush: no note on the subscription's own key: $SENT"
if "$BIN" send webpush "${CLIURLS[@]}" --service opera >"$STEP_WORK/wp.out" 2>&1; then fail "pushmock send webpush --service opera was not refused"; fi
grep -q "service is apple, mozilla or google" "$STEP_WORK/wp.out" || fail "--service opera: $(cat "$STEP_WORK/wp.out")"
echo "send webpush: minted, sealed, signed, answered and recorded; by id and by file; a refusal explained"

# pushmock rejections runs the whole catalogue through the push port.
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION >"$STEP_WORK/rejections.txt" || { cat "$STEP_WORK/rejections.txt"; fail "pushmock rejections: an entry did not produce its answer"; }
entries="$(curl -sS http://127.0.0.1:$CLI_INSPECTION/api/v1/rejections | jq '.entries | length')"
produced="$(grep -c '^ok ' "$STEP_WORK/rejections.txt")"
[ "$produced" = "$entries" ] || fail "pushmock rejections: $produced of $entries entries produced"
markdown="$("$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION --service fcm --format markdown)" || fail "pushmock rejections --format markdown failed"
grep -q "^| a registration token whose app instance is gone | 404 | UNREGISTERED |" <<<"$markdown" \
  || fail "pushmock rejections --format markdown: no UNREGISTERED row"
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION --service liveactivity --format json | jq -e 'all(.produced) and length == 19' >/dev/null \
  || fail "pushmock rejections --format json: not every Live Activity rule produced"
"$BIN" rejections --inspection-url http://127.0.0.1:$CLI_INSPECTION --service webpush --format json | jq -e 'all(.produced) and length == 15' >/dev/null \
  || fail "pushmock rejections --service webpush: not every Web Push answer produced"
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
# token apns with no local key, from this server's API, which wants its token: signed with its key
# given the token; without it, the 401 is explained.
mkdir -p "$STEP_WORK/wide-empty"
wide_bare() { (cd "$STEP_WORK/wide-empty" && env -u PUSHMOCK_URL -u PUSHMOCK_TOKEN -u PUSHMOCK_INSPECTION_TOKEN HOME="$STEP_WORK/wide-empty" XDG_DATA_HOME= XDG_RUNTIME_DIR="$STEP_WORK/wide-empty" "$@"); }
token="$(wide_bare "$BIN" token apns --inspection-url "http://127.0.0.1:$WIDE_INSPECTION" --inspection-token "$(cat "$STEP_WORK/wide-data/certs/inspection-token")")" \
  || fail "token apns --inspection-url --inspection-token with no local key failed"
status="$(curl -sS --http2 --cacert "$STEP_WORK/wide-data/certs/ca.pem" -o /dev/null -w '%{http_code}' -H "authorization: bearer $token" -H "apns-topic: com.example.app" \
  -d '{"aps":{"alert":"x"}}' "https://localhost:$WIDE_PUSH/3/device/$(printf 'ab%.0s' $(seq 32))")"
[ "$status" = "200" ] || fail "a token signed with the key served behind an inspection token was answered $status"
if out="$(wide_bare "$BIN" token apns --inspection-url "http://127.0.0.1:$WIDE_INSPECTION" 2>&1)"; then fail "token apns without the inspection token printed: $out"; fi
grep -qF "answered 401 (pass --inspection-token or set PUSHMOCK_TOKEN): start pushmock serve" <<<"$out" || fail "token apns without the inspection token: $out"
serve OPEN --inspection-host 0.0.0.0 --data-dir "$STEP_WORK/open-data" --inspection-token none
status="$(curl -sS -o /dev/null -w '%{http_code}' "$OPEN_API/credentials")"
[ "$status" = "200" ] || fail "--inspection-token none still wanted a token: $status"
echo "inspection beyond loopback: the data directory's token by default (401 without it), none on request"

# pushmock send to a server with a data directory of its own, given only its inspection API: the
# CA, the APNs key and the service account come from the server. A rejection exits 1
# (--allow-rejection: 0); a CA that does not match says which CA was used and what to do.
RUNTIME="$STEP_WORK/cli-runtime"
mkdir -p "$RUNTIME" "$STEP_WORK/empty-home"
chmod 700 "$RUNTIME"
pushd "$STEP_WORK" >/dev/null
XDG_RUNTIME_DIR="$RUNTIME" serve OTHER --data-dir "$STEP_WORK/other-data" --cert-host pushmock.test
popd >/dev/null
elsewhere() { (cd "$STEP_WORK" && env -u PUSHMOCK_URL HOME="$STEP_WORK/empty-home" XDG_DATA_HOME= XDG_RUNTIME_DIR="$RUNTIME" "$@"); }
SENT="$(elsewhere "$BIN" send apns --inspection-url "http://127.0.0.1:$OTHER_INSPECTION" --alert "elsewhere")" || fail "pushmock send apns with only --inspection-url failed: $SENT"
grep -q "^200 apns-id: " <<<"$SENT" || fail "pushmock send apns with only --inspection-url: $SENT"
SENT="$(elsewhere "$BIN" send fcm --inspection-url "http://127.0.0.1:$OTHER_INSPECTION" --title elsewhere)" || fail "pushmock send fcm with only --inspection-url failed: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send fcm with only --inspection-url: $SENT"
SENT="$(elsewhere "$BIN" send webpush --inspection-url "http://127.0.0.1:$OTHER_INSPECTION" --title elsewhere)" || fail "pushmock send webpush with only --inspection-url failed: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send webpush with only --inspection-url: $SENT"
[ -f "$RUNTIME/pushmock-$OTHER_INSPECTION.json" ] || fail "serve wrote no locator file in \$XDG_RUNTIME_DIR"
[ "$(stat -c %a "$RUNTIME/pushmock-$OTHER_INSPECTION.json")" = "600" ] || fail "the locator file is not 0600"
SENT="$(elsewhere "$BIN" send apns --alert "found by its locator")" || fail "pushmock send with no URL did not find the server by its locator: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send by locator: $SENT"
if elsewhere "$BIN" send apns --inspection-url "http://127.0.0.1:$OTHER_INSPECTION" --device zz --alert x >/dev/null 2>&1; then
  fail "pushmock send exited 0 on a 400"
fi
elsewhere "$BIN" send apns --inspection-url "http://127.0.0.1:$OTHER_INSPECTION" --device zz --alert x --allow-rejection >/dev/null \
  || fail "pushmock send --allow-rejection exited non-zero on a 400"
if WRONG="$(elsewhere "$BIN" send apns --inspection-url none --url "https://localhost:$OTHER_PUSH" --ca "$SRC/Certs/ca.pem" --key "$STEP_WORK/other-data/certs/AuthKey_PUSHMOCK01.p8" --alert x 2>&1)"; then
  fail "pushmock send trusted a CA that did not sign the server's certificate"
fi
grep -q "is not signed by $SRC/Certs/ca.pem. Trust the server's own CA" <<<"$WRONG" || fail "a CA mismatch is not explained: $WRONG"
if grep -q "/.build" <<<"$WRONG"; then fail "a CA mismatch printed a build path: $WRONG"; fi
echo "send with only --inspection-url (CA, key and account from the server), by locator, exit 1 on a rejection, a CA mismatch explained"

# --cert-host: the certificate names it (curl checks the name), and the inspection API answers it.
status="$(curl -sS -o /dev/null -w '%{http_code}' --resolve "pushmock.test:$OTHER_PUSH:127.0.0.1" --cacert "$STEP_WORK/other-data/certs/ca.pem" \
  -X POST "https://pushmock.test:$OTHER_PUSH/3/device/zz")" || fail "curl did not accept the certificate for pushmock.test (--cert-host)"
[ "$status" = "400" ] || fail "https://pushmock.test (--cert-host) answered $status"
status="$(curl -sS -o /dev/null -w '%{http_code}' --resolve "pushmock.test:$OTHER_INSPECTION:127.0.0.1" "http://pushmock.test:$OTHER_INSPECTION/api/v1/deliveries")"
[ "$status" = "200" ] || fail "the inspection API answered Host pushmock.test (--cert-host) with $status"
if curl -sS -o /dev/null --resolve "other.test:$OTHER_PUSH:127.0.0.1" --cacert "$STEP_WORK/other-data/certs/ca.pem" "https://other.test:$OTHER_PUSH/" 2>/dev/null; then
  fail "curl accepted the certificate for a name not given to --cert-host"
fi
echo "--cert-host: the certificate names pushmock.test, and the inspection API answers it"

# pushmock exec: the command gets the server, its exit status is passed through (0 and 3), and
# nothing is left running.
status=0
elsewhere "$BIN" exec --data-dir "$STEP_WORK/exec-data" --log-level warning -- sh -c '
  "$0" send apns --alert "from exec" >/dev/null || exit 10
  curl -sS -o /dev/null "$PUSHMOCK_URL/readyz" || exit 11
  [ "$(curl -sS -o /dev/null -w "%{http_code}" -X POST "$PUSHMOCK_PUSH_URL/3/device/zz")" = 400 ] || exit 12
  exit 3' "$BIN" || status=$?
[ "$status" = 3 ] || fail "pushmock exec -- (a command that exits 3) exited $status"
elsewhere "$BIN" exec --data-dir "$STEP_WORK/exec-data" --log-level warning -- true || fail "pushmock exec -- true exited non-zero"
if pgrep -f -- "--data-dir $STEP_WORK/exec-data" >/dev/null; then fail "pushmock exec left its server running"; fi
[ -z "$(find "$RUNTIME" -name 'pushmock-*.json' ! -name "pushmock-$OTHER_INSPECTION.json")" ] || fail "pushmock exec left a locator file behind"
echo "exec: the command reached the server (send, the inspection API, curl with SSL_CERT_FILE); exit statuses 3 and 0 passed through; nothing left"
