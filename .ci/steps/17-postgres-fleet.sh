# The PostgreSQL store, a fleet: two instances on one database, 20 000 pushes split, a wait
# across, one count, a count fault fired 3 times in all.
# ci: beside
source .ci/lib.sh
need_debug_build
start_postgres
TOKEN="$("$BIN" token apns)"
printf '{"aps":{"alert":{"title":"Load","body":"h2load"}}}' >"$STEP_WORK/push.json"
LOADS=()
psql_run -c "CREATE DATABASE pushmock_fleet" || fail "cannot create the fleet database"
FLEET_URL="postgres://postgres@127.0.0.1:$PG_PORT/pushmock_fleet"
# B runs on event loops of its own (--threads 2), which the store's pool shares and which shut
# down after it: its log must not show a connection left to a loop that was gone.
serve A --store "$FLEET_URL" --retention 100000 --apns-streams-before-auth 1000
serve B --threads 2 --store "$FLEET_URL" --retention 100000 --apns-streams-before-auth 1000
WAIT_TOKEN="$(hex 32 d7)"
curl -sS -o "$STEP_WORK/fleet-wait.json" -w '%{http_code}' "http://127.0.0.1:$A_INSPECTION/api/v1/deliveries/wait?token=$WAIT_TOKEN&count=1&timeout=60s" >"$STEP_WORK/fleet-wait.status" &
WAIT_PID=$!
# (A wait counts the deliveries there already are: the push may reach B before the wait reaches A.)
status="$(curl -sS -o /dev/null -w '%{http_code}' --http2 --cacert Certs/ca.pem -H "authorization: bearer $TOKEN" -H "apns-topic: com.example.app" \
  --data '{"aps":{"alert":"to B"}}' "https://localhost:$B_PUSH/3/device/$WAIT_TOKEN")"
[ "$status" = "200" ] || fail "fleet: the push to B answered $status"
wait "$WAIT_PID"
[ "$(cat "$STEP_WORK/fleet-wait.status")" = "200" ] || fail "fleet: the wait on A did not return for the push to B: $(cat "$STEP_WORK/fleet-wait.status") $(cat "$STEP_WORK/fleet-wait.json")"
echo "a wait on A returned for a push sent to B"
for port in $A_PUSH $B_PUSH; do
  h2load -n 10000 -c 4 -m 50 -d "$STEP_WORK/push.json" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
    -H "authorization: bearer $TOKEN" "https://127.0.0.1:$port/3/device/$(hex 32 c6)" >"$STEP_WORK/h2load-fleet-$port.log" 2>&1 &
  LOADS+=($!)
done
wait "${LOADS[0]}" && wait "${LOADS[1]}" || fail "fleet: h2load failed: $(cat "$STEP_WORK"/h2load-fleet-*.log | grep -E '^requests:')"
for port in $A_PUSH $B_PUSH; do
  grep -qE "^requests: 10000 total, 10000 started, 10000 done, 10000 succeeded, 0 failed" "$STEP_WORK/h2load-fleet-$port.log" \
    || fail "fleet: not every push to :$port was accepted: $(grep -E '^requests:' "$STEP_WORK/h2load-fleet-$port.log")"
done
for port in $A_INSPECTION $B_INSPECTION; do
  seen="$(curl -sS "http://127.0.0.1:$port/api/v1/deliveries/wait?token=$(hex 32 c6)&count=20000&limit=1&timeout=60s" | jq .total)"
  [ "$seen" = "20000" ] || fail "fleet: the instance on :$port sees $seen of the 20000 h2load deliveries"
done
echo "h2load: 10000 pushes to each instance, both report exactly 20000"
curl -sS -X PUT -H 'content-type: application/json' --data '{"id":"thrice","match":{"token":"'"$(hex 32 e8)"'"},"reject":{"reason":"Shutdown"},"count":3}' \
  http://127.0.0.1:$A_INSPECTION/api/v1/faults >/dev/null
for _ in $(seq 600); do [ "$(curl -sS http://127.0.0.1:$B_INSPECTION/api/v1/faults | jq '.faults | length')" = "1" ] && break; sleep 0.1; done
statuses=""
for i in $(seq 8); do
  port=$(( i % 2 == 1 ? A_PUSH : B_PUSH ))
  statuses="$statuses $(curl -sS -o /dev/null -w '%{http_code}' --http2 --cacert Certs/ca.pem -H "authorization: bearer $TOKEN" -H "apns-topic: com.example.app" \
    --data '{"aps":{"alert":"fault"}}' "https://localhost:$port/3/device/$(hex 32 e8)")"
done
fired="$(echo $statuses | tr ' ' '\n' | grep -c 503 || true)"
[ "$fired" = "3" ] || fail "fleet: the count 3 fault fired $fired times across A and B ($statuses)"
echo "a count 3 fault set through A fired 3 times across A and B:$statuses"
for p in "$A_PID" "$B_PID"; do kill -TERM "$p"; wait "$p" || true; done
! grep -h "Cannot schedule tasks" "$A_LOG" "$B_LOG" || fail "fleet: an instance used an event loop after it shut down"
