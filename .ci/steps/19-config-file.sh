# pushmock serve --config Examples/pushmock.json: its faults and devices answer, flags override the
# file; a missing file is refused with a clear error.
# ci: beside
source .ci/lib.sh
need_debug_build
serve CONFIG --config Examples/pushmock.json --cleartext-port 0
TOKEN="$("$BIN" token apns)"
send_to() { curl -sS -o "$STEP_WORK/body" -w '%{http_code}' --http2 --cacert Certs/ca.pem -H "authorization: bearer $TOKEN" \
  -H "apns-topic: com.example.app" --data '{"aps":{"alert":"x"}}' "https://localhost:$CONFIG_PUSH/3/device/$1"; }
status="$(send_to 00000000000000000000000000000000000000000000000000000000000000ff)"
[ "$status" = "429" ] && jq -e '.reason == "TooManyRequests"' "$STEP_WORK/body" >/dev/null || fail "configured fault: HTTP $status $(cat "$STEP_WORK/body")"
status="$(send_to 0000000000000000000000000000000000000000000000000000000000000410)"
[ "$status" = "410" ] && jq -e '.reason == "Unregistered" and .timestamp == 1767225600000' "$STEP_WORK/body" >/dev/null \
  || fail "configured unregistered device: HTTP $status $(cat "$STEP_WORK/body")"
jq -e '.total == 1 and .deliveries[0].reason == "Unregistered"' <(curl -sS "http://127.0.0.1:$CONFIG_INSPECTION/api/v1/deliveries?status=410") >/dev/null \
  || fail "config-file deliveries not recorded"
jq -e '.total == 1 and .deliveries[0].fault == "busy-device"' <(curl -sS "http://127.0.0.1:$CONFIG_INSPECTION/api/v1/deliveries?status=429") >/dev/null \
  || fail "the fault is not named on its delivery"
out="$(curl -sS --http2-prior-knowledge -o /dev/null -w '%{http_version} %{http_code}' http://127.0.0.1:$CONFIG_CLEARTEXT/livez)"
[ "$out" = "2 200" ] || fail "cleartext port from the flag: $out"
echo "config file: fault 429 TooManyRequests, device 410 Unregistered with its timestamp, flag ports used"
"$BIN" serve --config /nonexistent.json >"$STEP_WORK/bad-config.log" 2>&1 && fail "a missing config file was accepted"
grep -q "/nonexistent.json: cannot read" "$STEP_WORK/bad-config.log" || fail "missing config error: $(cat "$STEP_WORK/bad-config.log")"
echo "missing config file: refused with a clear error"
