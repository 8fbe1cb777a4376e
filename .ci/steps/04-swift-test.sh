# The README's test command, `swift test`, on the build above. With no PG* variables set, the
# PostgreSQL suites run against a cluster the tests start themselves; this step checks they ran.
source .ci/lib.sh
need_debug_build
# The event stream (one JSON line per test event, written as it happens) names the tests still
# running if the run hangs: a watchdog stops a run that takes over TEST_LIMIT seconds, lists them,
# and the step fails.
EVENTS="$RUN_STATE/test-events.jsonl"
rm -f "$EVENTS"
TEST_LIMIT=${TEST_LIMIT:-1500}
(
  sleep "$TEST_LIMIT"
  echo "swift test still running after $TEST_LIMIT s: the tests that started and never ended:" >&2
  python3 .ci/still-running.py "$EVENTS" >&2 || true
  pkill -f "PackageTests.xctest" || true
) &
WATCHDOG=$!
disown "$WATCHDOG"
on_exit "pkill -P $WATCHDOG 2>/dev/null; kill $WATCHDOG 2>/dev/null"
set +e
env -u PUSHMOCK_TEST_POSTGRES -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGPASSWORD \
  swift test --scratch-path "$DEBUG_BUILD" --event-stream-output-path "$EVENTS" --event-stream-version 0 2>&1 \
  | tee "$RUN_STATE/test.log" | grep -vE "^(◇|↳) |^\[[0-9]+/[0-9]+\] "
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || fail "swift test failed (exit $status)"
# The PostgreSQL suites ran against the tests' own cluster: not one of them was skipped.
! grep -E "skipped: .*PostgreSQL is not installed" "$RUN_STATE/test.log" || fail "the PostgreSQL tests were skipped, though PostgreSQL is installed"
grep -q "Suite \"The PostgreSQL tests' server\" passed" "$RUN_STATE/test.log" || fail "the PostgreSQL tests' server check did not run and pass"
# The tests leave nothing in the temporary directory: their scratch folders (one per test process,
# removed as it exits) and their PostgreSQL clusters are gone with the processes that made them.
left=""
for folder in "${TMPDIR:-/tmp}"/pushmock-tests.* "${TMPDIR:-/tmp}"/pushmock-test-postgres-*; do
  [ -e "$folder" ] || continue
  pid="$(basename "$folder" | sed -E 's/^pushmock-tests\.([0-9]+)$/\1/; s/^pushmock-test-postgres-([0-9]+)-.*/\1/')"
  kill -0 "$pid" 2>/dev/null && continue
  # A cluster's guard shell (its arguments name the folder) removes it once postgres has stopped.
  bound=$((SECONDS + 120))
  while pgrep -f -- "$folder" >/dev/null && [ $SECONDS -lt $bound ]; do sleep 0.2; done
  [ ! -e "$folder" ] || left="$left $folder"
done
[ -z "$left" ] || fail "the tests left in the temporary directory:$left"
note "swift test: passed, PostgreSQL suites included (their own throwaway cluster)"
