# Shared by .ci/run and every step under .ci/steps/ (sourced, never run).
#
# A step runs in its own bash process, from the source tree CI builds ($SRC), in a work folder of
# its own ($STEP_WORK). Its servers bind ports the kernel picks (`serve NAME …`), and whatever it
# started is stopped when it ends. What it needs that takes long is made once per CI run and
# reused by the steps after it: the debug build (`need_debug_build`), the release archive and
# image (`need_package`, from the one release build, `need_release_build`), a Python environment (`need_venv`).

set -euo pipefail

# Where builds and caches live between runs: a second run on the same machine recompiles only what
# changed. SwiftPM keeps build products by the sources' absolute paths and modification times, so
# CI builds from a copy of the clone at a fixed path ($SRC) where only changed files are rewritten.
CACHE="${PUSHMOCK_CI_CACHE:-/var/cache/pushmock-ci}"
SRC="$CACHE/src"
DEBUG_BUILD="$CACHE/build/debug"
RUN_STATE="${CI_RUN_STATE:-$CACHE/run}"

fail() {
  printf '\nFAIL: %s\n' "$*" >&2
  exit 1
}

note() { printf '%s\n' "$*"; }

# The debug build's pushmock (built by need_debug_build).
BIN="$DEBUG_BUILD/debug/pushmock"

# Fails unless the step that makes `what` succeeded in this run; makes it when run alone.
# need NAME COMMAND…: runs COMMAND once per CI run, recording success or failure in $RUN_STATE.
need() {
  local name="$1"
  shift
  if [ -f "$RUN_STATE/$name.ok" ]; then return 0; fi
  if [ -f "$RUN_STATE/$name.failed" ]; then fail "this step needs $name, which failed earlier in this run"; fi
  if "$@"; then
    touch "$RUN_STATE/$name.ok"
  else
    touch "$RUN_STATE/$name.failed"
    fail "this step needs $name, which failed"
  fi
}

# The debug build with the tests, into $DEBUG_BUILD; its log in $RUN_STATE/debug-build.log.
debug_build() {
  # A change inside a type that another module sees through a re-export would leave that module
  # compiled against the old layout (scripts/layout-guard says why): those builds start afresh.
  (cd "$SRC" && bash scripts/layout-guard "$DEBUG_BUILD" debug) 2>&1 | tee "$RUN_STATE/layout-guard.log"
  if ! (cd "$SRC" && swift build --build-tests --scratch-path "$DEBUG_BUILD") >"$RUN_STATE/debug-build.log" 2>&1; then
    # SwiftPM's incremental build can keep an object file that still calls a public function whose
    # default arguments changed in another module (the caller is not recompiled): the link then
    # fails with "undefined reference". Our own modules are compiled afresh once, the
    # dependencies' objects kept.
    if grep -q "undefined reference" "$RUN_STATE/debug-build.log"; then
      note "the warm build's link failed on stale objects: compiling PushMock's own modules afresh"
      local module
      for module in "$SRC"/Sources/* "$SRC"/Tests/*; do rm -rf "$DEBUG_BUILD/debug/$(basename "$module").build"; done
      (cd "$SRC" && swift build --build-tests --scratch-path "$DEBUG_BUILD") >"$RUN_STATE/debug-build.log" 2>&1 && return 0
    fi
    grep -E "error:" "$RUN_STATE/debug-build.log" | sort -u | head -50 >&2
    return 1
  fi
}
need_debug_build() { need debug-build debug_build; }

# A Python virtual environment in the cache, with what `pip install` is given (pinned where the
# outcome should not change with a release).
VENV="$CACHE/venv"
need_venv() {
  # One pip at a time in the environment (two lanes may ask at once).
  local lock
  exec {lock}>"$CACHE/venv.lock"
  flock "$lock"
  if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV" || fail "python3 -m venv failed"; fi
  if [ $# -gt 0 ]; then
    "$VENV/bin/pip" install -q --disable-pip-version-check "$@" || fail "pip install $* failed"
  fi
  exec {lock}>&-
}

# The release archive and container image (scripts/package --image), once per run, from the
# release build (need_release_build); their paths in ARCHIVE, PM_NAME, PM_VERSION and IMAGE_TAR.
package_build() {
  local started python="$CACHE/venv-package/bin/python"
  need_release_build
  started=$(date +%s)
  # The helpers' packages are built with `build` (python -m build), in an environment of their own
  # (this may run in the background while a step installs into $VENV).
  if ! "$python" -c "import build" 2>/dev/null; then
    python3 -m venv "$CACHE/venv-package" && "$python" -m pip install -q --disable-pip-version-check build \
      || { echo "cannot install Python's build into $CACHE/venv-package" >&2; return 1; }
  fi
  (cd "$SRC" && PYTHON="$python" PUSHMOCK_PACKAGE_SCRATCH="$CACHE/build/package" scripts/package --image --prebuilt "$RELEASE_STAGE") \
    >"$RUN_STATE/package.out" 2>"$RUN_STATE/package.log" \
    || { cat "$RUN_STATE/package.log" >&2; return 1; }
  tail -1 "$RUN_STATE/package.out" >"$RUN_STATE/archive-path"
  echo "release built in $(cat "$RUN_STATE/release.seconds") s, packaged in $(($(date +%s) - started)) s" >>"$RUN_STATE/package.log"
}
need_package() {
  # .ci/run may have started it in the background already (see background_package).
  wait_background package
  need package package_build
  ARCHIVE="$(cat "$RUN_STATE/archive-path")"
  [ -f "$ARCHIVE" ] || fail "no archive at '$ARCHIVE'"
  PM_NAME="$(basename "$ARCHIVE" .tar.gz)"
  PM_VERSION="$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' "$SRC/Sources/pushmock/PushMockCommand.swift")"
  IMAGE_TAR="$SRC/dist/pushmock-$PM_VERSION-image.tar"
}

# Started by .ci/run before the first step, when a step that needs the release build is to run: the
# release build then overlaps the debug build's idle moments, the tests, and the steps that mostly
# wait on servers and browsers, which leave a core idle. It runs at the lowest priority (nice 19), so it takes only
# what they leave: the steps' own timing checks (the attack suite's canary, the outage's
# once-a-second lines) see the machine as they would without it. need_package waits for it.
background_package() { in_background package package_build; }

# The cgroup (v1 cpu controller) of the builds behind the steps, with the smallest CPU share; empty
# where /sys/fs/cgroup/cpu is not writable.
BACKGROUND_CGROUP=/pushmock-ci-background
background_cgroup() {
  local group="/sys/fs/cgroup/cpu$BACKGROUND_CGROUP"
  mkdir -p "$group" 2>/dev/null && echo 2 >"$group/cpu.shares" 2>/dev/null && echo "$group"
}

# in_background NAME FUNCTION: runs `need NAME FUNCTION` behind the steps, at nice 19 and in the
# background cgroup; $RUN_STATE/NAME.running exists until it ends (wait_background NAME).
in_background() {
  touch "$RUN_STATE/$1.running"
  (
    trap 'rm -f "$RUN_STATE/$1.running"' EXIT
    renice -n 19 -p $BASHPID >/dev/null
    # SwiftPM starts its compilers at the default priority again (nice and SCHED_IDLE alike), so
    # nice alone does not keep this build behind the steps; where the cgroup v1 cpu controller is
    # writable, a group with the smallest share does (its compilers stay in it).
    if group="$(background_cgroup)"; then echo $BASHPID >"$group/cgroup.procs" 2>/dev/null || true; fi
    need "$1" "$2"
  ) >"$RUN_STATE/$1.background.log" 2>&1 </dev/null &
}
wait_background() {
  while [ -f "$RUN_STATE/$1.running" ]; do sleep 1; done
}

# The release build, once per run: `podman build .` from the clone, as a user runs it, into the
# image pushmock:from-source (checked by .ci/steps/36-image-from-source.sh). Its builder stage
# compiles the static release build (scripts/package) inside a Swift image made here; its build
# folder is a cache mount podman keeps, so later runs recompile only what changed. The release
# archive and image (package_build) are made from that image's /opt/pushmock, copied out to
# $RELEASE_STAGE: one release build serves both. Its containers go in the background cgroup
# (--cgroup-parent), where their compilers stay.
RELEASE_STAGE="$RUN_STATE/release-stage"
release_build() {
  local started toolchain swift_version packages builder root mirror
  started=$(date +%s)
  source "$SRC/.ci/clean-machine.sh"
  command -v podman >/dev/null || { echo "podman is not installed (apt-get install podman runc)" >&2; return 1; }
  toolchain="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
  [ -x "$toolchain/usr/bin/swift" ] || { echo "cannot find the Swift toolchain's folder from $(command -v swift)" >&2; return 1; }
  swift_version="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
  # What the official Swift image for Debian 12 installs, and the -dev packages PushMock links.
  packages="binutils,gcc,g++,git,libc6-dev,libstdc++-12-dev,libgcc-12-dev,libcurl4-openssl-dev,libxml2-dev,libedit2,libncurses-dev,libsqlite3-dev,libnghttp2-dev,zlib1g-dev,uuid-dev,pkg-config,tzdata,ca-certificates,libpython3.11"
  builder="localhost/pushmock-swift-builder:$swift_version-$(echo "$toolchain $packages" | sha256sum | cut -c1-8)"
  echo "$builder" >"$RUN_STATE/release.builder"
  if ! podman_ci image exists "$builder"; then
    root="$CACHE/builder-root.$$"
    rm -rf "$root"
    debootstrap --variant=minbase --include="$packages" bookworm "$root" http://deb.debian.org/debian >"$RUN_STATE/image-from-source.debootstrap.log" 2>&1 \
      || { tail -20 "$RUN_STATE/image-from-source.debootstrap.log" >&2; rm -rf "$root"; echo "debootstrap of the builder root failed" >&2; return 1; }
    # Where this machine's git finds Swift packages (a local mirror of github.com), the builder's
    # git finds them too; the build mounts the mirror (below).
    git config --system --get-regexp '^url\.' | while read -r key value; do
      git config --file "$root/etc/gitconfig" --add "$key" "$value"
    done
    tar -cf - -C "$root" . -C / "${toolchain#/}" \
      | podman_ci import --quiet --change "ENV PATH=$toolchain/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" - "$builder" >/dev/null \
      || { rm -rf "$root"; echo "podman import of the builder root failed" >&2; return 1; }
    rm -rf "$root"
    echo "builder image $builder made in $(($(date +%s) - started)) s" >"$RUN_STATE/release.builder-made"
  fi
  # The build context: the clone's files ($SRC holds exactly them; .dockerignore leaves out build
  # folders). The package mirror, where this machine has one, is mounted for SwiftPM's git.
  local options=(--format docker --build-arg SWIFT_IMAGE="$builder")
  for mirror in $(git config --system --get-regexp '^url\.' | sed -n 's/^url\.\(\/.*\)\.insteadof .*/\1/Ip' | sed 's:/*$::' | sort -u); do
    options+=(-v "$mirror:$mirror:ro")
  done
  if background_cgroup >/dev/null; then options+=(--cgroup-parent "$BACKGROUND_CGROUP"); fi
  started=$(date +%s)
  (cd "$SRC" && podman_ci build "${options[@]}" -t pushmock:from-source .) >"$RUN_STATE/image-from-source.log" 2>&1 \
    || { tail -40 "$RUN_STATE/image-from-source.log" >&2; echo "podman build . (the Containerfile from a clone) failed" >&2; return 1; }
  echo $(($(date +%s) - started)) >"$RUN_STATE/release.seconds"
  rm -rf "$RELEASE_STAGE"
  podman_ci rm -f pushmock-release-stage >/dev/null 2>&1 || true
  podman_ci create --name pushmock-release-stage pushmock:from-source >/dev/null \
    && podman_ci cp pushmock-release-stage:/opt/pushmock "$RELEASE_STAGE" \
    || { podman_ci rm -f pushmock-release-stage >/dev/null 2>&1; echo "cannot copy /opt/pushmock out of pushmock:from-source" >&2; return 1; }
  podman_ci rm -f pushmock-release-stage >/dev/null
}
need_release_build() { need release release_build; }

# --- servers -----------------------------------------------------------------------------------

PIDS=()
STEP_WORK="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-ci-step.XXXXXX")"
# Locator files of the step's own: `pushmock send` without a URL finds this step's servers, never
# another lane's.
mkdir -m 700 "$STEP_WORK/runtime"
export XDG_RUNTIME_DIR="$STEP_WORK/runtime"
CLEANUPS=()
cleanup_step() {
  local command pid
  for command in "${CLEANUPS[@]:-}"; do [ -n "$command" ] && eval "$command" || true; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]:-}"; do [ -n "$pid" ] && wait "$pid" 2>/dev/null || true; done
  rm -rf "$STEP_WORK"
}
trap cleanup_step EXIT
# on_exit COMMAND: run COMMAND when the step ends, before its servers are stopped.
on_exit() { CLEANUPS+=("$1"); }

# wait_for_file FILE PID LOG: waits until FILE exists (a server's --ports-file), failing at once if
# PID ends first, and after a minute at most.
wait_for_file() {
  local _
  for _ in $(seq 600); do
    [ -s "$1" ] && return 0
    kill -0 "$2" 2>/dev/null || { tail -20 "$3" >&2; fail "the server (pid $2) ended before it wrote $1"; }
    sleep 0.1
  done
  tail -20 "$3" >&2
  fail "no $1 after 60 s"
}

# serve NAME [ARGS…]: starts `pushmock serve ARGS` on a push port and an inspection port the kernel
# picks, and sets NAME_PID, NAME_PUSH, NAME_INSPECTION, NAME_CLEARTEXT, NAME_PROXY, NAME_METADATA
# (the last three when ARGS ask for them, with 0), NAME_API (the inspection API's base URL) and
# NAME_LOG. ARGS that name --port or --inspection-port choose that port instead.
serve() {
  local name="$1"
  shift
  local ports="$STEP_WORK/$name.ports.json" log="$STEP_WORK/$name.log" pid
  rm -f "$ports"
  local defaults=() flag
  for flag in --port --inspection-port; do
    [[ " $* " == *" $flag "* || ( $flag == --inspection-port && " $* " == *" --no-inspection "* ) ]] || defaults+=("$flag" 0)
  done
  "$BIN" serve "${defaults[@]}" --ports-file "$ports" "$@" >>"$log" 2>&1 &
  pid=$!
  PIDS+=("$pid")
  wait_for_file "$ports" "$pid" "$log"
  printf -v "${name}_PID" '%s' "$pid"
  printf -v "${name}_LOG" '%s' "$log"
  local key
  for key in push inspection cleartext proxy metadata; do
    printf -v "${name}_${key^^}" '%s' "$(jq -r ".$key // empty" "$ports")"
  done
  local inspection="${name}_INSPECTION"
  printf -v "${name}_API" '%s' "http://127.0.0.1:${!inspection}/api/v1"
}

# stop PID: SIGTERM, and the server must exit 0.
stop() {
  kill -TERM "$1"
  wait "$1" || fail "the server (pid $1) exited non-zero after SIGTERM"
}

# --- PostgreSQL --------------------------------------------------------------------------------

# start_postgres: a throwaway cluster of the step's own (as the tests' harness makes one): initdb
# in $STEP_WORK, served on 127.0.0.1 on a port drawn below the kernel's range for port-0 binds,
# another drawn if that one is taken. Sets PG_PORT, PG_URL (…/postgres); stopped with the step.
PG_BIN=""
start_postgres() {
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
  [ -x "$PG_BIN/initdb" ] || fail "PostgreSQL's initdb not found under /usr/lib/postgresql (apt-get install postgresql)"
  PG_DIR="$STEP_WORK/postgres"
  mkdir -p "$PG_DIR"
  chmod 755 "$STEP_WORK"  # (the postgres user reaches its folder through it)
  as_pg "$PG_BIN/initdb" -D "$PG_DIR/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; fail "initdb failed"; }
  local _
  for _ in $(seq 20); do
    PG_PORT=$((20000 + RANDOM % 12000))
    if pg_start; then
      PG_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
      on_exit pg_stop
      return 0
    fi
    grep -q "already in use" "$PG_DIR/server.log" || { cat "$PG_DIR/server.log" >&2; fail "PostgreSQL did not start"; }
  done
  fail "PostgreSQL found no free port in 20 tries"
}
as_pg() {
  if [ "$(id -u)" -eq 0 ]; then
    chown -R postgres "$PG_DIR"
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}
pg_start() {
  as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w \
    -o "-p $PG_PORT -k $PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >/dev/null 2>&1
}
pg_stop() { as_pg "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true; }
psql_run() { psql -q -h 127.0.0.1 -p "$PG_PORT" -U postgres "$@"; }

# --- pushes ------------------------------------------------------------------------------------

# hex TIMES PAIR: PAIR repeated (a device token).
hex() { printf "$2%.0s" $(seq "$1"); }
