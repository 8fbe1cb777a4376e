# aioapns (PyPI): h2 without ALPN, the exact apns-id echo, Live Activities.
# ci: beside
source .ci/lib.sh
status=0
need_debug_build
need_venv aioapns
serve MAIN
"$VENV/bin/python" scripts/interop/aioapns_check.py "$MAIN_PUSH" "$MAIN_INSPECTION" Certs --liveactivity >"$STEP_WORK/aioapns.log" 2>&1 || status=$?
cat "$STEP_WORK/aioapns.log"
[ "$status" -eq 0 ] || fail "aioapns check failed"
# Its h2 logs a protocol error it met (a frame after GOAWAY, say) without failing a send.
! grep -q "Traceback" "$STEP_WORK/aioapns.log" || fail "aioapns logged an error (above)"
