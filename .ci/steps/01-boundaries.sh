# Module boundaries: scripts/check-imports passes, and fails on a crossing it must catch; the
# API's public declarations are documented (scripts/check-docs), which fails on one that is not;
# and no function is over 90 lines (scripts/check-functions), which fails on one that is.
source .ci/lib.sh
bash scripts/check-imports || fail "an import crosses a module boundary"
CROSSING="$STEP_WORK/crossing"
mkdir -p "$CROSSING"
cp -r Sources "$CROSSING/Sources"
sed -i '1i import NIOCore' "$CROSSING/Sources/PushMockCore/IDGenerator.swift"
if bash scripts/check-imports "$CROSSING/Sources" 2>"$CROSSING/out"; then fail "check-imports passed an import of NIOCore in PushMockCore"; fi
grep -q "PushMockCore/IDGenerator.swift:1: imports NIOCore" "$CROSSING/out" || fail "check-imports did not name the crossing: $(cat "$CROSSING/out")"
echo 'let leak = [UInt8]().withUnsafeBufferPointer { $0.count }' >>"$CROSSING/Sources/PushMockStore/StoreError.swift"
bash scripts/check-imports "$CROSSING/Sources" 2>"$CROSSING/out" || true
grep -q "PushMockStore/StoreError.swift:[0-9]*: raw-pointer code belongs in PushMockBytes" "$CROSSING/out" \
  || fail "check-imports did not name raw-pointer code in PushMockStore: $(cat "$CROSSING/out")"
# An import its target does not declare in Package.swift (here, a module another target depends on).
cp Package.swift "$CROSSING/Package.swift"
sed -i '1i import Prometheus' "$CROSSING/Sources/PushMockStore/StoreError.swift"
bash scripts/check-imports "$CROSSING/Sources" 2>"$CROSSING/out" || true
grep -q "PushMockStore/StoreError.swift:1: imports Prometheus, which PushMockStore does not declare in Package.swift" "$CROSSING/out" \
  || fail "check-imports did not name an undeclared import: $(cat "$CROSSING/out")"
# A call that reads ICU data the release build leaves out.
echo 'let order = "a".localizedCompare("b")' >>"$CROSSING/Sources/PushMockStore/StoreError.swift"
bash scripts/check-imports "$CROSSING/Sources" 2>"$CROSSING/out" || true
grep -q "PushMockStore/StoreError.swift:[0-9]*: reads ICU data a release build leaves out" "$CROSSING/out" \
  || fail "check-imports did not name a call that needs ICU data the release build lacks: $(cat "$CROSSING/out")"
note "check-imports: clean, and it names the four planted crossings"
bash scripts/check-docs || fail "a public declaration of the API has no doc comment"
mkdir -p "$CROSSING/Undocumented"
printf 'public struct Undocumented {}\n' >"$CROSSING/Undocumented/Undocumented.swift"
if bash scripts/check-docs "$CROSSING/Undocumented" 2>"$CROSSING/out"; then fail "check-docs passed an undocumented public struct"; fi
grep -q "Undocumented.swift:1: public declaration without a doc comment" "$CROSSING/out" || fail "check-docs did not name it: $(cat "$CROSSING/out")"
note "check-docs: the API's public declarations are documented, and a planted undocumented one is named"
bash scripts/check-functions || fail "a function is over 90 lines: split it into named steps"
mkdir -p "$CROSSING/Long"
{ echo 'func tooLong() {'; for i in $(seq 1 95); do echo "    print($i)"; done; echo '}'; } >"$CROSSING/Long/Long.swift"
if bash scripts/check-functions "$CROSSING/Long" 2>"$CROSSING/out"; then fail "check-functions passed a 97-line function"; fi
grep -q "Long.swift:1: 97 lines" "$CROSSING/out" || fail "check-functions did not name it: $(cat "$CROSSING/out")"
note "check-functions: no function over 90 lines, and a planted long one is named"
bash scripts/layout-guard --self-check || fail "scripts/layout-guard's self-check failed"
# No CI or script pipes into a reader that stops early (grep -q): under pipefail, the writer's
# SIGPIPE (or curl's write error) fails the check now and then although the text was there.
# Capture the output first, then grep -q <<<"$output" or a file.
early_readers() { grep -rnE '\|[[:space:]]*grep[[:space:]]+-[a-zA-Z]*q' "$@" | grep -v '^[^:]*:[0-9]*:[[:space:]]*#' || true; }
found="$(early_readers .ci scripts)"
[ -z "$found" ] || fail "a pipe into grep -q (capture the output first):"$'\n'"$found"
printf 'curl -sS "$URL" | %s\n' 'grep -q "<title>"' >"$CROSSING/early.sh"
grep -q "early.sh:1:" <<<"$(early_readers "$CROSSING/early.sh" /dev/null)" || fail "the grep -q pipe check missed a planted one"
note "no pipe into grep -q in .ci or scripts, and a planted one is found"
