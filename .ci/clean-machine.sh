# Shared by the bare-root and container steps (sourced): what a user does first on a clean machine.

# clean_machine_pushes PUSH_PORT INSPECTION_PORT CA P8 LABEL: an APNs push with curl and the key,
# an FCM send with the served service account, the web page and its script, all recorded. With
# INSPECTION_TOKEN set, the inspection API is asked with it.
clean_machine_pushes() {
  local token device status access
  local auth=()
  if [ -n "${INSPECTION_TOKEN:-}" ]; then auth=(-H "authorization: Bearer $INSPECTION_TOKEN"); fi
  token="$("$BIN" token apns --key "$4")"
  device="$(hex 32 cd)"
  status="$(curl -sS --http2 --cacert "$3" -o "$STEP_WORK/answer" -w '%{http_code}' -H "authorization: bearer $token" -H "apns-topic: com.example.app" \
    -H "apns-push-type: alert" -d '{"aps":{"alert":"clean machine"}}' "https://localhost:$1/3/device/$device")"
  [ "$status" = "200" ] || fail "$5: APNs push answered $status $(cat "$STEP_WORK/answer")"
  curl -sS "${auth[@]}" "http://127.0.0.1:$2/api/v1/credentials/service-account.json" -o "$STEP_WORK/served-account.json"
  jq -e --arg uri "https://localhost:$1/token" '.token_uri == $uri' "$STEP_WORK/served-account.json" >/dev/null || fail "$5: the served token_uri is not port $1"
  access="$(curl -sS --cacert "$3" --data-urlencode 'grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer' \
    --data-urlencode "assertion=$("$BIN" token fcm --service-account "$STEP_WORK/served-account.json" --audience "https://localhost:$1/token")" \
    "https://localhost:$1/token" | jq -r .access_token)"
  [ -n "$access" ] && [ "$access" != "null" ] || fail "$5: no access token from the served service account"
  status="$(curl -sS --cacert "$3" -o "$STEP_WORK/answer" -w '%{http_code}' -H "authorization: Bearer $access" -H 'content-type: application/json' \
    -d "{\"message\":{\"token\":\"$(curl -sS "${auth[@]}" "http://127.0.0.1:$2/api/v1/credentials" | jq -r .samples.fcmRegistrationToken)\",\"data\":{\"k\":\"v\"}}}" \
    "https://localhost:$1/v1/projects/pushmock-demo/messages:send")"
  [ "$status" = "200" ] || fail "$5: FCM send answered $status $(cat "$STEP_WORK/answer")"
  curl -sS "http://127.0.0.1:$2/" | grep -q "<title>PushMock" || fail "$5: the web page did not load"
  status="$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$2/ui/app.js")"
  [ "$status" = "200" ] || fail "$5: the web page's script answered $status"
  [ "$(curl -sS "${auth[@]}" "http://127.0.0.1:$2/api/v1/deliveries" | jq '[.deliveries[] | select(.status == 200)] | length')" -ge 3 ] || fail "$5: the pushes were not recorded"
}
