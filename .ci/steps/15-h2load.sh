# h2load with a valid provider token: 20 000 pushes, every one recorded; then 20 000 /livez.
# h2load opens its streams before it reads the server's SETTINGS; with APNs' one stream before the
# first valid token, the rest of that first burst is refused (REFUSED_STREAM) as on Apple's
# servers, and h2load does not retry. This load check therefore allows 1000 streams from the start.
source .ci/lib.sh
need_debug_build
serve LOAD --retention 50000 --apns-streams-before-auth 1000
TOKEN="$("$BIN" token apns)"
printf '{"aps":{"alert":{"title":"Load","body":"h2load"}}}' >"$STEP_WORK/push.json"
h2load -n 20000 -c 8 -m 50 -d "$STEP_WORK/push.json" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
  -H "authorization: bearer $TOKEN" "https://127.0.0.1:$LOAD_PUSH/3/device/$(hex 32 c3)" >"$STEP_WORK/h2load-apns.log" 2>&1 \
  || { cat "$STEP_WORK/h2load-apns.log"; fail "h2load (APNs) failed"; }
grep -E "^requests:|^status codes:" "$STEP_WORK/h2load-apns.log"
grep -qE "^requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored, 0 timeout" "$STEP_WORK/h2load-apns.log" \
  || fail "h2load (APNs): not every push was accepted"
recorded="$(curl -sS "http://127.0.0.1:$LOAD_INSPECTION/api/v1/deliveries?outcome=accepted&limit=1" | jq .total)"
[ "$recorded" = "20000" ] || fail "h2load (APNs): $recorded deliveries recorded, expected 20000"
echo "h2load (APNs): 20000 accepted, 20000 recorded"
h2load -n 20000 -c 8 -m 50 https://127.0.0.1:$LOAD_PUSH/livez >"$STEP_WORK/h2load.log" 2>&1 || { cat "$STEP_WORK/h2load.log"; fail "h2load failed"; }
grep -E "^requests:" "$STEP_WORK/h2load.log"
grep -qE "^requests: 20000 total, 20000 started, 20000 done, 20000 succeeded, 0 failed, 0 errored, 0 timeout" "$STEP_WORK/h2load.log" \
  || fail "h2load: not all 20000 requests succeeded"
grep -q "Application protocol: h2" "$STEP_WORK/h2load.log" || fail "h2load did not use h2"
