"""Interop check: more unmodified SDKs from PyPI against PushMock in transparent mode.

- apns2-up (a maintained fork of PyAPNs2 that installs on Python 3.11): signs `iat = time.time()`,
  a fractional NumericDate, through hyper-up's HTTP/2 client;
- kalyke-apns (httpx over HTTP/2);
- async-firebase (httpx; a service account with Google's own token_uri), with `fid=` targets;
- firebase-admin with `fid=`, `send_each_for_multicast(fids=…)`, an `authorized_user` file with a
  quota project (the refresh-token grant at oauth2.googleapis.com), and
  `credentials.ApplicationDefault()` through PushMock's metadata server (GCE_METADATA_HOST).

Each checks an ordinary send and its library's own error type for a bad and an unregistered target.
It runs where the real hosts resolve to PushMock (a private mount namespace's /etc/hosts) and the
CA comes from `eval "$(pushmock trust env)"`.

usage: python sdk_fidelity_check.py INSPECTION_PORT METADATA_PORT CERTS_DIR
"""
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import warnings

warnings.filterwarnings("ignore")
inspection_port, metadata_port, certs = int(sys.argv[1]), int(sys.argv[2]), os.path.abspath(sys.argv[3])
for variable in ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
    if not os.environ.get(variable):
        sys.exit(f"FAIL: {variable} is not set: run this after eval \"$(pushmock trust env)\"")

failures = []
DEVICE = "cd" * 32
GONE_DEVICE = "de" * 32
TOKEN = "c2RrLWZpZGVsaXR5LTE:APA91b" + "Sdk" * 40
GONE_TOKEN = "c2RrLWZpZGVsaXR5LTI:APA91b" + "Gon" * 40
FID = "cPushMockSampleFID0001"
GONE_FID = "dPushMockGoneFID000001"


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


def inspection(path, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{inspection_port}{path}", data=data, method=method,
                                     headers={"content-type": "application/json", "x-pushmock-client": "sdk_fidelity_check"})
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request) as response:
        return json.load(response)


def recorded_for(query):
    """Every delivery matching `query`, oldest first."""
    return inspection(f"/api/v1/deliveries?{query}&limit=1000")["deliveries"]


inspection("/api/v1/reset", "POST")
for device in (GONE_DEVICE, GONE_TOKEN, GONE_FID):
    inspection(f"/api/v1/devices/{device}", "PUT", {"state": "unregistered"})
account = json.load(open(f"{certs}/fcm-service-account.json"))
account["token_uri"] = "https://oauth2.googleapis.com/token"
account_file = os.path.join(tempfile.mkdtemp(), "service-account.json")
json.dump(account, open(account_file, "w"))
project = account["project_id"]

# --- apns2-up: PyAPNs2's API, `iat` a float.
from apns2.client import APNsClient  # noqa: E402
from apns2.credentials import TokenCredentials  # noqa: E402
from apns2.errors import BadDeviceToken, Unregistered  # noqa: E402
from apns2.payload import Payload  # noqa: E402

credentials = TokenCredentials(auth_key_path=f"{certs}/AuthKey_PUSHMOCK01.p8", auth_key_id="PUSHMOCK01", team_id="PMTEAM0001")
client = APNsClient(credentials=credentials, use_sandbox=False)
client.send_notification(DEVICE, Payload(alert="Hello from apns2"), topic="com.example.app")
recorded = inspection("/api/v1/deliveries?service=apns&token=" + DEVICE)["deliveries"]
check("apns2: a push signed with a fractional iat is accepted", len(recorded) == 1 and recorded[0]["status"] == 200,
      str([(d["status"], d.get("reason")) for d in recorded]))
import base64  # noqa: E402
for name, value in (recorded[0]["headers"] if recorded else []):
    if name == "authorization":
        claims = value.split(" ", 1)[1].split(".")[1]
        iat = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["iat"]
        check("apns2 really signed a fractional iat", isinstance(iat, float), repr(iat))
for token, error in (("not-a-token", BadDeviceToken), (GONE_DEVICE, Unregistered)):
    try:
        client.send_notification(token, Payload(alert="x"), topic="com.example.app")
        check(f"apns2 raises {error.__name__}", False, "no exception")
    except error:
        check(f"apns2 raises {error.__name__}", True)
    except Exception as other:  # noqa: BLE001
        check(f"apns2 raises {error.__name__}", False, repr(other))

# --- kalyke-apns (httpx, HTTP/2).
from kalyke import ApnsClient, ApnsConfig, Payload as KalykePayload, PayloadAlert  # noqa: E402
from kalyke import exceptions as kalyke_errors  # noqa: E402

kalyke = ApnsClient(use_sandbox=True, team_id="PMTEAM0001", auth_key_id="PUSHMOCK01", auth_key_filepath=f"{certs}/AuthKey_PUSHMOCK01.p8")
config = ApnsConfig(topic="com.example.app")
apns_id = asyncio.run(kalyke.send_message(DEVICE, KalykePayload(alert=PayloadAlert(title="Hello", body="from kalyke")), config))
check("kalyke: sent, apns-id returned", len(apns_id) == 36, apns_id)
for token, error in (("zz", kalyke_errors.BadDeviceToken), (GONE_DEVICE, kalyke_errors.Unregistered)):
    try:
        asyncio.run(kalyke.send_message(token, KalykePayload(alert="x"), config))
        check(f"kalyke raises {error.__name__}", False, "no exception")
    except error:
        check(f"kalyke raises {error.__name__}", True)
    except Exception as other:  # noqa: BLE001
        check(f"kalyke raises {error.__name__}", False, repr(other))

# --- async-firebase: service account with Google's token_uri; token and fid targets.
from async_firebase import AsyncFirebaseClient  # noqa: E402
from async_firebase.errors import InvalidArgumentError, UnregisteredError  # noqa: E402
from async_firebase.messages import Message as AFMessage, Notification as AFNotification  # noqa: E402


async def async_firebase_checks():
    fcm = AsyncFirebaseClient()
    fcm.creds_from_service_account_file(account_file)
    sent = await fcm.send(AFMessage(token=TOKEN, notification=AFNotification(title="Hello", body="from async-firebase")))
    check("async-firebase: token send", sent.success, str(sent.exception))
    sent = await fcm.send(AFMessage(fid=FID, data={"k": "v"}))
    check("async-firebase: fid send", sent.success, str(sent.exception))
    for message, error in ((AFMessage(token="not-a-token", data={"k": "v"}), InvalidArgumentError), (AFMessage(token=GONE_TOKEN, data={"k": "v"}), UnregisteredError),
                           (AFMessage(fid="not-a-fid", data={"k": "v"}), UnregisteredError), (AFMessage(fid=GONE_FID, data={"k": "v"}), UnregisteredError)):
        answer = await fcm.send(message)
        check(f"async-firebase: {message.token or message.fid} gives {error.__name__}", isinstance(answer.exception, error), repr(answer.exception))


asyncio.run(async_firebase_checks())

# --- firebase-admin: fid and multicast fids with a service account.
import firebase_admin  # noqa: E402
from firebase_admin import credentials as fb_credentials, messaging  # noqa: E402

app = firebase_admin.initialize_app(fb_credentials.Certificate(account_file), name="fids")
name = messaging.send(messaging.Message(fid=FID, notification=messaging.Notification(title="Hi", body="fid")), app=app)
check("firebase-admin: send(fid=)", name.startswith(f"projects/{project}/messages/"), name)
for fid in ("not-a-fid", GONE_FID):
    for dry_run in (False, True):
        try:
            messaging.send(messaging.Message(fid=fid, data={"k": "v"}), dry_run=dry_run, app=app)
            check(f"firebase-admin: fid {fid} dry_run={dry_run} raises UnregisteredError", False, "no exception")
        except messaging.UnregisteredError:
            check(f"firebase-admin: fid {fid} dry_run={dry_run} raises UnregisteredError", True)
batch = messaging.send_each_for_multicast(messaging.MulticastMessage(fids=[FID, "not-a-fid", GONE_FID], data={"k": "v"}), app=app)
check("firebase-admin: send_each_for_multicast(fids=) one sent, two unregistered",
      batch.success_count == 1 and all(isinstance(r.exception, messaging.UnregisteredError) for r in batch.responses[1:]),
      f"{batch.success_count} sent; {[type(r.exception).__name__ for r in batch.responses]}")

# --- firebase-admin with user credentials (an authorized_user file with a quota project) and with
# the metadata server: each in a fresh interpreter, since google-auth reads its environment at import.
USER_SCRIPT = r"""
import json, os, sys, warnings
warnings.filterwarnings("ignore")
import firebase_admin
from firebase_admin import credentials, messaging
app = firebase_admin.initialize_app(credentials.ApplicationDefault(), {"projectId": sys.argv[1]})
print(messaging.send(messaging.Message(token=sys.argv[2], data={"via": os.environ.get("VIA", "")}), app=app))
"""
users = json.load(open(f"{certs}/authorized-user.json"))
no_quota = dict(users)
no_quota.pop("quota_project_id")
for label, info, expect_ok in (("with its quota project", users, True), ("without a quota project", no_quota, False)):
    path = os.path.join(tempfile.mkdtemp(), "adc.json")
    json.dump(info, open(path, "w"))
    environment = dict(os.environ, GOOGLE_APPLICATION_CREDENTIALS=path, VIA="authorized_user", NO_GCE_CHECK="true")
    run = subprocess.run([sys.executable, "-c", USER_SCRIPT, project, TOKEN], capture_output=True, text=True, env=environment, timeout=60)
    if expect_ok:
        check(f"firebase-admin: authorized_user {label} sends", run.returncode == 0 and f"projects/{project}/messages/" in run.stdout, run.stdout + run.stderr[-600:])
    else:
        check(f"firebase-admin: authorized_user {label} is refused: PERMISSION_DENIED, quota project",
              run.returncode != 0 and "requires a quota project" in run.stderr, run.stderr[-600:])
refreshed = [d for d in recorded_for("service=oauth") if (d.get("identity") or "").startswith("authorized_user:")]
check("the refresh-token grants were recorded with the user's client", len(refreshed) >= 2, str(len(refreshed)))

environment = dict(os.environ, GCE_METADATA_HOST=f"127.0.0.1:{metadata_port}", GCE_METADATA_IP=f"127.0.0.1:{metadata_port}", VIA="metadata")
environment.pop("GOOGLE_APPLICATION_CREDENTIALS", None)
run = subprocess.run([sys.executable, "-c", USER_SCRIPT, project, TOKEN], capture_output=True, text=True, env=environment, timeout=60, cwd=tempfile.mkdtemp())
check("firebase-admin: ApplicationDefault() through the metadata server sends", run.returncode == 0 and f"projects/{project}/messages/" in run.stdout, run.stdout + run.stderr[-600:])
metadata = [d for d in recorded_for("service=oauth") if d["path"].startswith("/computeMetadata/")]
check("the metadata server's token request was recorded", any("/token" in d["path"] and d["status"] == 200 for d in metadata), str([d["path"] for d in metadata]))

print("sdk fidelity: ok" if not failures else f"sdk fidelity: {len(failures)} failure(s): {failures}")
sys.exit(1 if failures else 0)
