# The GitHub Action (action.yml, scripts/github-action) with the release archive given as a local
# path, as a runner would run it: the server starts on free ports, the variables it exports reach
# it (curl and Node trust its CA, pushmock send finds it), and `stop: true` stops it.
source .ci/lib.sh
need_debug_build
need_package
RUNNER="$STEP_WORK/runner"
mkdir -p "$RUNNER/temp"
: >"$RUNNER/env"; : >"$RUNNER/path"; : >"$RUNNER/output"
action() {
  env -u PUSHMOCK_URL -u SSL_CERT_FILE -u NODE_EXTRA_CA_CERTS RUNNER_TEMP="$RUNNER/temp" GITHUB_ENV="$RUNNER/env" GITHUB_PATH="$RUNNER/path" \
    GITHUB_OUTPUT="$RUNNER/output" GITHUB_ACTION_PATH="$SRC" PUSHMOCK_ACTION_ARCHIVE="$ARCHIVE" "$@" bash scripts/github-action
}
action >"$STEP_WORK/action.log" 2>&1 || { cat "$STEP_WORK/action.log"; fail "the action did not start PushMock"; }
# What a later step sees: GITHUB_ENV's lines as its environment.
while IFS='=' read -r name value; do export "$name=$value"; done <"$RUNNER/env"
PIDS+=("$PUSHMOCK_PID")
for name in PUSHMOCK_URL PUSHMOCK_PUSH_URL PUSHMOCK_PUSH_PORT PUSHMOCK_INSPECTION_PORT PUSHMOCK_BIN SSL_CERT_FILE REQUESTS_CA_BUNDLE NODE_EXTRA_CA_CERTS; do
  [ -n "${!name:-}" ] || fail "the action did not export $name: $(cat "$RUNNER/env")"
done
grep -q "^url=$PUSHMOCK_URL$" "$RUNNER/output" || fail "the action's url output: $(cat "$RUNNER/output")"
[ "$(cat "$RUNNER/path")/pushmock" = "$PUSHMOCK_BIN" ] || fail "the action put $(cat "$RUNNER/path") on PATH, not pushmock's folder"
[ "$PUSHMOCK_PUSH_PORT" != 2197 ] || fail "the action did not take a free push port"
curl -sSf "$PUSHMOCK_URL/readyz" >/dev/null || fail "PUSHMOCK_URL does not answer"
# SSL_CERT_FILE is a bundle: the development CA and the system's roots.
status="$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$SSL_CERT_FILE" -X POST "$PUSHMOCK_PUSH_URL/3/device/zz")" || fail "curl did not trust the push port with SSL_CERT_FILE"
[ "$status" = 400 ] || fail "the push port answered $status"
[ "$(grep -c "BEGIN CERTIFICATE" "$SSL_CERT_FILE")" -gt 1 ] || fail "SSL_CERT_FILE holds only the development CA, not the system's roots too"
node -e 'fetch(process.env.PUSHMOCK_PUSH_URL + "/livez").then(r => process.exit(r.status === 200 ? 0 : 1), e => { console.error(e.cause || e); process.exit(1) })' \
  || fail "Node did not trust the push port with NODE_EXTRA_CA_CERTS"
SENT="$(PATH="$(cat "$RUNNER/path"):$PATH" pushmock send apns --alert "from a later step")" || fail "pushmock send from a later step: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "pushmock send from a later step: $SENT"
action PUSHMOCK_ACTION_STOP=true >>"$STEP_WORK/action.log" 2>&1 || { cat "$STEP_WORK/action.log"; fail "stop: true failed"; }
if kill -0 "$PUSHMOCK_PID" 2>/dev/null; then fail "stop: true left the server running"; fi
echo "action: started from a local archive on free ports; PUSHMOCK_URL, the CA bundle (curl), NODE_EXTRA_CA_CERTS (Node) and pushmock on PATH reach it; stop: true stops it"
