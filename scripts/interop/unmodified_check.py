"""Interop check: unmodified SDKs reach PushMock as the real hosts, with no monkeypatch and no base URL.

firebase-admin talks to https://oauth2.googleapis.com/token (the service account's token_uri is
Google's), https://fcm.googleapis.com and https://iid.googleapis.com; aioapns to
https://api.push.apple.com:443. What makes them land on PushMock is outside the process:

- transparent: PushMock serves 443 with --transparent and /etc/hosts maps the names to 127.0.0.1
  (CI bind-mounts such a file over /etc/hosts in a private mount namespace);
- proxy: HTTPS_PROXY points at PushMock's --proxy-port. aioapns has no proxy support, and
  firebase-admin's send_each_async (httpx with its own transports) ignores HTTPS_PROXY: the check
  asserts that it did not reach PushMock, as the README says.

The CA comes from `eval "$(pushmock trust env)"` (REQUESTS_CA_BUNDLE, SSL_CERT_FILE).

usage: python unmodified_check.py transparent|proxy INSPECTION_PORT CERTS_DIR
"""
import asyncio
import json
import os
import sys
import tempfile
import urllib.request
import warnings

warnings.filterwarnings("ignore", category=DeprecationWarning)
mode, inspection_port, certs = sys.argv[1], int(sys.argv[2]), os.path.abspath(sys.argv[3])
assert mode in ("transparent", "proxy"), mode
for variable in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
    if not os.environ.get(variable):
        sys.exit(f"FAIL: {variable} is not set: run this after eval \"$(pushmock trust env)\"")

import firebase_admin  # noqa: E402
from firebase_admin import credentials, messaging  # noqa: E402

failures = []


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} [{mode}] {name} {detail}")
    if not condition:
        failures.append(name)


def inspection(path, method="GET"):
    request = urllib.request.Request(f"http://127.0.0.1:{inspection_port}{path}", method=method, headers={"x-pushmock-client": "unmodified_check"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request) as response:
        return json.load(response)


inspection("/api/v1/reset", "POST")

# The sample service account, with Google's own token_uri: nothing in it points at PushMock.
account = json.load(open(f"{certs}/fcm-service-account.json"))
account["token_uri"] = "https://oauth2.googleapis.com/token"
account_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
json.dump(account, open(account_file, "w"))
project = account["project_id"]
app = firebase_admin.initialize_app(credentials.Certificate(account_file), name=f"unmodified-{mode}")

T1 = "dW5tb2RpZmllZC0x:APA91b" + "Un1" * 40
T2 = "dW5tb2RpZmllZC0y:APA91b" + "Un2" * 40
T3 = "dW5tb2RpZmllZC0z:APA91b" + "Un3" * 40

# send (requests, HTTP/1.1), send_each, send_each_async (httpx, HTTP/2).
name = messaging.send(messaging.Message(token=T1, notification=messaging.Notification(title="Hello", body="unmodified")), app=app)
check("send", name.startswith(f"projects/{project}/messages/0:"), name)
batch = messaging.send_each([messaging.Message(token=T1, data={"n": "1"}), messaging.Message(token=T2, data={"n": "2"})], app=app)
check("send_each", batch.success_count == 2, f"{batch.success_count} of 2")


async def send_async():
    return await messaging.send_each_async([messaging.Message(token=T1, data={"n": str(n)}) for n in range(3)], app=app)


before = inspection("/api/v1/deliveries?service=fcm")["total"]
batch = asyncio.run(send_async())
if mode == "transparent":
    check("send_each_async", batch.success_count == 3, f"{batch.success_count} of 3")
    protocols = {d["protocol"] for d in inspection("/api/v1/deliveries?service=fcm&limit=3")["deliveries"]}
    check("send_each_async over HTTP/2 (httpx, ALPN h2)", protocols == {"HTTP/2"}, str(protocols))
else:
    # firebase-admin mounts its own httpx transports for https://, and httpx ignores HTTPS_PROXY
    # for mounted transports: the async path never uses a proxy (README: use transparent mode).
    after = inspection("/api/v1/deliveries?service=fcm")["total"]
    check("send_each_async bypasses HTTPS_PROXY (firebase-admin's own httpx transports): nothing reached PushMock",
          batch.success_count == 0 and after == before, f"{batch.success_count} sent, {after - before} recorded")

# Topic management: subscribe_to_topic (FCM v1 topicSubscriptions in firebase-admin 7; Instance ID
# batchAdd before), unsubscribe_from_topic, and the Instance ID path itself (…_legacy).
response = messaging.subscribe_to_topic([T1, T2], "news", app=app)
check("subscribe_to_topic", response.success_count == 2 and response.failure_count == 0, f"{response.success_count} ok, {response.failure_count} failed")
response = messaging.unsubscribe_from_topic([T2], "news", app=app)
check("unsubscribe_from_topic", response.success_count == 1, f"{response.success_count} ok")
if hasattr(messaging, "subscribe_to_topic_legacy"):
    response = messaging.subscribe_to_topic_legacy([T3, "not-a-token"], "news", app=app)
    check("subscribe_to_topic_legacy (iid.googleapis.com batchAdd)", response.success_count == 1 and response.errors[0].reason == "INVALID_ARGUMENT",
          f"{response.success_count} ok, errors {[e.reason for e in response.errors]}")
    expected = sorted([T1, T3])
else:
    expected = [T1]
iid = inspection("/api/v1/deliveries?service=iid")
check("topic management recorded", iid["total"] >= 3, f"{iid['total']} iid deliveries")

name = messaging.send(messaging.Message(topic="news", data={"breaking": "yes"}), app=app)
check("topic send", name.startswith(f"projects/{project}/messages/"), name)
latest = inspection("/api/v1/deliveries?service=fcm&limit=1")["deliveries"][0]
check("topic send's fan-out lists the subscribed tokens", latest.get("recipients") == expected, str(latest.get("recipients")))
messaging.send(messaging.Message(topic="nobody-here", data={"a": "b"}), app=app)
latest = inspection("/api/v1/deliveries?service=fcm&limit=1")["deliveries"][0]
check("a topic with no subscriber: success, and nobody would receive it", latest["status"] == 200 and latest.get("recipients") == [],
      str(latest.get("diagnostics")))
devices = {d["token"]: d for d in inspection("/api/v1/devices")["devices"]}
check("/api/v1/devices shows each token's topics", devices.get(T1, {}).get("topics") == ["news"], str(devices.get(T1)))

oauth = inspection("/api/v1/deliveries?service=oauth")
check("OAuth at oauth2.googleapis.com/token (Google's token_uri)", oauth["total"] >= 1 and all(d["status"] == 200 for d in oauth["deliveries"]), f"{oauth['total']}")

if mode == "transparent":
    from aioapns import APNs, NotificationRequest, PushType

    async def apns():
        # Default host and port: api.push.apple.com:443; the CA through SSL_CERT_FILE.
        client = APNs(key=open(f"{certs}/AuthKey_PUSHMOCK01.p8").read(), key_id="PUSHMOCK01", team_id="PMTEAM0001",
                      topic="com.example.app", use_sandbox=False)
        return await client.send_notification(NotificationRequest(device_token="c3" * 32, message={"aps": {"alert": "unmodified aioapns"}}, push_type=PushType.ALERT))

    result = asyncio.run(apns())
    check("aioapns to its default host api.push.apple.com:443", result.is_successful, f"status {result.status}")
    latest = inspection("/api/v1/deliveries?service=apns&limit=1")["deliveries"][0]
    check("recorded as production (the host's environment)", latest["environment"] == "production", latest["environment"])

print(f"{len(failures)} failure(s)" if failures else f"unmodified SDKs through {mode}: all checks passed")
sys.exit(1 if failures else 0)
