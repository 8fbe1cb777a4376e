# The PostgreSQL store lost while running: pushes still answered, the trouble logged once a second,
# /readyz 503, everything written when it is back; then pushmock export and import, PostgreSQL to
# SQLite and back out, the same deliveries in the same order.
# ci: beside
source .ci/lib.sh
need_debug_build
start_postgres
TOKEN="$("$BIN" token apns)"
printf '{"aps":{"alert":{"title":"Load","body":"h2load"}}}' >"$STEP_WORK/push.json"
psql_run -c "CREATE DATABASE pushmock_outage" || fail "cannot create the outage database"
OUTAGE_URL="postgres://postgres@127.0.0.1:$PG_PORT/pushmock_outage"
serve OUTAGE --store "$OUTAGE_URL" --retention 100000 --apns-streams-before-auth 1000
OUTAGE_LOG_FILE="$OUTAGE_LOG"
OUTAGE_TOKEN="$(hex 32 f1)"
outage_load() {
  h2load -n "$1" -c 2 -m 10 -d "$STEP_WORK/push.json" -H "apns-topic: com.example.app" -H "apns-push-type: alert" \
    -H "authorization: bearer $TOKEN" "https://127.0.0.1:$OUTAGE_PUSH/3/device/$OUTAGE_TOKEN" >"$STEP_WORK/h2load-outage.log" 2>&1 || fail "outage: h2load failed"
  grep -qE "^requests: $1 total, $1 started, $1 done, $1 succeeded, 0 failed" "$STEP_WORK/h2load-outage.log" \
    || fail "outage: not every push was answered 2xx: $(grep -E '^requests:' "$STEP_WORK/h2load-outage.log")"
}
outage_load 1000
pg_stop
outage_load 5000
echo "the database stopped: 5000 more pushes answered 2xx"
# The trouble is logged once a second: wait for the first line, then count the lines over the
# seconds that pass meanwhile (at most one a second, and one more for the second already begun).
away=$(date +%s)
for _ in $(seq 600); do grep -q "the store's writes are failing" "$OUTAGE_LOG" && break; sleep 0.1; done
grep -q "the store's writes are failing" "$OUTAGE_LOG" || { tail -20 "$OUTAGE_LOG"; fail "outage: nothing logged while the database was away"; }
sleep 2
lines="$(grep -c "the store's writes are failing" "$OUTAGE_LOG")"
elapsed=$(($(date +%s) - away + 1))
[ "$lines" -le "$((elapsed + 1))" ] || fail "outage: $lines trouble lines in about $elapsed s; once a second was asked"
ready="$(curl -sS -o "$STEP_WORK/readyz-outage.json" -w '%{http_code}' http://127.0.0.1:$OUTAGE_INSPECTION/readyz)"
[ "$ready" = "503" ] || fail "outage: /readyz answered $ready while the database was away: $(cat "$STEP_WORK/readyz-outage.json")"
echo "while away: $lines warning line(s), /readyz 503 $(cat "$STEP_WORK/readyz-outage.json")"
pg_start || fail "PostgreSQL did not start again"
curl -sS -o "$STEP_WORK/outage-wait.json" "http://127.0.0.1:$OUTAGE_INSPECTION/api/v1/deliveries/wait?token=$OUTAGE_TOKEN&count=6000&limit=1&timeout=90s"
seen="$(jq .total "$STEP_WORK/outage-wait.json")"
[ "$seen" = "6000" ] || { tail -5 "$OUTAGE_LOG"; fail "outage: $seen of 6000 answered pushes are in the database after it came back: $(head -c 300 "$STEP_WORK/outage-wait.json")"; }
for _ in $(seq 600); do [ "$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$OUTAGE_INSPECTION/readyz)" = "200" ] && break; sleep 0.1; done
[ "$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:$OUTAGE_INSPECTION/readyz)" = "200" ] || fail "outage: /readyz is not 200 again"
for _ in $(seq 600); do grep -q "the store's writes resumed" "$OUTAGE_LOG" && break; sleep 0.1; done
grep -q "the store's writes resumed" "$OUTAGE_LOG" || fail "outage: the recovery was not logged"
grep -q '^pushmock_store_dropped_total 0' <(curl -sS http://127.0.0.1:$OUTAGE_INSPECTION/metrics) || fail "outage: deliveries were dropped below the bound"
echo "back: all 6000 answered pushes written, /readyz 200, nothing dropped"
kill -TERM "$OUTAGE_PID"; wait "$OUTAGE_PID" || true

"$BIN" export --store "$OUTAGE_URL" --output "$STEP_WORK/export-pg.ndjson" || fail "export from PostgreSQL failed"
[ "$(wc -l <"$STEP_WORK/export-pg.ndjson")" = "6000" ] || fail "export: $(wc -l <"$STEP_WORK/export-pg.ndjson") lines from PostgreSQL, 6000 expected"
"$BIN" import --store "sqlite:$STEP_WORK/imported.sqlite" --input "$STEP_WORK/export-pg.ndjson" || fail "import into SQLite failed"
"$BIN" export --store "sqlite:$STEP_WORK/imported.sqlite" --output "$STEP_WORK/export-sqlite.ndjson" || fail "export from SQLite failed"
cmp <(jq -c '[.receivedAt, .deviceToken, .status, .body]' "$STEP_WORK/export-pg.ndjson") <(jq -c '[.receivedAt, .deviceToken, .status, .body]' "$STEP_WORK/export-sqlite.ndjson") \
  || fail "export/import: the deliveries read back from SQLite differ from those exported from PostgreSQL"
printf '%s\nnot json\n' "$(head -1 "$STEP_WORK/export-pg.ndjson")" >"$STEP_WORK/bad.ndjson"
if "$BIN" import --store "sqlite:$STEP_WORK/imported.sqlite" --input "$STEP_WORK/bad.ndjson" 2>"$STEP_WORK/import-bad.err"; then fail "import accepted a file with a bad line"; fi
"$BIN" export --store "sqlite:$STEP_WORK/imported.sqlite" --output "$STEP_WORK/export-after-bad.ndjson"
[ "$(wc -l <"$STEP_WORK/export-after-bad.ndjson")" = "6000" ] || fail "a refused import still imported something"
[ "$("$BIN" export --store "sqlite:$STEP_WORK/imported.sqlite" --since 2099-01-01T00:00:00Z | wc -l)" = "0" ] || fail "export --since did not filter"
for bad in '.service = "smtp"' '.status = -1' '.method = "PO\nST"'; do
  head -1 "$STEP_WORK/export-pg.ndjson" | jq -c "$bad" >"$STEP_WORK/bad-field.ndjson"
  if "$BIN" import --store "sqlite:$STEP_WORK/imported.sqlite" --input "$STEP_WORK/bad-field.ndjson" 2>"$STEP_WORK/import-field.err"; then fail "import accepted $bad"; fi
  grep -q "line 1: .*nothing was imported" "$STEP_WORK/import-field.err" || fail "import's error for $bad: $(cat "$STEP_WORK/import-field.err")"
done
echo "6000 deliveries PostgreSQL → NDJSON → SQLite → NDJSON, identical; a bad line imports nothing ($(head -c 120 "$STEP_WORK/import-bad.err")); --since filters"
