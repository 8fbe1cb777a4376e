# The Containerfile from a clone, as `docker build .` runs it for a user: its builder stage compiles
# the static release build, its runtime stage is the release image's. No registry is reachable
# here, so the builder image is made locally (once per machine, kept in podman's storage) from a
# Debian 12 root (debootstrap) with the -dev packages and the Swift toolchain this machine has;
# the build takes it with --build-arg SWIFT_IMAGE, as a user would a mirror's. The image it makes
# must serve as the release's does, with the same files and the same configuration.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
command -v podman >/dev/null || fail "podman is not installed (apt-get install podman runc)"
TOOLCHAIN="$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")"
[ -x "$TOOLCHAIN/usr/bin/swift" ] || fail "cannot find the Swift toolchain's folder from $(command -v swift)"
SWIFT_VERSION="$(swift --version 2>/dev/null | sed -n 's/.*Swift version \([0-9.]*\).*/\1/p' | head -1)"
# What the official Swift image for Debian 12 installs, and the -dev packages PushMock links.
BUILDER_PACKAGES="binutils,gcc,g++,git,libc6-dev,libstdc++-12-dev,libgcc-12-dev,libcurl4-openssl-dev,libxml2-dev,libedit2,libncurses-dev,libsqlite3-dev,libnghttp2-dev,zlib1g-dev,uuid-dev,pkg-config,tzdata,ca-certificates,libpython3.11"
BUILDER="localhost/pushmock-swift-builder:$SWIFT_VERSION-$(echo "$TOOLCHAIN $BUILDER_PACKAGES" | sha256sum | cut -c1-8)"
if ! podman_ci image exists "$BUILDER"; then
  started=$(date +%s)
  ROOT="$STEP_WORK/builder-root"
  debootstrap --variant=minbase --include="$BUILDER_PACKAGES" bookworm "$ROOT" http://deb.debian.org/debian >"$STEP_WORK/debootstrap.log" 2>&1 \
    || { tail -20 "$STEP_WORK/debootstrap.log"; fail "debootstrap of the builder root failed"; }
  # Where this machine's git finds Swift packages (a local mirror of github.com), the builder's
  # git finds them too; the build mounts the mirror (below).
  git config --system --get-regexp '^url\.' | while read -r key value; do
    git config --file "$ROOT/etc/gitconfig" --add "$key" "$value"
  done
  tar -cf - -C "$ROOT" . -C / "${TOOLCHAIN#/}" \
    | podman_ci import --quiet --change "ENV PATH=$TOOLCHAIN/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" - "$BUILDER" >/dev/null \
    || fail "podman import of the builder root"
  rm -rf "$ROOT"
  note "builder image $BUILDER made in $(($(date +%s) - started)) s"
fi
# The build context: the clone's files ($SRC holds exactly them; .dockerignore leaves out build
# folders). The package mirror, where this machine has one, is mounted for SwiftPM's git.
MIRROR=()
for mirror in $(git config --system --get-regexp '^url\.' | sed -n 's/^url\.\(\/.*\)\.insteadof .*/\1/Ip' | sed 's:/*$::' | sort -u); do
  MIRROR+=(-v "$mirror:$mirror:ro")
done
started=$(date +%s)
podman_ci build --format docker --build-arg SWIFT_IMAGE="$BUILDER" "${MIRROR[@]}" -t pushmock:from-source . >"$STEP_WORK/build.log" 2>&1 \
  || { tail -40 "$STEP_WORK/build.log"; fail "podman build . (the Containerfile from a clone)"; }
built_in=$(($(date +%s) - started))
# The builder stage's layers (the sources and the toolchain's image, several GB) are left unnamed:
# dropped, so that runs do not pile them up. The cache mount, where the build folder is, stays.
podman_ci image prune -f >/dev/null 2>&1 || true
container_serves pushmock:from-source
SOURCE_SUMMARY="$CONTAINER_SUMMARY"
# The same image as the release's (scripts/package --image): the same configuration, and the same
# files with the same owners and modes (the binaries differ only by where they were compiled).
podman_ci image exists "pushmock:$PM_VERSION" || podman_ci load -q -i "$IMAGE_TAR" >/dev/null || fail "podman load"
config='{{json .Config.Env}} {{json .Config.User}} {{json .Config.Entrypoint}} {{json .Config.Cmd}} {{json .Config.ExposedPorts}} {{json .Config.Volumes}} {{json .Config.WorkingDir}} {{json .Config.Healthcheck}}'
[ "$(podman_ci image inspect pushmock:from-source --format "$config")" = "$(podman_ci image inspect "pushmock:$PM_VERSION" --format "$config")" ] \
  || fail "the image from source is configured otherwise than the release's: $(podman_ci image inspect pushmock:from-source --format "$config")"
files() {
  podman_ci rm -f pushmock-files >/dev/null 2>&1 || true
  podman_ci create --name pushmock-files "$1" >/dev/null
  podman_ci export pushmock-files | tar -tvf - | awk '{print $1, $2, $6}' | sort
  podman_ci rm -f pushmock-files >/dev/null
}
files pushmock:from-source >"$STEP_WORK/from-source.files"
files "pushmock:$PM_VERSION" >"$STEP_WORK/release.files"
diff "$STEP_WORK/release.files" "$STEP_WORK/from-source.files" >"$STEP_WORK/files.diff" \
  || { cat "$STEP_WORK/files.diff"; fail "the image from source holds other files than the release's"; }
echo "image from a clone (podman build --build-arg SWIFT_IMAGE=$BUILDER .): built in $built_in s; $SOURCE_SUMMARY; the same $(wc -l <"$STEP_WORK/release.files") files and configuration as the release's image"
