# firebase-admin and pyfcm (PyPI), unmodified but for the send URL, against a server started from
# Examples/pushmock.json, whose devices include an unregistered FCM token and one of another
# project (for UnregisteredError and SenderIdMismatchError).
# ci: beside
source .ci/lib.sh
need_debug_build
need_venv firebase-admin pyfcm "httpx[http2]"
serve CONFIG --config Examples/pushmock.json
"$VENV/bin/python" scripts/interop/firebase_admin_check.py "$CONFIG_PUSH" "$CONFIG_INSPECTION" Certs || fail "firebase-admin/pyfcm check failed"
# A stop with idle client connections (google-auth's pooled HTTP/1.1, an httpx HTTP/2 client) is at once.
"$VENV/bin/python" scripts/interop/stop_check.py "$BIN" || fail "the stop with idle connections was slow"
