# The release archive and container image: scripts/package --image (a release build, kept in the
# cache, with the Swift runtime, nghttp2 and SQLite linked statically).
source .ci/lib.sh
need_package
cat "$RUN_STATE/package.log"
# (The listing goes to a file: grep -q stopping early would make tar fail under pipefail.)
tar -tzf "$ARCHIVE" >"$STEP_WORK/archive.list"
grep -qE "^$PM_NAME/PushMock_PushMockInspection.resources/(Resources/)?ui/index.html$" "$STEP_WORK/archive.list" || fail "the archive lacks the web UI"
grep -q "^$PM_NAME/THIRD-PARTY-NOTICES.md$" "$STEP_WORK/archive.list" || fail "the archive lacks the license notices"
# The README's links work inside the archive: every docs/… and Examples/… it names is there.
for linked in $(grep -oE '\]\((docs|Examples)/[^)#]+' README.md | sed 's/^](//' | sort -u); do
  grep -q "^$PM_NAME/$linked$" "$STEP_WORK/archive.list" || fail "the README links to $linked, which the archive lacks"
done
# The helpers as their ecosystems' packages, installed from the archive as
# docs/testing-from-any-language.md says, each with nothing else at hand (no index, no registry, no
# module proxy): each finds the push that the archive's own pushmock sent to the archive's server.
PACKAGES="$PM_NAME/packages"
GO_MODULE=github.com/pushmock/pushmock/clients/go
for file in "python/pushmock-$PM_VERSION-py3-none-any.whl" "python/pushmock-$PM_VERSION.tar.gz" "js/pushmock-$PM_VERSION.tgz" \
  "go/$GO_MODULE/@v/list" "go/$GO_MODULE/@v/v$PM_VERSION.info" "go/$GO_MODULE/@v/v$PM_VERSION.mod" "go/$GO_MODULE/@v/v$PM_VERSION.zip"; do
  grep -q "^$PACKAGES/$file$" "$STEP_WORK/archive.list" || fail "the archive lacks packages/$file"
done
UNPACKED="$STEP_WORK/unpacked"
mkdir -p "$UNPACKED"
tar -xzf "$ARCHIVE" -C "$UNPACKED"
PACKAGES="$UNPACKED/$PACKAGES"
tar -tzf "$PACKAGES/python/pushmock-$PM_VERSION.tar.gz" >"$STEP_WORK/sdist.list" || fail "cannot list the sdist"
grep -q "^pushmock-$PM_VERSION/src/pushmock/py.typed$" "$STEP_WORK/sdist.list" || fail "the sdist lacks py.typed"
# Under a German locale: the release binary has ICU's data for English only (scripts/icu-data.swift).
# (Set by sh for the server alone: bash would warn that this machine has no such locale.)
printf '#!/bin/sh\nLANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 exec "%s" "$@"\n' "$UNPACKED/$PM_NAME/pushmock" >"$STEP_WORK/pushmock-de"
chmod +x "$STEP_WORK/pushmock-de"
BIN="$STEP_WORK/pushmock-de" serve ARCHIVED --data-dir "$STEP_WORK/archived-data"
"$UNPACKED/$PM_NAME/pushmock" send apns --url "https://localhost:$ARCHIVED_PUSH" --inspection-url "http://127.0.0.1:$ARCHIVED_INSPECTION" \
  --alert "for the packages" >/dev/null || fail "the archive's pushmock send apns"
export PUSHMOCK_URL="http://127.0.0.1:$ARCHIVED_INSPECTION"
# Python: the wheel, in a new environment, with no package index.
python3 -m venv "$STEP_WORK/python" || fail "python3 -m venv"
"$STEP_WORK/python/bin/pip" install -q --disable-pip-version-check --no-index "$PACKAGES/python/pushmock-$PM_VERSION-py3-none-any.whl" \
  || fail "pip install of the archive's wheel"
"$STEP_WORK/python/bin/python" - <<'PY' || fail "the Python package from the archive"
import importlib.metadata, importlib.resources, os
from pushmock import PushMock
assert importlib.resources.files("pushmock").joinpath("py.typed").is_file(), "no py.typed"
assert any(e.value == "pushmock.pytest_plugin" for e in importlib.metadata.entry_points(group="pytest11")), "no pytest plugin"
[push] = PushMock(os.environ["PUSHMOCK_URL"]).deliveries(service="apns")
assert push["payload"]["aps"]["alert"] == "for the packages", push
PY
# JavaScript: the npm tarball, installed offline into a new project.
mkdir -p "$STEP_WORK/js"
(cd "$STEP_WORK/js" && echo '{"name": "app", "private": true, "type": "module"}' >package.json \
  && npm install --offline --no-audit --no-fund --silent "$PACKAGES/js/pushmock-$PM_VERSION.tgz" \
  && node --input-type=module -e "
    const { PushMock } = await import('pushmock');
    const [push] = await new PushMock({ inspectionUrl: process.env.PUSHMOCK_URL }).deliveries({ service: 'apns' });
    if (push?.payload?.aps?.alert !== 'for the packages') { console.error(push); process.exit(1); }
  ") || fail "the JavaScript package from the archive"
# Go: the module at its version, from the archive's module proxy, in a new module.
mkdir -p "$STEP_WORK/go"
cat >"$STEP_WORK/go/app_test.go" <<'GO'
package app

import (
	"context"
	"os"
	"testing"

	"github.com/pushmock/pushmock/clients/go"
)

func TestTheArchivedModule(t *testing.T) {
	pushes, err := pushmock.New(os.Getenv("PUSHMOCK_URL")).Deliveries(context.Background(), pushmock.Query{Service: "apns"})
	if err != nil || len(pushes) != 1 {
		t.Fatalf("%v %v", pushes, err)
	}
}
GO
(cd "$STEP_WORK/go" && export GOPROXY="file://$PACKAGES/go" GONOSUMDB=github.com/pushmock/pushmock GOFLAGS=-mod=mod GOPATH="$STEP_WORK/gopath" \
  && go mod init example.com/app >/dev/null 2>&1 && go get "$GO_MODULE@v$PM_VERSION" >/dev/null 2>&1 && go test -count=1 . >"$STEP_WORK/go.log" 2>&1) \
  || { cat "$STEP_WORK/go.log" 2>/dev/null; fail "the Go module from the archive's proxy"; }
grep -q "^require $GO_MODULE v$PM_VERSION" "$STEP_WORK/go/go.mod" || fail "go get did not take v$PM_VERSION: $(cat "$STEP_WORK/go/go.mod")"
note "archive $(du -h "$ARCHIVE" | cut -f1) (binary, web UI, docs/, the three helpers as a wheel and sdist, an npm tarball and a Go module proxy, each installed from it with no registry and used), image $(du -h "$IMAGE_TAR" | cut -f1) (saved)"
