"""Interop check: unmodified firebase-admin (and pyfcm) from PyPI against PushMock's FCM and OAuth.

The SDKs take the token endpoint from the service account's token_uri; the send URL is
overridden through firebase_admin.messaging._MessagingService.FCM_URL (its only hook) and
pyfcm's FCMNotification.FCM_END_POINT_BASE. The CA comes from REQUESTS_CA_BUNDLE/SSL_CERT_FILE.

usage: python firebase_admin_check.py PUSH_PORT INSPECTION_PORT CERTS_DIR
"""
import asyncio
import warnings
import json
import os
import sys
import tempfile
import time
import urllib.request

warnings.filterwarnings("ignore", category=DeprecationWarning)
push_port, inspection_port, certs = int(sys.argv[1]), int(sys.argv[2]), os.path.abspath(sys.argv[3])
os.environ["REQUESTS_CA_BUNDLE"] = f"{certs}/ca.pem"
os.environ["SSL_CERT_FILE"] = f"{certs}/ca.pem"

import firebase_admin  # noqa: E402
from firebase_admin import credentials, messaging  # noqa: E402

base = f"https://localhost:{push_port}"
account = json.load(open(f"{certs}/fcm-service-account.json"))
account["token_uri"] = f"{base}/token"
account_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
json.dump(account, open(account_file, "w"))
project = account["project_id"]
messaging._MessagingService.FCM_URL = base + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app(credentials.Certificate(account_file))

TOKEN = "dGVzdC1pbnN0YW5jZS0wMDAx:APA91b" + "Fk3" * 40
GONE = "dGVzdC1pbnN0YW5jZS0xMjM0:APA91bGone" + "0" * 94
OTHER = "dGVzdC1pbnN0YW5jZS01Njc4:APA91bOtherProject" + "0" * 85
failures = []


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


def deliveries(query):
    with urllib.request.urlopen(f"http://127.0.0.1:{inspection_port}/api/v1/deliveries?{query}") as response:
        return json.load(response)


# 1. A notification (OAuth token exchange first, then HTTP/1.1 send through requests).
name = messaging.send(messaging.Message(token=TOKEN, notification=messaging.Notification(title="Hello", body="from firebase-admin")))
check("notification", name.startswith(f"projects/{project}/messages/0:"), name)
# 2. A data message.
name = messaging.send(messaging.Message(token=TOKEN, data={"order": "A1B2C3", "status": "shipped"}, android=messaging.AndroidConfig(priority="high", ttl=3600)))
check("data", name.startswith(f"projects/{project}/messages/"), name)
# 3. A topic message.
name = messaging.send(messaging.Message(topic="news", notification=messaging.Notification(title="Topic", body="news")))
check("topic", name.startswith(f"projects/{project}/messages/"), name)
# 4. A Live Activity message.
live = messaging.Message(
    token=TOKEN,
    apns=messaging.APNSConfig(
        live_activity_token="cd" * 80,
        headers={"apns-priority": "10"},
        payload=messaging.APNSPayload(aps=messaging.Aps(custom_data={
            "timestamp": int(time.time()), "event": "update", "content-state": {"score": "2-1"},
        })),
    ),
)
name = messaging.send(live)
check("live activity", name.startswith(f"projects/{project}/messages/"), name)
# 5. dry_run.
name = messaging.send(messaging.Message(token=TOKEN, data={"k": "v"}), dry_run=True)
check("dry_run", name == f"projects/{project}/messages/fake_message_id", name)
# 6. Errors mapped by the SDK.
try:
    messaging.send(messaging.Message(token=GONE, data={"k": "v"}))
    check("UnregisteredError", False, "no exception")
except messaging.UnregisteredError as error:
    check("UnregisteredError", True, str(error))
try:
    messaging.send(messaging.Message(token=OTHER, data={"k": "v"}))
    check("SenderIdMismatchError", False, "no exception")
except messaging.SenderIdMismatchError as error:
    check("SenderIdMismatchError", True, str(error))
try:
    messaging.send(messaging.Message(token="not-a-token", data={"k": "v"}))
    check("InvalidArgumentError", False, "no exception")
except firebase_admin.exceptions.InvalidArgumentError as error:
    check("InvalidArgumentError", "not a valid FCM registration token" in str(error), str(error))
try:
    messaging.send(messaging.Message(token=TOKEN, notification=messaging.Notification(title="x"), apns=messaging.APNSConfig(live_activity_token="cd" * 80)))
    check("live activity with notification refused", False, "no exception")
except firebase_admin.exceptions.InvalidArgumentError as error:
    check("live activity with notification refused", "notification" in str(error), str(error))
# 7. send_each_async: httpx over HTTP/2.
batch = [messaging.Message(token=TOKEN, data={"i": str(i)}) for i in range(5)]
response = asyncio.run(messaging.send_each_async(batch))
check("send_each_async", response.success_count == 5, f"{response.success_count} of 5")
h2 = deliveries(f"service=fcm&project={project}&limit=5")["deliveries"]
check("send_each_async over HTTP/2", all(d["protocol"] == "HTTP/2" for d in h2), str({d["protocol"] for d in h2}))
oauth = deliveries("service=oauth&outcome=accepted")
check("token exchange recorded", oauth["total"] >= 1, f"{oauth['total']} token request(s)")

# 8. Its retries against a fault sequence: the SDK retries 500 and 503 (up to 4 times, with
# backoff; urllib3 also waits out a Retry-After, which a faulted 503 or 429 carries: 60 s, so this
# check uses 500s), and not 400: so INTERNAL, INTERNAL, then accepted is one successful send() of
# three requests, and INVALID_ARGUMENT, then accepted raises at once.
RETRIED = "cmV0cmllZC10b2tlbg:APA91b" + "Rt" * 60


def put_fault(rule):
    request = urllib.request.Request(f"http://127.0.0.1:{inspection_port}/api/v1/faults", data=json.dumps(rule).encode(), method="PUT",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def retried_statuses():
    return [d["status"] for d in reversed(deliveries(f"service=fcm&token={RETRIED}")["deliveries"])]


put_fault({"id": "retried", "match": {"service": "fcm", "token": RETRIED},
           "sequence": [{"reject": {"reason": "INTERNAL"}}, {"reject": {"reason": "INTERNAL"}}, {"accept": True}]})
name = messaging.send(messaging.Message(token=RETRIED, data={"k": "v"}))
check("retries: 500 is retried, the third request is accepted",
      name.startswith(f"projects/{project}/messages/") and retried_statuses() == [500, 500, 200], f"{name} {retried_statuses()}")
put_fault({"id": "refused", "match": {"service": "fcm", "token": RETRIED},
           "sequence": [{"reject": {"reason": "INVALID_ARGUMENT"}}, {"accept": True}]})
try:
    messaging.send(messaging.Message(token=RETRIED, data={"k": "v"}))
    check("retries: 400 is not retried", False, "no exception")
except firebase_admin.exceptions.InvalidArgumentError as error:
    check("retries: 400 is not retried", retried_statuses() == [500, 500, 200, 400], f"{retried_statuses()} {error}")
name = messaging.send(messaging.Message(token=RETRIED, data={"k": "v"}))
check("retries: the sequence's next step accepts", retried_statuses() == [500, 500, 200, 400, 200], str(retried_statuses()))
# A 503 whose step names Retry-After: 0 is retried at once (urllib3 honours the header).
put_fault({"id": "unavailable", "match": {"service": "fcm", "token": RETRIED},
           "sequence": [{"reject": {"reason": "UNAVAILABLE", "retryAfter": 0}}, {"accept": True}]})
started = time.monotonic()
name = messaging.send(messaging.Message(token=RETRIED, data={"k": "v"}))
check("retries: a 503 with the step's Retry-After: 0 is retried, then accepted",
      retried_statuses()[-2:] == [503, 200] and name.startswith(f"projects/{project}/messages/"),
      f"{retried_statuses()} in {time.monotonic() - started:.1f} s")

# 9. android_v2 (AndroidConfigV2): the released SDK has no type for it yet (firebase-admin-python
# #968 adds AndroidConfigV2), so the JSON its encoder writes goes through the SDK's own HTTP
# client (OAuth, headers, retries), and a refusal through its own error mapping.
import requests  # noqa: E402

service = messaging._get_messaging_service(app)


def send_v2(android_v2, **extra):
    body = {"message": {"token": TOKEN, "android_v2": android_v2, **extra}}
    try:
        return service._client.body("post", url=service._fcm_url, headers=dict(service._fcm_headers), json=body)["name"]
    except requests.exceptions.RequestException as error:
        raise service._handle_fcm_error(error)


name = send_v2({"ttl": "3600s", "collapse_key": "score",
                "remote_notification": {"notification": {"title": "Goal", "body": "2-1", "channel_id": "scores"}}})
check("android_v2 remote_notification", name.startswith(f"projects/{project}/messages/"), name)
name = send_v2({"background_sync": {}}, data={"sync": "inbox"})
check("android_v2 background_sync", name.startswith(f"projects/{project}/messages/"), name)
recorded = deliveries(f"service=fcm&token={TOKEN}&limit=2")["deliveries"]
kinds = [next(kind for kind in ("remote_notification", "background_sync") if kind in d["payload"]["message"]["android_v2"]) for d in recorded]
check("android_v2 recorded as sent", kinds == ["background_sync", "remote_notification"],
      str([d["payload"]["message"].get("android_v2") for d in recorded]))
try:
    send_v2({"background_sync": {}}, android={"priority": "high"})
    check("android_v2 beside android refused", False, "no exception")
except firebase_admin.exceptions.InvalidArgumentError as error:
    check("android_v2 beside android refused", "cannot both be set" in str(error), str(error))

# pyfcm: a notification and a Live Activity message.
from pyfcm import FCMNotification  # noqa: E402

FCMNotification.FCM_END_POINT_BASE = base + "/v1/projects"
fcm = FCMNotification(service_account_file=account_file, project_id=project)
result = fcm.notify(fcm_token=TOKEN, notification_title="pyfcm", notification_body="hello")
check("pyfcm notification", str(result.get("name", "")).startswith(f"projects/{project}/messages/"), str(result))
result = fcm.notify(fcm_token=TOKEN, apns_config={
    "live_activity_token": "ab" * 80,
    "headers": {"apns-priority": "10"},
    "payload": {"aps": {"timestamp": int(time.time()), "event": "update", "content-state": {"eta": 5}}},
})
check("pyfcm live activity (its empty notification {} counts as absent)", str(result.get("name", "")).startswith(f"projects/{project}/messages/"), str(result))

print("firebase-admin/pyfcm: ok" if not failures else f"firebase-admin/pyfcm: {len(failures)} failure(s): {failures}")
sys.exit(1 if failures else 0)
