"""Interop check: pywebpush (PyPI), unmodified, sends Web Push messages to subscriptions PushMock
minted, as a backend sends to its users' browsers.

usage: python webpush_check.py PUSH_PORT INSPECTION_PORT CERTS_DIR
"""
import json
import os
import sys
import urllib.request

push_port, inspection_port, certs = int(sys.argv[1]), int(sys.argv[2]), os.path.abspath(sys.argv[3])
os.environ["REQUESTS_CA_BUNDLE"] = f"{certs}/ca.pem"

from py_vapid import Vapid02, b64urlencode  # noqa: E402
from cryptography.hazmat.primitives import serialization  # noqa: E402
from pywebpush import WebPushException, webpush  # noqa: E402

api = f"http://127.0.0.1:{inspection_port}/api/v1"
failures = []


def call(method: str, path: str, body=None):
    request = urllib.request.Request(api + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def check(condition: bool, what: str) -> None:
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


vapid = Vapid02()
vapid.generate_keys()
server_key = b64urlencode(vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
claims = {"sub": "mailto:ops@example.com"}

# 1. A push with a payload to a Firefox-shaped subscription made with the application server key.
mozilla = call("POST", "/web-push/subscriptions", {"service": "mozilla", "applicationServerKey": server_key})
subscription = {"endpoint": mozilla["endpoint"], "keys": mozilla["keys"]}
message = json.dumps({"title": "Order shipped", "body": "Your parcel is on its way", "url": "https://example.com/o/1"})
response = webpush(subscription, data=message, vapid_private_key=vapid, vapid_claims=dict(claims), ttl=60)
check(response.status_code == 201, f"pywebpush to Mozilla: {response.status_code} {response.text}")
[recorded] = call("GET", f"/deliveries?service=webpush&token={mozilla['id']}")["deliveries"]
check(recorded["body"] == message, f"the recorded plaintext is what pywebpush sent: {recorded.get('body')!r}")
check(recorded["outcome"] == "accepted" and recorded["identity"] == claims["sub"], f"recorded {recorded['outcome']} by {recorded['identity']}")
print(f"mozilla: 201, the recorded plaintext equals the sent message ({len(message)} bytes), sub {recorded['identity']}")

# 1b. The older aesgcm coding (pywebpush's content_encoding="aesgcm"): opened and recorded the same.
response = webpush(subscription, data=message, vapid_private_key=vapid, vapid_claims=dict(claims), ttl=60, content_encoding="aesgcm")
check(response.status_code == 201, f"pywebpush aesgcm to Mozilla: {response.status_code} {response.text}")
recorded = call("GET", f"/deliveries?service=webpush&token={mozilla['id']}")["deliveries"][0]
check(recorded["body"] == message and recorded["outcome"] == "accepted", f"aesgcm recorded: {recorded.get('outcome')} {recorded.get('body')!r}")
print("mozilla, aesgcm: 201, the recorded plaintext equals the sent message")

# 2. Safari's push service refuses a mailto: subject at localhost, and says only BadJwtToken.
apple = call("POST", "/web-push/subscriptions", {"service": "apple", "applicationServerKey": server_key})
try:
    webpush({"endpoint": apple["endpoint"], "keys": apple["keys"]}, data="hi", vapid_private_key=vapid,
            vapid_claims={"sub": "mailto:a@localhost"}, ttl=60)
    check(False, "Apple took a mailto:@localhost subject")
except WebPushException as error:
    check(error.response.status_code == 403 and error.response.json() == {"reason": "BadJwtToken"},
          f"Apple's answer to @localhost: {error.response.status_code} {error.response.text}")
[refused] = call("GET", f"/deliveries?service=webpush&token={apple['id']}")["deliveries"]
check(refused["reason"] == "subjectLocalhost" and "localhost" in refused["explanation"], f"the rule in the record: {refused['reason']}")
print(f"apple, sub mailto:a@localhost: 403 BadJwtToken; the record names the rule: {refused['reason']}")

# 3. A wrong aud is refused (Mozilla: 401, errno 109).
try:
    webpush(subscription, data="hi", vapid_private_key=vapid, vapid_claims=dict(claims, aud="https://push.example.net"), ttl=60)
    check(False, "a wrong aud was taken")
except WebPushException as error:
    body = error.response.json()
    check(error.response.status_code == 401 and body.get("errno") == 109, f"wrong aud: {error.response.status_code} {error.response.text}")
    print(f"mozilla, wrong aud: {error.response.status_code} errno {body.get('errno')}")

# 4. An expired subscription answers 410.
google = call("POST", "/web-push/subscriptions", {"service": "google", "applicationServerKey": server_key})
call("POST", f"/web-push/subscriptions/{google['id']}/expire")
try:
    webpush({"endpoint": google["endpoint"], "keys": google["keys"]}, data="hi", vapid_private_key=vapid, vapid_claims=dict(claims), ttl=60)
    check(False, "an expired subscription took a push")
except WebPushException as error:
    check(error.response.status_code == 410, f"expired: {error.response.status_code}")
    print(f"google, expired subscription: {error.response.status_code}")

print("webpush: ok" if not failures else f"webpush: {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
