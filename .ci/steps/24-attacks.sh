# Each attack of the hardening passes while a canary keeps sending (scripts/attacks).
source .ci/lib.sh
need_debug_build
need_venv h2
"$VENV/bin/python" scripts/attacks "$BIN" Certs || fail "the attack suite failed"
