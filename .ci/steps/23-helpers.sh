# The language helpers against real servers, each twice: against a running server (PUSHMOCK_URL),
# and starting its own (PUSHMOCK_BIN): Python (pytest, the plugin as a user has it, recipes),
# JavaScript (node --test) and Go (go test).
# ci: beside
source .ci/lib.sh
need_debug_build
# Installed from a copy: pip builds in the source folder (build/, *.egg-info), which the release's
# sdist is made from meanwhile.
tar -C clients -cf - --exclude=__pycache__ --exclude='*.egg-info' --exclude=build --exclude=.pytest_cache python | tar -C "$STEP_WORK" -xf -
need_venv pytest "$STEP_WORK/python"
# (a folder of the same version is not installed again unless forced)
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$STEP_WORK/python" || fail "pip install ./clients/python failed"
command -v node >/dev/null || fail "node is not installed (apt-get install nodejs)"
command -v go >/dev/null || fail "go is not installed (apt-get install golang-go)"
HELP="$STEP_WORK/helpers"
mkdir -p "$HELP"
# The helpers' temporary files go here: none of their credential folders may be left behind.
export TMPDIR="$HELP/tmp"
mkdir -p "$TMPDIR"
serve HELP --data-dir "$HELP/data"
HELP_URL="http://127.0.0.1:$HELP_INSPECTION"
curl -sS "$HELP_URL/api/v1/credentials/ca.pem" -o "$HELP/ca.pem"
# Each helper twice: against the running server (PUSHMOCK_URL), and starting its own (PUSHMOCK_BIN).
(cd clients/python && PUSHMOCK_URL="$HELP_URL" "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests recipes/test_recipes.py) || fail "the Python helper's tests and recipes"
(cd clients/python/plugin-example && PUSHMOCK_BIN="$BIN" "$VENV/bin/python" -m pytest -q -p no:cacheprovider .) || fail "the pytest plugin, used as a user would"
# The plugin's own options instead of the environment.
(cd clients/python/plugin-example && env -u PUSHMOCK_BIN -u PUSHMOCK_URL "$VENV/bin/python" -m pytest -q -p no:cacheprovider --pushmock-binary "$BIN" .) \
  || fail "the pytest plugin with --pushmock-binary"
(cd clients/python/plugin-example && env -u PUSHMOCK_BIN -u PUSHMOCK_URL "$VENV/bin/python" -m pytest -q -p no:cacheprovider --pushmock-url "$HELP_URL" .) \
  || fail "the pytest plugin with --pushmock-url"
"$VENV/bin/python" -c "import importlib.resources as r; assert r.files('pushmock').joinpath('py.typed').is_file()" \
  || fail "the installed Python helper has no py.typed (its type hints are not offered to type checkers)"
(cd clients/js && PUSHMOCK_URL="$HELP_URL" NODE_EXTRA_CA_CERTS="$HELP/ca.pem" node --test test/scenario.test.js) || fail "the JavaScript helper against a running server"
(cd clients/js && env -u NODE_EXTRA_CA_CERTS -u PUSHMOCK_URL PUSHMOCK_BIN="$BIN" node --test test/) || fail "the JavaScript helper with startPushMock"
# The declarations type-check against a use of every one of them (TypeScript from Debian, which has
# no @types/node: test/typecheck/node-shim.d.ts stands in for the two Node types they name).
command -v tsc >/dev/null || fail "tsc is not installed (apt-get install node-typescript)"
(cd clients/js && tsc --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext test/typecheck/node-shim.d.ts test/typecheck/usage.ts) \
  || fail "clients/js/index.d.ts does not type-check against test/typecheck/usage.ts"
(cd clients/go && PUSHMOCK_URL="$HELP_URL" GOFLAGS=-mod=mod GOPROXY=off go test -count=1 ./...) || fail "the Go helper against a running server"
# (-v lists each test; the whole output, with a failing test's message, is shown when one fails)
(cd clients/go && PUSHMOCK_BIN="$BIN" GOFLAGS=-mod=mod GOPROXY=off go test -count=1 -v ./... >"$HELP/go-start.log" 2>&1) \
  || { cat "$HELP/go-start.log"; fail "the Go helper with Start"; }
grep -E '^(--- |ok|FAIL|PASS)' "$HELP/go-start.log"
unformatted="$(cd clients/go && gofmt -l .)"
[ -z "$unformatted" ] || fail "gofmt would change $unformatted"
left="$(find "$TMPDIR" -maxdepth 1 -name 'pushmock-credentials-*' | head -5)"
[ -z "$left" ] || fail "a helper left its credentials folder behind: $left"
note "helpers: no credentials folder left in TMPDIR"
