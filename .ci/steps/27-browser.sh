# The web page in Chromium (Selenium); screenshots in $CACHE/ui-screenshots.
source .ci/lib.sh
need_debug_build
need_venv "selenium==4.51.0" pywebpush py-vapid
serve UI
serve UITOKEN --inspection-token browser-secret
grep -q "web page: http://127.0.0.1:$UI_INSPECTION/" "$UI_LOG" || fail "serve does not print the web page's URL: $(head -3 "$UI_LOG")"
SHOTS="$CACHE/ui-screenshots"
rm -rf "$SHOTS"
timeout 600 "$VENV/bin/python" scripts/browser/test_ui.py "$BIN" "$UI_PUSH" "$UI_INSPECTION" "$SHOTS" "$UITOKEN_INSPECTION" \
  || fail "the browser tests failed (screenshots of the failure in $SHOTS)"
