# The debug build, tests included, with no warning in our code. Every step after it reuses it.
source .ci/lib.sh
touch "$RUN_STATE/debug-build.started"
need_debug_build
# A warm build compiles only what changed, and SwiftPM prints a file's warnings only when it
# compiles it; so each file's warnings are kept in the cache from the build that last compiled it
# (its object or diagnostics file is newer than this build's start), and any kept warning fails the step, as
# -warnings-as-errors would.
python3 - "$CACHE/warnings.json" "$RUN_STATE/debug-build.log" "$SRC" "$DEBUG_BUILD/debug" "$RUN_STATE/debug-build.started" <<'PY' || fail "the build warns in our code (listed above)"
import glob, json, os, re, sys
record_path, log_path, src, products, started_path = sys.argv[1:]
started = os.path.getmtime(started_path)
record = json.load(open(record_path)) if os.path.exists(record_path) else {}
warnings = {}
for line in open(log_path, errors="replace"):
    match = re.match(re.escape(src) + r"/((?:Sources|Tests)/[^:]+):\d+:\d+: warning:", line)
    if match:
        warnings.setdefault(match.group(1), []).append(line.strip())
files = set()
for path in glob.glob(os.path.join(src, "Sources/*/**/*.swift"), recursive=True) + glob.glob(os.path.join(src, "Tests/*/**/*.swift"), recursive=True):
    relative = os.path.relpath(path, src)
    files.add(relative)
    module = relative.split("/")[1]
    # A compile whose object code comes out the same leaves the .o as it was (an import's access
    # level changed, say); its .dia (diagnostics) and .swiftdeps are written each time.
    stem = os.path.join(products, module + ".build", os.path.basename(path)[: -len(".swift")])
    objects = [o for o in (stem + ".swift.o", stem + ".dia", stem + ".swiftdeps") if os.path.exists(o)]
    if relative not in record or any(os.path.getmtime(o) >= started for o in objects):
        record[relative] = sorted(set(warnings.get(relative, [])))
record = {path: lines for path, lines in record.items() if path in files}
json.dump(record, open(record_path, "w"), indent=1, sort_keys=True)
found = [line for lines in record.values() for line in lines]
for line in found[:50]:
    print(line)
sys.exit(1 if found else 0)
PY
note "built; no warning in Sources/ or Tests/"
