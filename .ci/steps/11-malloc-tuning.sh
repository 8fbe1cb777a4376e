# serve: glibc's per-thread malloc cache is raised by one restart of the same process (opt-out and
# the operator's own tunable respected).
source .ci/lib.sh
need_debug_build
tunables_of() { tr '\0' '\n' <"/proc/$1/environ" | grep '^GLIBC_TUNABLES=' || true; }
serve MAIN
[ "$(tunables_of "$MAIN_PID")" = "GLIBC_TUNABLES=glibc.malloc.tcache_count=256" ] || fail "serve's environment: '$(tunables_of "$MAIN_PID")', expected the tcache tunable"
grep -q "pushmock" "/proc/$MAIN_PID/cmdline" || fail "the restarted serve is not the same process"
PUSHMOCK_MALLOC_TUNING=off serve OFF
GLIBC_TUNABLES=glibc.malloc.tcache_count=7 serve OWN
[ -z "$(tunables_of "$OFF_PID")" ] || fail "PUSHMOCK_MALLOC_TUNING=off still set '$(tunables_of "$OFF_PID")'"
[ "$(tunables_of "$OWN_PID")" = "GLIBC_TUNABLES=glibc.malloc.tcache_count=7" ] || fail "the operator's tunable was changed: '$(tunables_of "$OWN_PID")'"
stop "$OFF_PID"
stop "$OWN_PID"
note "serve: GLIBC_TUNABLES=glibc.malloc.tcache_count=256 in the same pid $MAIN_PID; off and an operator's own value are left alone"
