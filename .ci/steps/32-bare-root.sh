# A clean machine: the archive in a bare Debian 12 root (debootstrap --variant=minbase: no Swift, no
# -dev packages), served from / with no Certs/.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
DEB="$STEP_WORK/debian"
# The root is made once and kept in the cache as a tar file (a fresh debootstrap takes a minute).
ROOT_TAR="$CACHE/debian-bookworm-minbase.tar"
mkdir -p "$DEB"
if [ -f "$ROOT_TAR" ]; then
  tar -C "$DEB" -xf "$ROOT_TAR" || fail "cannot unpack $ROOT_TAR"
else
  debootstrap --variant=minbase bookworm "$DEB" http://deb.debian.org/debian >"$STEP_WORK/debootstrap.log" 2>&1 || { tail -20 "$STEP_WORK/debootstrap.log"; fail "debootstrap failed"; }
  tar -C "$DEB" -cf "$ROOT_TAR.partial" . && mv "$ROOT_TAR.partial" "$ROOT_TAR"
fi
for missing in usr/bin/swift usr/lib/x86_64-linux-gnu/libnghttp2.so.14 usr/lib/x86_64-linux-gnu/libsqlite3.so.0; do
  [ ! -e "$DEB/$missing" ] || fail "the bare root has $missing: not a clean machine"
done
dev_packages="$(chroot "$DEB" dpkg-query -W -f '${Package}\n' | grep -- '-dev$' || true)"
[ -z "$dev_packages" ] || fail "the bare root has -dev packages: $dev_packages"
tar -C "$DEB/opt" -xzf "$ARCHIVE"
# With no /proc (a plain chroot), the command line cannot be read: pushmock says so and exits,
# whatever was asked (it once started a server for --version).
set +e
timeout 20 chroot "$DEB" "/opt/$PM_NAME/pushmock" --version >"$STEP_WORK/noproc.out" 2>&1
noproc=$?
set -e
[ "$noproc" -eq 2 ] && grep -q "is /proc mounted" "$STEP_WORK/noproc.out" \
  || fail "pushmock --version without /proc: exit $noproc, $(head -c 300 "$STEP_WORK/noproc.out")"
start_in_root() {
  rm -f "$DEB/tmp/ports.json"
  # One process from unshare to pushmock (each execs the next), so the pid is the server's.
  unshare -m sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" env -i HOME=/root PATH=/usr/bin:/bin "/opt/$2/pushmock" serve --port 0 --inspection-port 0 --ports-file /tmp/ports.json' _ "$DEB" "$PM_NAME" >>"$STEP_WORK/chroot.log" 2>&1 &
  CHROOT_PID=$!; PIDS+=("$CHROOT_PID")
  wait_for_file "$DEB/tmp/ports.json" "$CHROOT_PID" "$STEP_WORK/chroot.log"
  ROOT_PUSH="$(jq .push "$DEB/tmp/ports.json")"
  ROOT_INSPECTION="$(jq .inspection "$DEB/tmp/ports.json")"
}
start_in_root
CHROOT_CERTS="$DEB/root/.local/share/pushmock/certs"
[ -f "$CHROOT_CERTS/ca.pem" ] || fail "no credentials were created in the root's data directory: $(cat "$STEP_WORK/chroot.log")"
curl -sS http://127.0.0.1:$ROOT_INSPECTION/api/v1/credentials/ca.pem -o "$STEP_WORK/chroot-ca.pem"
cmp -s "$STEP_WORK/chroot-ca.pem" "$CHROOT_CERTS/ca.pem" || fail "the served CA is not the data directory's"
clean_machine_pushes "$ROOT_PUSH" "$ROOT_INSPECTION" "$STEP_WORK/chroot-ca.pem" "$CHROOT_CERTS/AuthKey_PUSHMOCK01.p8" "bare Debian root"
unshare -m sh -c 'mount -t proc proc "$1/proc" && exec chroot "$1" "/opt/$2/pushmock" healthcheck --inspection-url "http://127.0.0.1:$3"' _ "$DEB" "$PM_NAME" "$ROOT_INSPECTION" \
  || fail "pushmock healthcheck inside the root"
first_ca="$(sha256sum "$CHROOT_CERTS/ca.pem")"
kill -TERM "$CHROOT_PID"; wait "$CHROOT_PID" || fail "the server in the root exited non-zero: $(tail -3 "$STEP_WORK/chroot.log")"
start_in_root
[ "$(sha256sum "$CHROOT_CERTS/ca.pem")" = "$first_ca" ] || fail "a restart with the same data directory changed the CA"
curl -sS http://127.0.0.1:$ROOT_INSPECTION/api/v1/credentials/ca.pem | cmp -s - "$STEP_WORK/chroot-ca.pem" || fail "the restarted server serves another CA"
clean_machine_pushes "$ROOT_PUSH" "$ROOT_INSPECTION" "$STEP_WORK/chroot-ca.pem" "$CHROOT_CERTS/AuthKey_PUSHMOCK01.p8" "bare Debian root, restarted"
kill -TERM "$CHROOT_PID"; wait "$CHROOT_PID" || true
echo "bare Debian root ($(du -sh "$DEB" | cut -f1)): served from / with no Certs/, APNs and FCM pushes with curl, the page, healthcheck, a restart kept the CA"
