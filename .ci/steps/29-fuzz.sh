# Every libFuzzer target for 30 s (scripts/fuzz: a release build with -sanitize=fuzzer, kept in
# the cache).
source .ci/lib.sh
PUSHMOCK_FUZZ_SCRATCH="$CACHE/build/fuzz" scripts/fuzz 30 || fail "scripts/fuzz failed: its build, or a target found a crash (above)"
