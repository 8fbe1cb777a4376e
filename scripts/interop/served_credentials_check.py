"""Interop check: a server on free ports, its credentials fetched over the inspection API, and
firebase-admin using the served service account as it is (its token_uri names the real port; the
token URL is not patched; only the send URL, firebase-admin's one hook, points at PushMock).

usage: python served_credentials_check.py PORTS_FILE
"""
import json
import os
import sys
import tempfile
import urllib.request
import warnings

warnings.filterwarnings("ignore")
ports = json.load(open(sys.argv[1]))
push, inspection = ports["push"], ports["inspection"]
assert push not in (0, 2197) and inspection not in (0, 2198), ports
folder = tempfile.mkdtemp()


def fetch(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{inspection}{path}") as response:
        return response.read()


credentials = json.loads(fetch("/api/v1/credentials"))
open(f"{folder}/ca.pem", "wb").write(fetch("/api/v1/credentials/ca.pem"))
open(f"{folder}/service-account.json", "wb").write(fetch("/api/v1/credentials/service-account.json"))
account = json.load(open(f"{folder}/service-account.json"))
failures = []


def check(name, condition, detail=""):
    print(f"{'ok  ' if condition else 'FAIL'} {name} {detail}")
    if not condition:
        failures.append(name)


check("the served token_uri names the real push port", account["token_uri"] == f"https://localhost:{push}/token", account["token_uri"])
check("the JSON and the file agree", credentials["serviceAccount"]["token_uri"] == account["token_uri"])
os.environ["REQUESTS_CA_BUNDLE"] = os.environ["SSL_CERT_FILE"] = f"{folder}/ca.pem"

import firebase_admin  # noqa: E402
from firebase_admin import credentials as fb_credentials, messaging  # noqa: E402

messaging._MessagingService.FCM_URL = f"https://localhost:{push}" + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app(fb_credentials.Certificate(f"{folder}/service-account.json"))
name = messaging.send(messaging.Message(token=credentials["samples"]["fcmRegistrationToken"], data={"k": "v"}), app=app)
check("firebase-admin sends with the served account (OAuth at the real port)", name.startswith(f"projects/{account['project_id']}/messages/"), name)
recorded = json.loads(fetch("/api/v1/deliveries?service=oauth"))["deliveries"]
check("the token exchange reached this server", len(recorded) == 1 and recorded[0]["status"] == 200, str([d["status"] for d in recorded]))
print("served credentials: ok" if not failures else f"served credentials: {len(failures)} failure(s): {failures}")
sys.exit(1 if failures else 0)
