# pushmock certs generate, then serve with the new certificate: its CA is trusted, the committed
# CA is not.
# ci: beside
source .ci/lib.sh
need_debug_build
"$BIN" certs generate --out "$STEP_WORK/certs" >/dev/null
serve GEN --no-inspection --cert "$STEP_WORK/certs/server.pem" --key "$STEP_WORK/certs/server-key.pem"
out="$(curl -sS --http2 --cacert "$STEP_WORK/certs/ca.pem" -o /dev/null -w '%{http_version} %{http_code}' https://localhost:$GEN_PUSH/livez)"
[ "$out" = "2 200" ] || fail "generated certificates: got '$out'"
curl -sS --http2 --cacert Certs/ca.pem https://localhost:$GEN_PUSH/livez >/dev/null 2>&1 && fail "a CA that did not issue the certificate was accepted"
echo "generated CA trusted, committed CA refused: ok"
