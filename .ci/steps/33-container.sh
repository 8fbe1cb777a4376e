# The image from its saved archive under podman (runc, cgroupfs), --network host, PUSHMOCK_PORT and
# PUSHMOCK_INSPECTION_PORT; then the compose recipe (Examples/compose/compose.yaml) under podman-compose.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
podman_ci rmi -f "pushmock:$PM_VERSION" >/dev/null 2>&1 || true
podman_ci load -q -i "$IMAGE_TAR" >/dev/null || fail "podman load"
# Each package build makes a new image under the same tag; the one it replaced is dropped here.
podman_ci image prune -f >/dev/null 2>&1 || true
container_serves "pushmock:$PM_VERSION"

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
grep -q "^200 apns-id: " <<<"$SENT" || fail "the compose recipe's app: no 200: $SENT"
grep -q "^recorded: accepted" <<<"$SENT" || fail "the compose recipe's app did not read the recording by the service name: $SENT"
compose down -v >/dev/null 2>&1 || true
echo "container: $CONTAINER_SUMMARY"
echo "compose recipe (podman-compose): the app sent to https://pushmock:2197 with the CA from http://pushmock:2198, and read the recording there"
