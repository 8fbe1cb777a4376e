# PushMockTesting alone: a consumer package (Examples/TestingOnly) builds and tests, and its test
# binary links neither postgres-nio, the SQLite store nor the Swift source reader. It builds into the debug build's folder:
# SwiftPM reuses every module the two graphs share (their commands are the same), so only the
# consumer's own targets compile, and the main build stays up to date after it.
source .ci/lib.sh
need_debug_build
# The consumer's own test module is compiled afresh each run: it sees PushMock's types only through
# PushMockTesting's re-exports, and Swift's incremental build does not recompile a module for a
# change inside a type it sees that way (swiftlang/swift#89636; scripts/layout-guard does the same
# for PushMock's own modules). Seen: FCMConfiguration gained fields, and the stale test crashed on
# a bad pointer inside PushMockConfiguration.testing(). It is one file.
touch Examples/TestingOnly/Tests/TestingOnlyTests/*.swift
# Nor does SwiftPM plan this package's build again when a file is added to PushMock (a path
# dependency): its kept plan is dropped (the main build plans its own again in seconds).
rm -f "$DEBUG_BUILD/debug/description.json"
(cd Examples/TestingOnly && swift test --scratch-path "$DEBUG_BUILD" >"$STEP_WORK/consumer.log" 2>&1) \
  || { tail -30 "$STEP_WORK/consumer.log"; fail "the PushMockTesting-only consumer does not build or test"; }
# What the consumer's tests link: SwiftPM's list of the object files, one module's folder each.
LINKED="$DEBUG_BUILD/debug/TestingOnlyPackageTests.product/Objects.LinkFileList"
[ -s "$LINKED" ] || fail "no link list at $LINKED"
linked() { grep -q "/$1\.build/" "$LINKED"; }
linked PushMockTesting || fail "the consumer's tests do not link PushMockTesting"
for module in PostgresNIO PushMockPostgres PushMockSQLite PushMockSwiftSource; do
  if linked "$module"; then fail "a target that adds only PushMockTesting links $module"; fi
done
compiled="$(grep -c '^\[[0-9/]*\] Compiling' "$STEP_WORK/consumer.log" || true)"
note "consumer: PushMockTesting built and tested ($compiled files compiled for it); no PostgresNIO, PushMockPostgres, PushMockSQLite or PushMockSwiftSource module linked"
