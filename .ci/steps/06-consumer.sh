# PushMockTesting alone: a consumer package (Examples/TestingOnly) builds and tests without
# postgres-nio, GRDB or swift-syntax.
source .ci/lib.sh
CONSUMER="$CACHE/build/consumer"
(cd Examples/TestingOnly && swift test --scratch-path "$CONSUMER" >"$STEP_WORK/consumer.log" 2>&1) \
  || { tail -30 "$STEP_WORK/consumer.log"; fail "the PushMockTesting-only consumer does not build or test"; }
BUILT="$CONSUMER/debug"
# SwiftPM lays out a folder for every target of the graph; a target it compiled holds objects.
compiled() { [ -n "$(find "$BUILT/$1.build" -name '*.o' 2>/dev/null | head -1)" ]; }
compiled PushMockTesting || fail "the consumer did not compile PushMockTesting"
for module in PostgresNIO GRDB PushMockPostgres PushMockSQLite SwiftSyntax PushMockSwiftSource; do
  if compiled "$module"; then fail "a target that adds only PushMockTesting compiled $module"; fi
done
note "consumer: PushMockTesting built and tested; no PostgresNIO, GRDB, PushMockPostgres, PushMockSQLite or swift-syntax module"
