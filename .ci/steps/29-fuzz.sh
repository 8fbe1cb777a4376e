# Every libFuzzer target for 30 s (scripts/fuzz: a debug build with -sanitize=fuzzer, kept in the
# cache; debug builds in about half the time of release, with Swift's debug assertions on). Beside
# the other lane at nice 10: each target still runs its 30 s, and the other lane's servers, which
# some checks time, come first.
# ci: beside
source .ci/lib.sh
PUSHMOCK_FUZZ_CONFIGURATION=debug PUSHMOCK_FUZZ_SCRATCH="$CACHE/build/fuzz-debug" nice -n 10 scripts/fuzz 30 \
  || fail "scripts/fuzz failed: its build, or a target found a crash (above)"
