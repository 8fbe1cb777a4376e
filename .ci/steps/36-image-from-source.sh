# The Containerfile from a clone, as `docker build .` runs it for a user: its builder stage compiles
# the static release build, its runtime stage is the release image's. No registry is reachable
# here, so the builder image is made locally (once per machine, kept in podman's storage) from a
# Debian 12 root (debootstrap) with the -dev packages and the Swift toolchain this machine has;
# the build takes it with --build-arg SWIFT_IMAGE, as a user would a mirror's (see
# image_from_source_build in .ci/lib.sh). The image it makes must serve as the release's does,
# with the same files and the same configuration.
source .ci/lib.sh
need_debug_build
need_package
source .ci/clean-machine.sh
# The build itself runs behind the other steps (image_from_source_build in .ci/lib.sh, started by
# .ci/run when the debug build is done); run alone, this step builds it now.
need_image_from_source
BUILDER="$(cat "$RUN_STATE/image-from-source.builder")"
built_in="$(cat "$RUN_STATE/image-from-source.seconds")"
[ ! -f "$RUN_STATE/image-from-source.builder-made" ] || note "$(cat "$RUN_STATE/image-from-source.builder-made")"
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
