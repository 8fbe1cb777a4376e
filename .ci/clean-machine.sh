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
  page="$(curl -sS "http://127.0.0.1:$2/")" || fail "$5: the web page did not answer"
  grep -q "<title>PushMock" <<<"$page" || fail "$5: the web page did not load"
  status="$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$2/ui/app.js")"
  [ "$status" = "200" ] || fail "$5: the web page's script answered $status"
  [ "$(curl -sS "${auth[@]}" "http://127.0.0.1:$2/api/v1/deliveries" | jq '[.deliveries[] | select(.status == 200)] | length')" -ge 3 ] || fail "$5: the pushes were not recorded"
}

# podman, with the CI run's lock (descriptor 9) closed: the container's monitor (conmon) outlives
# the command and would otherwise hold the lock, so that no later CI run could start.
podman_ci() { podman --runtime runc --cgroup-manager=cgroupfs "$@" 9>&-; }

# container_serves IMAGE: runs IMAGE as the container pushmock-ci under podman (runc, cgroupfs),
# --network host on ports 2397 and 2398, and checks what a user does first: pushes, the page,
# healthcheck (exec and the image's HEALTHCHECK), the version, the non-root user, the inspection
# token. Sets CONTAINER_SUMMARY. The image's HEALTHCHECK asks the port PUSHMOCK_INSPECTION_PORT
# names, so the ports are named (and checked free) rather than asked of the kernel.
container_serves() {
  local image="$1" port run_start ready_ms status
  for port in 2397 2398; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is taken; the container check needs it"; fi
  done
  podman_ci rm -f pushmock-ci >/dev/null 2>&1 || true
  # A failing check leaves no container running.
  on_exit 'podman_ci rm -f pushmock-ci >/dev/null 2>&1'
  run_start=$(date +%s%N)
  podman_ci run -d --name pushmock-ci --network host --ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit nproc=4096:4096 \
    -e PUSHMOCK_PORT=2397 -e PUSHMOCK_INSPECTION_PORT=2398 "$image" >/dev/null || fail "podman run $image"
  for _ in $(seq 1200); do curl -sf http://127.0.0.1:2398/readyz >/dev/null 2>&1 && break; sleep 0.05; done
  curl -sf http://127.0.0.1:2398/readyz >/dev/null || { podman_ci logs pushmock-ci; fail "$image: the container never became ready"; }
  ready_ms=$((($(date +%s%N) - run_start) / 1000000))
  # The image listens beyond loopback, so its inspection API wants the token kept in /data.
  status="$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:2398/api/v1/credentials/apns-key.p8)"
  [ "$status" = "401" ] || fail "$image: the inspection API answered $status without its token"
  # The token is printed at start (the image has no shell or cat to read the file with).
  # (The log reaches podman a moment after the server is ready: read until both lines are in.)
  for _ in $(seq 300); do
    podman_ci logs pushmock-ci >"$STEP_WORK/container-start.log" 2>&1
    grep -q "kept in /data/certs/inspection-token" "$STEP_WORK/container-start.log" && break
    sleep 0.1
  done
  INSPECTION_TOKEN="$(sed -n 's/.*Authorization: Bearer \([0-9a-f]\{64\}\).*/\1/p' "$STEP_WORK/container-start.log" | tail -1)"
  [ -n "$INSPECTION_TOKEN" ] || fail "$image: the start did not print its inspection token"
  grep -q "kept in /data/certs/inspection-token" "$STEP_WORK/container-start.log" || fail "$image: the start did not say where the inspection token is kept"
  curl -sS -H "authorization: Bearer $INSPECTION_TOKEN" http://127.0.0.1:2398/api/v1/credentials/ca.pem -o "$STEP_WORK/container-ca.pem"
  curl -sS -H "authorization: Bearer $INSPECTION_TOKEN" http://127.0.0.1:2398/api/v1/credentials/apns-key.p8 -o "$STEP_WORK/container-key.p8"
  INSPECTION_TOKEN="$INSPECTION_TOKEN" clean_machine_pushes 2397 2398 "$STEP_WORK/container-ca.pem" "$STEP_WORK/container-key.p8" "container $image"
  unset INSPECTION_TOKEN
  podman_ci exec pushmock-ci /usr/local/bin/pushmock healthcheck || fail "$image: pushmock healthcheck inside the container"
  podman_ci healthcheck run pushmock-ci || fail "$image: the image's HEALTHCHECK"
  [ "$(podman_ci exec pushmock-ci /usr/local/bin/pushmock --version)" = "$PM_VERSION" ] || fail "$image: the version"
  [ "$(podman_ci inspect pushmock-ci --format '{{.Config.User}}')" = "10001:10001" ] || fail "$image: the container does not run as the non-root user"
  podman_ci rm -f pushmock-ci >/dev/null
  CONTAINER_SUMMARY="ready $ready_ms ms after podman run; pushes, page, healthcheck (exec and HEALTHCHECK) as on the bare root; image $(podman_ci image inspect "$image" --format '{{.Size}}') bytes"
}
