# Where PostgreSQL is not installed, `swift test` still passes: the PostgreSQL suites are skipped
# with the reason, naming what to install. PUSHMOCK_TEST_POSTGRES_BIN hides the installed one.
source .ci/lib.sh
need_debug_build
set +e
env -u PUSHMOCK_TEST_POSTGRES -u PGHOST -u PGPORT -u PGUSER -u PGDATABASE -u PGPASSWORD PUSHMOCK_TEST_POSTGRES_BIN="$STEP_WORK/no-postgres" \
  swift test --scratch-path "$DEBUG_BUILD" --filter 'PushMockPostgresTests|PushMockStoreTests' >"$STEP_WORK/test.log" 2>&1
status=$?
set -e
[ "$status" -eq 0 ] || { tail -40 "$STEP_WORK/test.log"; fail "swift test without PostgreSQL failed (exit $status)"; }
grep -m 3 -E "skipped: \"PostgreSQL is not installed: apt-get install postgresql" "$STEP_WORK/test.log" || true
grep -q 'Test "answers, and each test gets a database of its own" skipped: "PostgreSQL is not installed: apt-get install postgresql' "$STEP_WORK/test.log" \
  || { tail -40 "$STEP_WORK/test.log"; fail "the PostgreSQL tests were not skipped with their reason"; }
skipped="$(grep -cE "skipped: \"PostgreSQL is not installed" "$STEP_WORK/test.log")"
note "without PostgreSQL: exit 0, $skipped PostgreSQL suites and tests skipped with the reason"
