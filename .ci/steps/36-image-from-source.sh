# The Containerfile from a clone, as `docker build .` runs it for a user: its builder stage compiles
# the static release build, its runtime stage is the release image's. No registry is reachable
# here, so the builder image is made locally (once per machine, kept in podman's storage) from a
# Debian 12 root (debootstrap) with the -dev packages and the Swift toolchain this machine has;
# the build takes it with --build-arg SWIFT_IMAGE, as a user would a mirror's (see
# release_build in .ci/lib.sh: CI's one release build). The image it makes must serve as the release's does,
# with the same files and the same configuration.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
# This build is CI's one release build (release_build in .ci/lib.sh): it runs behind the other
# steps, started by .ci/run when the debug build is done, and the release archive and image are
# packaged from it; run alone, this step builds it now.
need_release_build
BUILDER="$(cat "$RUN_STATE/release.builder")"
built_in="$(cat "$RUN_STATE/release.seconds")"
[ ! -f "$RUN_STATE/release.builder-made" ] || note "$(cat "$RUN_STATE/release.builder-made")"
# The builder stage's layers (the sources and the toolchain's image, several GB) are left unnamed:
# dropped, so that runs do not pile them up. The cache mount, where the build folder is, stays.
podman_ci image prune -f >/dev/null 2>&1 || true
container_serves pushmock:from-source
SOURCE_SUMMARY="$CONTAINER_SUMMARY"
# The same image as the release's (scripts/package --image --prebuilt, from this image's
# /opt/pushmock): the same configuration, the same files with the same owners and modes, and the
# same binary.
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
digest() {
  podman_ci rm -f pushmock-files >/dev/null 2>&1 || true
  podman_ci create --name pushmock-files "$1" >/dev/null
  podman_ci cp pushmock-files:/opt/pushmock/pushmock - | tar -xOf - | sha256sum | cut -c1-64
  podman_ci rm -f pushmock-files >/dev/null
}
[ "$(digest pushmock:from-source)" = "$(digest "pushmock:$PM_VERSION")" ] || fail "the release image's binary is not the one built from source"
echo "image from a clone (podman build --build-arg SWIFT_IMAGE=$BUILDER .): built in $built_in s; $SOURCE_SUMMARY; the same $(wc -l <"$STEP_WORK/release.files") files and configuration as the release's image"
