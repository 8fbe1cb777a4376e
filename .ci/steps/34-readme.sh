# The README's quick start as written, with the release archive's pushmock, in an empty folder with
# an empty HOME (its default ports, as the README gives them).
source .ci/lib.sh
need_package
mkdir -p "$STEP_WORK/archive"
tar -C "$STEP_WORK/archive" -xzf "$ARCHIVE"
scripts/check-readme "$STEP_WORK/archive/$PM_NAME/pushmock" || fail "the README's quick start"
