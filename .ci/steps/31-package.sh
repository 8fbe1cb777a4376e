# The release archive and container image: scripts/package --image (a release build, kept in the
# cache, with the Swift runtime, nghttp2 and SQLite linked statically).
source .ci/lib.sh
need_package
cat "$RUN_STATE/package.log"
# (The listing goes to a file: grep -q stopping early would make tar fail under pipefail.)
tar -tzf "$ARCHIVE" >"$STEP_WORK/archive.list"
grep -qE "^$PM_NAME/PushMock_PushMockInspection.resources/(Resources/)?ui/index.html$" "$STEP_WORK/archive.list" || fail "the archive lacks the web UI"
grep -q "^$PM_NAME/THIRD-PARTY-NOTICES.md$" "$STEP_WORK/archive.list" || fail "the archive lacks the license notices"
note "archive $(du -h "$ARCHIVE" | cut -f1), image $(du -h "$IMAGE_TAR" | cut -f1) (saved)"
