"""A stop with idle client connections open: google-auth's token fetch (requests, HTTP/1.1 over
TLS, kept alive in its pool) and an httpx HTTP/2 client, neither reading while idle, as in a
pytest session's teardown. The server closed them only after TLS's close_notify wait: each stop
took 5 s. Usage: stop_check.py PUSHMOCK_BINARY"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

import google.auth.transport.requests
import httpx
from google.oauth2 import service_account

binary = sys.argv[1]
work = tempfile.mkdtemp(prefix="pushmock-stop-")
ports_file = os.path.join(work, "ports.json")
server = subprocess.Popen([binary, "serve", "--port", "0", "--inspection-port", "0", "--ports-file", ports_file,
                           "--data-dir", os.path.join(work, "data"), "--log-level", "error"], cwd=work)
deadline = time.monotonic() + 60
while not os.path.exists(ports_file):
    if server.poll() is not None or time.monotonic() > deadline:
        sys.exit("pushmock serve did not start")
    time.sleep(0.05)
ports = json.load(open(ports_file))
api = f"http://127.0.0.1:{ports['inspection']}/api/v1"
account = json.loads(urllib.request.urlopen(api + "/credentials/service-account.json").read())
ca = os.path.join(work, "ca.pem")
open(ca, "wb").write(urllib.request.urlopen(api + "/credentials/ca.pem").read())

# HTTP/1.1: google-auth's token fetch keeps its connection in requests' pool.
os.environ["REQUESTS_CA_BUNDLE"] = ca
session = google.auth.transport.requests.requests.Session()
credentials = service_account.Credentials.from_service_account_info(
    account, scopes=["https://www.googleapis.com/auth/firebase.messaging"])
credentials.refresh(google.auth.transport.requests.Request(session=session))
# HTTP/2: one send over httpx, its connection kept open.
client = httpx.Client(http2=True, verify=ca)
sample = json.loads(urllib.request.urlopen(api + "/credentials").read())["samples"]["fcmRegistrationToken"]
answer = client.post(f"https://localhost:{ports['push']}/v1/projects/{account['project_id']}/messages:send",
                     headers={"authorization": f"Bearer {credentials.token}"}, json={"message": {"token": sample, "data": {"k": "v"}}})
assert answer.status_code == 200 and answer.http_version == "HTTP/2", (answer.status_code, answer.http_version, answer.text)

started = time.monotonic()
server.send_signal(signal.SIGTERM)
code = server.wait(timeout=60)
took = time.monotonic() - started
print(f"stop with an idle HTTP/1.1 and an idle HTTP/2 connection: {took:.2f} s, exit {code}")
if code != 0 or took > 1.0:
    sys.exit(f"FAIL: the stop took {took:.2f} s (bound 1 s; 5 s when idle TLS connections waited for close_notify), exit {code}")
