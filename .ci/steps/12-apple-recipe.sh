# APNs with Apple's curl recipe (an openssl-signed JWT, DER signature); the testing workflow with
# curl and jq only (cursor, send, wait, a 410 fault, reset); the event stream; a push reproduced
# from GET …/curl; Live Activities, push-to-start and broadcast with curl.
# ci: beside
source .ci/lib.sh
need_debug_build
serve MAIN
API="$MAIN_API"
# State changes on the inspection API carry JSON or x-pushmock-client (the cross-site guard).
curl -sS -X DELETE -H 'x-pushmock-client: ci' "$API/deliveries" >/dev/null
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs 2>"$STEP_WORK/recipe.body")"
[ "$status" = "200" ] || fail "Apple's curl recipe: HTTP $status $(cat "$STEP_WORK/recipe.body")"
curl -sS "$API/deliveries?service=apns&limit=1" >"$STEP_WORK/recorded.json"
jq -e '.total == 1 and .deliveries[0].outcome == "accepted" and .deliveries[0].identity == "PMTEAM0001/PUSHMOCK01"
       and .deliveries[0].environment == "sandbox" and .deliveries[0].payload.aps.alert == "test"' "$STEP_WORK/recorded.json" >/dev/null \
  || fail "the recipe's push is not recorded as expected: $(cat "$STEP_WORK/recorded.json")"
echo "recipe: 200, recorded as accepted from PMTEAM0001/PUSHMOCK01 on sandbox"
status="$(curl -sS -o "$STEP_WORK/body" -w '%{http_code}' --cacert Certs/ca.pem -H "apns-topic: com.example.app" --data '{"aps":{}}' \
  https://localhost:$MAIN_PUSH/3/device/abcd)"
[ "$status" = "403" ] && jq -e '.reason == "MissingProviderToken"' "$STEP_WORK/body" >/dev/null || fail "no token: HTTP $status $(cat "$STEP_WORK/body")"
jq -e '.total == 1' <(curl -sS "$API/deliveries?reason=MissingProviderToken") >/dev/null || fail "the rejection was not recorded"
echo "no token: 403 MissingProviderToken, recorded"
# The testing workflow with curl and jq only: cursor, send, wait, inject a 410, send again, reset.
CURSOR="$(curl -sS "$API/deliveries?limit=1" | jq '.newestId // 0')"
curl -sS -o "$STEP_WORK/wait.json" -w '%{http_code}' "$API/deliveries/wait?service=apns&outcome=accepted&after=$CURSOR&count=1&timeout=60s" >"$STEP_WORK/wait.status" &
WAITER=$!
bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs >/dev/null 2>&1
wait "$WAITER"
waited="$(cat "$STEP_WORK/wait.status")"
[ "$waited" = "200" ] && jq -e '.total == 1 and .deliveries[0].status == 200' "$STEP_WORK/wait.json" >/dev/null || fail "wait: HTTP $waited $(cat "$STEP_WORK/wait.json")"
curl -sS -X PUT "$API/faults" -H 'content-type: application/json' -d '{"id":"gone","match":{"service":"apns"},"reject":{"reason":"Unregistered"},"count":1}' | jq -e '.reject.status == 410' >/dev/null \
  || fail "fault not accepted"
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs 2>"$STEP_WORK/recipe.body")"
[ "$status" = "410" ] && jq -e '.reason == "Unregistered" and (.timestamp | type) == "number"' "$STEP_WORK/recipe.body" >/dev/null || fail "injected 410: HTTP $status"
jq -e '.total == 1 and .deliveries[0].fault == "gone"' <(curl -sS "$API/deliveries?status=410") >/dev/null || fail "the fault is not recorded on its delivery"
curl -sS -X POST -H 'content-type: application/json' "$API/reset" | jq -e '.reset == true' >/dev/null || fail "reset failed"
jq -e '.total == 0' <(curl -sS "$API/deliveries") >/dev/null || fail "reset left deliveries"
echo "workflow: wait 200 on arrival, injected 410 recorded with its fault, reset"
# The event stream (SSE) with curl, and a recorded push reproduced from GET …/curl.
curl -sS -N --max-time 60 "$API/events?service=apns" >"$STEP_WORK/events.txt" 2>/dev/null &
EVENTS=$!
# The push goes once the stream is open (its preamble is in), and the stream is read until the
# push's event is in.
for _ in $(seq 600); do grep -q "^retry:" "$STEP_WORK/events.txt" && break; sleep 0.1; done
grep -q "^retry:" "$STEP_WORK/events.txt" || fail "the event stream did not open: $(cat "$STEP_WORK/events.txt")"
bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs >/dev/null 2>&1
for _ in $(seq 600); do grep -q "^event: delivery" "$STEP_WORK/events.txt" && break; sleep 0.1; done
kill "$EVENTS" 2>/dev/null; wait "$EVENTS" 2>/dev/null || true
grep -q "^event: delivery" "$STEP_WORK/events.txt" || fail "no delivery event on /api/v1/events: $(cat "$STEP_WORK/events.txt")"
EVENT_ID="$(grep -m1 '^id: ' "$STEP_WORK/events.txt" | cut -d' ' -f2)"
# reveal=1: the recorded credential as received (by default its signature is elided).
curl -sS -o "$STEP_WORK/repro.sh" "$API/deliveries/$EVENT_ID/curl?reveal=1"
grep -q -- "--resolve 'api.sandbox.push.apple.com:$MAIN_PUSH:127.0.0.1'" "$STEP_WORK/repro.sh" || fail "curl command: $(cat "$STEP_WORK/repro.sh")"
status="$(bash "$STEP_WORK/repro.sh" 2>&1 | awk 'NR == 1 {print $2}')"
[ "$status" = "200" ] || fail "the reproduced push answered $status: $(cat "$STEP_WORK/repro.sh")"
jq -e '.total == 2' <(curl -sS "$API/deliveries?service=apns&after=$((EVENT_ID - 1))") >/dev/null || fail "the reproduced push was not recorded"
echo "events: SSE delivered delivery $EVENT_ID; its …/curl command sent it again: 200, recorded"
LA_TOKEN="$(printf 'de%.0s' $(seq 80))"
NOW="$(date +%s)"
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "{\"aps\":{\"event\":\"update\",\"timestamp\":$NOW,\"content-state\":{\"score\":\"1-0\"}}}" "$LA_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "200" ] || fail "Live Activity update via the recipe: HTTP $status $(cat "$STEP_WORK/recipe.body")"
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "{\"aps\":{\"event\":\"end\",\"timestamp\":$NOW,\"content-state\":{\"score\":\"2-1\"},\"dismissal-date\":$NOW}}" "$LA_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "200" ] || fail "Live Activity end via the recipe: HTTP $status $(cat "$STEP_WORK/recipe.body")"
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "{\"aps\":{\"event\":\"update\",\"timestamp\":${NOW}000,\"content-state\":{}}}" "$LA_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "400" ] && jq -e '.reason == "LiveActivityTimestampInMilliseconds"' "$STEP_WORK/recipe.body" >/dev/null \
  || fail "a millisecond Live Activity timestamp: HTTP $status $(cat "$STEP_WORK/recipe.body")"
echo "recipe, Live Activity: update 200, end 200, millisecond timestamp 400 LiveActivityTimestampInMilliseconds"
# Push-to-start and broadcast (iOS 18) with curl only: a channel, a start that joins it and asks for
# a token, a broadcast update, then the activity's timeline on the inspection API.
JWT="$("$BIN" token apns)"
curl -sS -D "$STEP_WORK/channel.headers" -o /dev/null --http2 --cacert Certs/ca.pem -H "authorization: bearer $JWT" \
  --data '{"message-storage-policy":1,"push-type":"LiveActivity"}' https://localhost:$MAIN_PUSH/1/apps/com.example.app/channels
CHANNEL="$(grep -i '^apns-channel-id:' "$STEP_WORK/channel.headers" | cut -d' ' -f2 | tr -d '\r')"
[ -n "$CHANNEL" ] || fail "channel creation: $(cat "$STEP_WORK/channel.headers")"
PTS_TOKEN="$(printf 'ef%.0s' $(seq 80))"
NOW="$(date +%s)"
status="$(bash scripts/interop/apple_curl_recipe.sh "$MAIN_PUSH" Certs com.example.app.push-type.liveactivity liveactivity \
  "{\"aps\":{\"event\":\"start\",\"timestamp\":$NOW,\"content-state\":{\"score\":\"0-0\"},\"attributes-type\":\"MatchAttributes\",\"attributes\":{\"home\":\"A\"},\"alert\":{\"title\":\"Kick-off\",\"body\":\"A v B\"},\"input-push-token\":1,\"input-push-channel\":\"$CHANNEL\"}}" \
  "$PTS_TOKEN" 2>"$STEP_WORK/recipe.body")"
[ "$status" = "200" ] || fail "push-to-start via the recipe: HTTP $status $(cat "$STEP_WORK/recipe.body")"
ISSUED="$(curl -sS "$API/deliveries?token=$PTS_TOKEN&limit=1" | jq -r '.deliveries[0].issuedActivityToken')"
[ "${#ISSUED}" = "160" ] || fail "no activity token issued: $ISSUED"
status="$(curl -sS -o "$STEP_WORK/body" -w '%{http_code}' --http2 --cacert Certs/ca.pem -H "authorization: bearer $JWT" -H "apns-channel-id: $CHANNEL" \
  -H "apns-push-type: LiveActivity" -H "apns-priority: 10" -H "apns-expiration: 0" \
  --data "{\"aps\":{\"event\":\"update\",\"timestamp\":$((NOW + 1)),\"content-state\":{\"score\":\"1-1\"}}}" https://localhost:$MAIN_PUSH/4/broadcasts/apps/com.example.app)"
[ "$status" = "200" ] || fail "broadcast: HTTP $status $(cat "$STEP_WORK/body")"
jq -e '.state == "active" and .contentState.score == "1-1" and .timeline[-1].service == "broadcast" and .channelId == "'"$CHANNEL"'"' \
  <(curl -sS "$API/activities/$ISSUED") >/dev/null || fail "the broadcast did not reach the activity: $(curl -sS "$API/activities/$ISSUED")"
echo "push-to-start issued $(echo "$ISSUED" | cut -c1-12)…, the broadcast on $CHANNEL reached it: timeline start → update (broadcast)"
