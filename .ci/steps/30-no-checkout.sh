# No checkout: --port 0 --ports-file, credentials over the API, firebase-admin with the served
# account, PUSHMOCK_* variables, a port in use, healthcheck, and serve as an unprivileged user.
# ci: beside
source .ci/lib.sh
need_debug_build
need_venv firebase-admin "httpx[http2]"
NOREPO="$STEP_WORK/no-checkout"
mkdir -p "$NOREPO/run" "$NOREPO/home"
mkdir -p "$NOREPO/xdg"
(cd "$NOREPO/run" && HOME="$NOREPO/home" XDG_RUNTIME_DIR="$NOREPO/xdg" exec "$BIN" serve --port 0 --inspection-port 0 --ports-file "$NOREPO/ports.json" >"$NOREPO/serve.log" 2>&1) &
NOREPO_PID=$!; PIDS+=("$NOREPO_PID")
for _ in $(seq 600); do [ -s "$NOREPO/ports.json" ] && break; sleep 0.1; done
[ -s "$NOREPO/ports.json" ] || fail "--ports-file was not written: $(cat "$NOREPO/serve.log")"
jq -e '(.push | type == "number") and .push > 0 and .push != 2197 and (.inspection | type == "number") and .cleartext == null' "$NOREPO/ports.json" >/dev/null \
  || fail "--ports-file: $(cat "$NOREPO/ports.json")"
grep -q "development credentials (not secret): $NOREPO/home/.local/share/pushmock/certs, created now" "$NOREPO/serve.log" || fail "the banner does not say where the credentials are: $(head -3 "$NOREPO/serve.log")"
"$VENV/bin/python" scripts/interop/served_credentials_check.py "$NOREPO/ports.json" || fail "the served credentials on free ports"
NOREPO_PUSH="$(jq .push "$NOREPO/ports.json")"
out="$(HOME="$NOREPO/home" "$BIN" serve --port "$NOREPO_PUSH" --inspection-port 0 2>&1 || true)"
grep -q "^Error: port $NOREPO_PUSH is in use (--port, PUSHMOCK_PORT); stop what holds it, or pass --port 0 for a free one$" <<<"$out" || fail "port in use: '$out'"
out="$(HOME="$NOREPO/home" PUSHMOCK_PORT=0 PUSHMOCK_INSPECTION_PORT="$(jq .inspection "$NOREPO/ports.json")" "$BIN" serve 2>&1 || true)"
grep -q "is in use (--inspection-port, PUSHMOCK_INSPECTION_PORT)" <<<"$out" || fail "PUSHMOCK_INSPECTION_PORT was not read: '$out'"
out="$(PUSHMOCK_LOG_LEVEL=loud "$BIN" serve 2>&1 || true)"
grep -q "The value 'loud' is invalid for '--log-level" <<<"$out" || fail "PUSHMOCK_LOG_LEVEL was not read: '$out'"
out="$(PUSHMOCK_TRANSPARENT=maybe "$BIN" serve 2>&1 || true)"
grep -q "PUSHMOCK_TRANSPARENT=maybe: a flag takes" <<<"$out" || fail "a bad flag value: '$out'"
[ "$("$BIN" --version)" = "$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/pushmock/PushMockCommand.swift)" ] || fail "pushmock --version"
PUSHMOCK_INSPECTION_PORT="$(jq .inspection "$NOREPO/ports.json")" "$BIN" healthcheck || fail "pushmock healthcheck against a ready server"
if "$BIN" healthcheck --inspection-url http://127.0.0.1:9 >/dev/null 2>&1; then fail "pushmock healthcheck said ready with nothing listening"; fi
# token apns|fcm where there are no local credentials (a home and a folder without them): the
# running server's, from --inspection-url, its locator file or PUSHMOCK_URL, and accepted by it;
# with none anywhere, an error that says what was tried and what to do.
NOREPO_INSPECTION="$(jq .inspection "$NOREPO/ports.json")"
BARE="$NOREPO/bare"; mkdir -p "$BARE"
bare() { (cd "$BARE" && env -u PUSHMOCK_URL -u PUSHMOCK_TOKEN -u PUSHMOCK_INSPECTION_TOKEN HOME="$BARE" XDG_DATA_HOME= XDG_RUNTIME_DIR="$BARE" "$@"); }
push_with() { curl -sS --http2 --cacert "$NOREPO/home/.local/share/pushmock/certs/ca.pem" -o /dev/null -w '%{http_code}' \
  -H "authorization: bearer $1" -H "apns-topic: com.example.app" -d '{"aps":{"alert":"token from the server"}}' \
  "https://localhost:$NOREPO_PUSH/3/device/$(printf 'ab%.0s' $(seq 32))"; }
token="$(bare "$BIN" token apns --inspection-url "http://127.0.0.1:$NOREPO_INSPECTION")" || fail "token apns --inspection-url with no local key failed"
[ "$(push_with "$token")" = 200 ] || fail "a token signed with the key served at --inspection-url was refused"
token="$(bare env XDG_RUNTIME_DIR="$NOREPO/xdg" "$BIN" token apns)" || fail "token apns with no local key and a running server's locator failed"
[ "$(push_with "$token")" = 200 ] || fail "a token signed with the key of the server in the locator file was refused"
assertion="$(bare env PUSHMOCK_URL="http://127.0.0.1:$NOREPO_INSPECTION" "$BIN" token fcm)" || fail "token fcm with PUSHMOCK_URL and no local account failed"
curl -sS --cacert "$NOREPO/home/.local/share/pushmock/certs/ca.pem" "https://localhost:$NOREPO_PUSH/token" \
  -d "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=$assertion" | jq -e '.access_token | startswith("ya29.")' >/dev/null \
  || fail "the assertion signed with the served service account was not exchanged"
if out="$(bare "$BIN" token apns --inspection-url http://127.0.0.1:9 2>&1)"; then fail "token apns with no key anywhere printed: $out"; fi
grep -qF "AuthKey_PUSHMOCK01.p8 not found, and no PushMock inspection API at http://127.0.0.1:9 (cannot connect to 127.0.0.1:9: Connection refused (errno 111)): start pushmock serve" <<<"$out" \
  || fail "token apns with no key anywhere: $out"
echo "token apns and fcm with no local credentials: signed with the running server's, found by flag, locator and PUSHMOCK_URL"
kill -TERM "$NOREPO_PID"; wait "$NOREPO_PID" || fail "the no-checkout server exited non-zero"
# As a user without privileges (root may set socket options others may not, such as SO_DEBUG).
NOBODY_HOME="$(mktemp -d)"; chown nobody "$NOBODY_HOME"
(cd "$NOBODY_HOME" && exec runuser -u nobody -- env -u XDG_RUNTIME_DIR HOME="$NOBODY_HOME" "$BIN" serve --port 0 --inspection-port 0 --ports-file "$NOBODY_HOME/ports.json" >"$STEP_WORK/nobody.log" 2>&1) &
NOBODY_PID=$!; PIDS+=("$NOBODY_PID")
for _ in $(seq 600); do [ -s "$NOBODY_HOME/ports.json" ] && break; sleep 0.1; done
[ -s "$NOBODY_HOME/ports.json" ] || fail "pushmock serve as nobody did not start: $(cat "$STEP_WORK/nobody.log")"
curl -sf "http://127.0.0.1:$(jq .inspection "$NOBODY_HOME/ports.json")/readyz" >/dev/null || fail "pushmock serve as nobody does not answer its inspection port"
status="$(curl -sS --http2 --cacert "$NOBODY_HOME/.local/share/pushmock/certs/ca.pem" -o /dev/null -w '%{http_code}' "https://localhost:$(jq .push "$NOBODY_HOME/ports.json")/livez")"
[ "$status" = "200" ] || fail "pushmock serve as nobody: the push port answered '$status'"
kill -TERM "$NOBODY_PID"; wait "$NOBODY_PID" || true
echo "free ports reported, credentials served with the real port, firebase-admin sent; port-in-use, PUSHMOCK_* and healthcheck as documented"
