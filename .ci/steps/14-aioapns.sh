# aioapns (PyPI): h2 without ALPN, the exact apns-id echo, Live Activities.
# ci: beside
source .ci/lib.sh
need_debug_build
need_venv aioapns
serve MAIN
"$VENV/bin/python" scripts/interop/aioapns_check.py "$MAIN_PUSH" "$MAIN_INSPECTION" Certs --liveactivity || fail "aioapns check failed"
