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
# The helpers install from the archive, as the docs say.
for file in clients/python/pyproject.toml clients/python/src/pushmock/py.typed clients/js/package.json clients/js/index.d.ts clients/go/go.mod; do
  grep -q "^$PM_NAME/$file$" "$STEP_WORK/archive.list" || fail "the archive lacks $file"
done
UNPACKED="$STEP_WORK/unpacked"
mkdir -p "$UNPACKED"
tar -xzf "$ARCHIVE" -C "$UNPACKED"
need_venv
"$VENV/bin/pip" install -q --disable-pip-version-check --target "$STEP_WORK/site" "$UNPACKED/$PM_NAME/clients/python" >/dev/null \
  || fail "pip install of the archive's clients/python failed"
[ -f "$STEP_WORK/site/pushmock/py.typed" ] || fail "the Python helper installed from the archive has no py.typed"
(cd "$UNPACKED" && node -e "import('./$PM_NAME/clients/js/index.js').then(m => process.exit(typeof m.startPushMock === 'function' ? 0 : 1))") \
  || fail "the archive's clients/js does not import"
note "archive $(du -h "$ARCHIVE" | cut -f1) (binary, web UI, docs/, the three helpers; pip install from it works), image $(du -h "$IMAGE_TAR" | cut -f1) (saved)"
