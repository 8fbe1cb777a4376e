# The inspection API against its openapi.yaml (schemathesis from PyPI, pinned: the outcome should
# change when PushMock or its openapi.yaml changes, not with a release).
source .ci/lib.sh
need_debug_build
need_venv "schemathesis==4.32.5" "hypothesis==6.170.15"
serve CONTRACT
TOKEN="$("$BIN" token apns)"
curl -sS -o /dev/null --cacert Certs/ca.pem -H "authorization: bearer $TOKEN" -H "apns-topic: com.example.app" \
  --data '{"aps":{"alert":"contract"}}' "https://localhost:$CONTRACT_PUSH/3/device/$(printf 'ab%.0s' $(seq 32))"
scripts/contract/check "$CONTRACT_INSPECTION" "$VENV/bin/python" >"$STEP_WORK/contract.log" 2>&1 || { tail -80 "$STEP_WORK/contract.log"; fail "the inspection API does not match openapi.yaml"; }
grep -E "generated|passed" "$STEP_WORK/contract.log" | tail -2
