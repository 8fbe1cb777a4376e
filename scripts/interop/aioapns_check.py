"""Interop check: the unmodified aioapns client (PyPI) against PushMock.

aioapns speaks HTTP/2 over TLS *without* ALPN and waits for the exact apns-id it sent, so this
checks the preface sniffing and the apns-id echo. Its only hooks for another server are the
protocol classes' APNS_SERVER/APNS_PORT attributes, set below.

usage: python aioapns_check.py PUSH_PORT INSPECTION_PORT CERTS_DIR
"""
import asyncio
import json
import ssl
import sys
import urllib.request
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns.connection import APNsDevelopmentClientProtocol, APNsTLSClientProtocol

push_port, inspection_port, certs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
APNsTLSClientProtocol.APNS_PORT = push_port


def deliveries(query: str) -> dict:
    with urllib.request.urlopen(f"http://127.0.0.1:{inspection_port}/api/v1/deliveries?{query}") as response:
        return json.load(response)


def put_fault(rule: dict) -> None:
    request = urllib.request.Request(f"http://127.0.0.1:{inspection_port}/api/v1/faults", data=json.dumps(rule).encode(), method="PUT",
                                     headers={"content-type": "application/json"})
    urllib.request.urlopen(request).close()


async def main() -> int:
    context = ssl.create_default_context(cafile=f"{certs}/ca.pem")
    apns = APNs(
        key=open(f"{certs}/AuthKey_PUSHMOCK01.p8").read(),
        key_id="PUSHMOCK01",
        team_id="PMTEAM0001",
        topic="com.example.app",
        use_sandbox=True,
        ssl_context=context,
    )
    failures = 0
    token = "a1" * 32

    alert_id = str(uuid.uuid4())
    result = await apns.send_notification(NotificationRequest(
        device_token=token,
        message={"aps": {"alert": {"title": "aioapns", "body": "Hello from aioapns"}, "sound": "default"}},
        notification_id=alert_id,
        push_type=PushType.ALERT,
    ))
    print(f"alert: is_successful={result.is_successful} status={result.status} id={result.notification_id}")
    if not result.is_successful or result.notification_id != alert_id:
        failures += 1
    found = deliveries(f"token={token}&outcome=accepted")["deliveries"]
    if not any(d["apnsId"] == alert_id for d in found):
        print("FAIL: the alert is not recorded as accepted")
        failures += 1

    bad = await apns.send_notification(NotificationRequest(
        device_token="not-hex",
        message={"aps": {"alert": "x"}},
        push_type=PushType.ALERT,
    ))
    print(f"bad token: is_successful={bad.is_successful} status={bad.status} description={bad.description}")
    if bad.is_successful or bad.status != "400" or bad.description != "BadDeviceToken":
        failures += 1

    if len(sys.argv) > 4 and sys.argv[4] == "--liveactivity":
        import time
        live = await apns.send_notification(NotificationRequest(
            device_token="cd" * 80,
            message={"aps": {"event": "update", "timestamp": int(time.time()), "content-state": {"score": "2-1"}}},
            push_type=PushType.LIVEACTIVITY,
            apns_topic="com.example.app.push-type.liveactivity",
            priority=10,
        ))
        print(f"liveactivity: is_successful={live.is_successful} status={live.status}")
        if not live.is_successful:
            failures += 1

    # Its retry behaviour against a fault sequence. aioapns hands an APNs rejection (503, 429) back
    # as a result and retries nothing itself: the sender's own code retries. What it does retry is
    # a send whose connection closed under it; after a GOAWAY it opens a new connection.
    retried = "b2" * 32
    put_fault({"id": "aioapns-retry", "match": {"service": "apns", "token": retried}, "sequence": [
        {"reject": {"reason": "ServiceUnavailable"}}, {"reject": {"reason": "TooManyRequests", "retryAfter": 1}}, {"accept": True}]})
    answers = []
    for attempt in range(3):
        result = await apns.send_notification(NotificationRequest(
            device_token=retried, message={"aps": {"alert": f"attempt {attempt}"}}, push_type=PushType.ALERT))
        answers.append((result.status, result.description))
    print(f"sequence: {answers}")
    if [status for status, _ in answers] != ["503", "429", "200"] or answers[0][1] != "ServiceUnavailable" or answers[1][1] != "TooManyRequests":
        print("FAIL: a sequence 503, 429, accept did not reach aioapns's caller one answer per send")
        failures += 1
    away = "b3" * 32
    put_fault({"id": "aioapns-goaway", "match": {"service": "apns", "token": away}, "sequence": [{"goAway": "Shutdown"}, {"accept": True}]})
    for attempt in range(2):
        result = await apns.send_notification(NotificationRequest(
            device_token=away, message={"aps": {"alert": f"around a GOAWAY {attempt}"}}, push_type=PushType.ALERT))
        if not result.is_successful:
            print(f"FAIL: send {attempt} around a GOAWAY: {result.status} {result.description}")
            failures += 1
    # (python-h2 refuses any frame after a GOAWAY, and PushMock's GOAWAY goes out ahead of the
    # answer's HEADERS: aioapns then sees ConnectionClosed for that send and sends it again on a new
    # connection, so the token may have three deliveries. Both sends succeed either way, and the
    # last one is on another connection than the first.)
    connections = [d["connectionId"] for d in reversed(deliveries(f"token={away}")["deliveries"])]
    print(f"around a GOAWAY: connections {connections}")
    if len(connections) < 2 or connections[0] == connections[-1]:
        print("FAIL: after the GOAWAY aioapns did not send on a new connection")
        failures += 1

    print("aioapns: ok" if failures == 0 else f"aioapns: {failures} failure(s)")
    return 1 if failures else 0


sys.exit(asyncio.run(main()))
