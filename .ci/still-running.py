# Lists the tests a Swift Testing event stream (--event-stream-output-path) saw start and not end.
import json, sys

started, ended = [], set()
for line in open(sys.argv[1]):
    event = json.loads(line)
    if event.get("kind") != "event":
        continue
    payload = event["payload"]
    if payload["kind"] in ("testStarted", "testCaseStarted"):
        started.append((payload["kind"], payload.get("testID")))
    elif payload["kind"] in ("testEnded", "testCaseEnded"):
        ended.add((payload["kind"].replace("Ended", "Started"), payload.get("testID")))
for key in dict.fromkeys(started):
    # (suites are in the stream too; a test's id has a "/")
    if key not in ended and key[0] == "testStarted" and "/" in (key[1] or ""):
        print("  still running:", key[1])
