# pywebpush (PyPI), unmodified, against minted Web Push subscriptions: a payload recorded as sent,
# Apple's refusal of a mailto:@localhost subject, a wrong aud, an expired subscription.
# ci: beside
source .ci/lib.sh
need_debug_build
need_venv pywebpush py-vapid
serve MAIN
"$VENV/bin/python" scripts/interop/webpush_check.py "$MAIN_PUSH" "$MAIN_INSPECTION" Certs || fail "pywebpush check failed"
