# The image from its saved archive under podman (runc, cgroupfs), --network host, PUSHMOCK_PORT and
# PUSHMOCK_INSPECTION_PORT; then the compose recipe (Examples/compose/compose.yaml) under podman-compose.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
# The image's HEALTHCHECK asks the port PUSHMOCK_INSPECTION_PORT names, so this step names its two
# ports (and checks that nothing holds them) rather than asking the kernel for them.
for port in 2397 2398; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "port $port is taken; the container step needs it"; fi
done
# podman, with the CI run's lock (descriptor 9) closed: the container's monitor (conmon) outlives
# the command and would otherwise hold the lock, so that no later CI run could start.
podman_ci() { podman --runtime runc --cgroup-manager=cgroupfs "$@" 9>&-; }
PODMAN=(podman_ci)
"${PODMAN[@]}" rm -f pushmock-ci >/dev/null 2>&1 || true
# A failing check leaves no container running.
on_exit 'podman_ci rm -f pushmock-ci >/dev/null 2>&1'
"${PODMAN[@]}" rmi -f "pushmock:$PM_VERSION" >/dev/null 2>&1 || true
"${PODMAN[@]}" load -q -i "$IMAGE_TAR" >/dev/null || fail "podman load"
# Each package build makes a new image under the same tag; the one it replaced is dropped here.
"${PODMAN[@]}" image prune -f >/dev/null 2>&1 || true
run_start=$(date +%s%N)
"${PODMAN[@]}" run -d --name pushmock-ci --network host --ulimit "nofile=$(ulimit -Sn):$(ulimit -Hn)" --ulimit nproc=4096:4096 \
  -e PUSHMOCK_PORT=2397 -e PUSHMOCK_INSPECTION_PORT=2398 "pushmock:$PM_VERSION" >/dev/null || fail "podman run"
for _ in $(seq 1200); do curl -sf http://127.0.0.1:2398/readyz >/dev/null 2>&1 && break; sleep 0.05; done
curl -sf http://127.0.0.1:2398/readyz >/dev/null || { "${PODMAN[@]}" logs pushmock-ci; fail "the container never became ready"; }
ready_ms=$(( ($(date +%s%N) - run_start) / 1000000 ))
# The image listens beyond loopback, so its inspection API wants the token kept in /data.
status="$(curl -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:2398/api/v1/credentials/apns-key.p8)"
[ "$status" = "401" ] || fail "the image's inspection API answered $status without its token"
# The token is printed at start (the image has no shell or cat to read the file with).
INSPECTION_TOKEN="$("${PODMAN[@]}" logs pushmock-ci 2>&1 | sed -n 's/.*Authorization: Bearer \([0-9a-f]\{64\}\).*/\1/p' | tail -1)"
[ -n "$INSPECTION_TOKEN" ] || fail "the image's start did not print its inspection token"
"${PODMAN[@]}" logs pushmock-ci 2>&1 | grep -q "kept in /data/certs/inspection-token" || fail "the start did not say where the inspection token is kept"
curl -sS -H "authorization: Bearer $INSPECTION_TOKEN" http://127.0.0.1:2398/api/v1/credentials/ca.pem -o "$STEP_WORK/container-ca.pem"
curl -sS -H "authorization: Bearer $INSPECTION_TOKEN" http://127.0.0.1:2398/api/v1/credentials/apns-key.p8 -o "$STEP_WORK/container-key.p8"
INSPECTION_TOKEN="$INSPECTION_TOKEN" clean_machine_pushes 2397 2398 "$STEP_WORK/container-ca.pem" "$STEP_WORK/container-key.p8" "container"
"${PODMAN[@]}" exec pushmock-ci /usr/local/bin/pushmock healthcheck || fail "pushmock healthcheck inside the container"
"${PODMAN[@]}" healthcheck run pushmock-ci || fail "the image's HEALTHCHECK"
[ "$("${PODMAN[@]}" exec pushmock-ci /usr/local/bin/pushmock --version)" = "$PM_VERSION" ] || fail "the image's version"
[ "$("${PODMAN[@]}" inspect pushmock-ci --format '{{.Config.User}}')" = "10001:10001" ] || fail "the container does not run as the non-root user"
"${PODMAN[@]}" rm -f pushmock-ci >/dev/null
CONTAINER_SUMMARY="ready $ready_ms ms after podman run; pushes, page, healthcheck (exec and HEALTHCHECK) as on the bare root; image $("${PODMAN[@]}" image inspect "pushmock:$PM_VERSION" --format '{{.Size}}') bytes"

# The compose recipe as written (Examples/compose/compose.yaml, shown in docs/configuration.md),
# under podman-compose: the app container sends to https://pushmock:2197 with the CA it takes from
# http://pushmock:2198 by the service name. Podman 4.3 ignores `condition: service_healthy` (it
# says so), so this step waits for the health check itself before it runs the app.
need_venv podman-compose
cat >"$STEP_WORK/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=$(ulimit -Sn):$(ulimit -Hn)", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
CONF
export CONTAINERS_CONF="$STEP_WORK/containers.conf"
grep -q "image: pushmock:$PM_VERSION" Examples/compose/compose.yaml || fail "Examples/compose/compose.yaml does not name the image pushmock:$PM_VERSION"
compose() { "$VENV/bin/podman-compose" -p pushmock-ci-compose -f Examples/compose/compose.yaml "$@" 9>&-; }
compose down -v >/dev/null 2>&1 || true
on_exit 'compose down -v >/dev/null 2>&1'
compose up -d pushmock >"$STEP_WORK/compose-up.log" 2>&1 || { cat "$STEP_WORK/compose-up.log"; fail "podman-compose up pushmock"; }
healthy=""
for _ in $(seq 600); do
  if podman_ci healthcheck run pushmock-ci-compose_pushmock_1 >/dev/null 2>&1; then healthy=1; break; fi
  sleep 0.1
done
[ -n "$healthy" ] || { podman_ci logs pushmock-ci-compose_pushmock_1; fail "the compose recipe's pushmock never became healthy"; }
SENT="$(compose run --rm app 2>"$STEP_WORK/compose-app.log")" || { cat "$STEP_WORK/compose-app.log"; echo "$SENT"; fail "the compose recipe's app could not send to https://pushmock:2197"; }
echo "$SENT" | grep -q "^200 apns-id: " || fail "the compose recipe's app: no 200: $SENT"
echo "$SENT" | grep -q "^recorded: accepted" || fail "the compose recipe's app did not read the recording by the service name: $SENT"
compose down -v >/dev/null 2>&1 || true
echo "container: $CONTAINER_SUMMARY"
echo "compose recipe (podman-compose): the app sent to https://pushmock:2197 with the CA from http://pushmock:2198, and read the recording there"
