# Where PostgreSQL is not installed, `swift test` still passes: the PostgreSQL suites are skipped
# with the reason, naming what to install. PUSHMOCK_TEST_POSTGRES_BIN hides the installed one.
# The skips are read from the test event stream (written by the test process as they happen), not
# from what `swift test` forwards to its output, which a CI run on a busy machine once found cut
# short although the run passed.
source .ci/lib.sh
need_debug_build
set +e
EVENTS="$STEP_WORK/events.jsonl"
env -u PUSHMOCK_TEST_POSTGRES -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGPASSWORD PUSHMOCK_TEST_POSTGRES_BIN="$STEP_WORK/no-postgres" \
  swift test --scratch-path "$DEBUG_BUILD" --filter 'PushMockPostgresTests|PushMockStoreTests' \
  --event-stream-output-path "$EVENTS" --event-stream-version 0 >"$STEP_WORK/test.log" 2>&1
status=$?
set -e
[ "$status" -eq 0 ] || { tail -40 "$STEP_WORK/test.log"; fail "swift test without PostgreSQL failed (exit $status)"; }
grep -q 'Test \\"answers, and each test gets a database of its own\\" skipped: \\"PostgreSQL is not installed: apt-get install postgresql' "$EVENTS" \
  || { cp "$STEP_WORK/test.log" "$EVENTS" "$RUN_STATE/"; fail "the PostgreSQL tests were not skipped with their reason (the output and the events: $RUN_STATE/)"; }
skipped="$(grep -c '"kind":"testSkipped"' "$EVENTS")"
[ "$skipped" -gt 0 ] || fail "no test was skipped"
note "without PostgreSQL: exit 0, $skipped PostgreSQL suites and tests skipped with the reason (apt-get install postgresql)"
