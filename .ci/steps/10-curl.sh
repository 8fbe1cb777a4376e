# pushmock serve with its defaults (but ports from the kernel), real clients: curl over HTTP/2,
# HTTP/1.1 and h2c, an unknown path, nghttp; then a graceful stop on SIGTERM.
# ci: beside
source .ci/lib.sh
need_debug_build
serve MAIN --cleartext-port 0
out="$(curl -sS --http2 --cacert Certs/ca.pem -o "$STEP_WORK/body" -w '%{http_version} %{http_code}' "https://localhost:$MAIN_PUSH/livez")"
[ "$out" = "2 200" ] || fail "curl --http2 /livez: got '$out'"
jq -e '.status == "ok"' "$STEP_WORK/body" >/dev/null || fail "curl /livez body: $(cat "$STEP_WORK/body")"
note "curl --http2 (TLS, ALPN h2): $out"
out="$(curl -sS --http1.1 --cacert Certs/ca.pem -o /dev/null -w '%{http_version} %{http_code}' "https://127.0.0.1:$MAIN_PUSH/livez")"
[ "$out" = "1.1 200" ] || fail "curl --http1.1 /livez: got '$out'"
note "curl --http1.1 (TLS, ALPN http/1.1): $out"
out="$(curl -sS --http2-prior-knowledge -o /dev/null -w '%{http_version} %{http_code}' "http://127.0.0.1:$MAIN_CLEARTEXT/livez")"
[ "$out" = "2 200" ] || fail "curl --http2-prior-knowledge (h2c): got '$out'"
note "curl h2c prior knowledge: $out"
out="$(curl -sS --http2 --cacert Certs/ca.pem -o "$STEP_WORK/body" -w '%{http_code}' -X POST -d '{"aps":{}}' "https://localhost:$MAIN_PUSH/no/such/path")"
[ "$out" = "404" ] || fail "unknown path: got $out"
jq -e '.reason == "BadPath"' "$STEP_WORK/body" >/dev/null || fail "404 body: $(cat "$STEP_WORK/body")"
note "unknown path: 404 $(cat "$STEP_WORK/body")"
SSL_CERT_FILE="$SRC/Certs/ca.pem" nghttp -v "https://localhost:$MAIN_PUSH/livez" >"$STEP_WORK/nghttp.log" 2>&1 || { cat "$STEP_WORK/nghttp.log"; fail "nghttp failed"; }
grep -q "The negotiated protocol: h2" "$STEP_WORK/nghttp.log" || fail "nghttp did not negotiate h2"
grep -q ":status: 200" "$STEP_WORK/nghttp.log" || fail "nghttp did not get 200"
grep -q "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1\]" "$STEP_WORK/nghttp.log" \
  || fail "a token connection should start with 1 stream: $(grep -A6 'recv SETTINGS' "$STEP_WORK/nghttp.log")"
note "nghttp: h2 negotiated, 200, SETTINGS_MAX_CONCURRENT_STREAMS 1 until the first valid provider token"
kill -TERM "$MAIN_PID"
for _ in $(seq 100); do kill -0 "$MAIN_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$MAIN_PID" 2>/dev/null; then fail "pushmock serve did not stop within 10 s of SIGTERM"; fi
wait "$MAIN_PID" || fail "pushmock serve exited non-zero after SIGTERM: $(tail -5 "$MAIN_LOG")"
note "SIGTERM: stopped cleanly"
