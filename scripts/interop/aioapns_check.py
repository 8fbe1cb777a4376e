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

import h2.exceptions
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
    # A GOAWAY fault: PushMock answers the push, then sends GOAWAY (so python-h2, which refuses any
    # frame after a GOAWAY, reads the answer). aioapns closes the connection on GOAWAY but keeps it
    # in its pool until the socket is gone: a send in between fails in h2 with "Invalid input
    # ConnectionInputs.SEND_HEADERS in state ConnectionState.CLOSED" (what sygnal #203 sees from
    # real APNs), which the sender's code must retry. Once the socket is gone, a send goes on a new
    # connection.
    away = "b3" * 32
    put_fault({"id": "aioapns-goaway", "match": {"service": "apns", "token": away}, "sequence": [{"goAway": "Shutdown"}, {"accept": True}]})
    first = apns.pool.connections[0] if apns.pool.connections else None
    result = await apns.send_notification(NotificationRequest(
        device_token=away, message={"aps": {"alert": "before a GOAWAY"}}, push_type=PushType.ALERT))
    if not result.is_successful:
        print(f"FAIL: the push a GOAWAY follows: {result.status} {result.description}")
        failures += 1
    try:
        result = await apns.send_notification(NotificationRequest(
            device_token=away, message={"aps": {"alert": "right after a GOAWAY"}}, push_type=PushType.ALERT))
        print(f"right after the GOAWAY: status={result.status}")
    except h2.exceptions.ProtocolError as error:
        print(f"right after the GOAWAY: h2 refused the send on the closed connection ({error})")
    # The event: aioapns drops the connection from its pool when its socket is gone.
    deadline = asyncio.get_running_loop().time() + 30
    while first is not None and first in apns.pool.connections:
        if asyncio.get_running_loop().time() > deadline:
            print("FAIL: aioapns kept the connection that got GOAWAY for 30 s")
            failures += 1
            break
        await asyncio.sleep(0.01)
    result = await apns.send_notification(NotificationRequest(
        device_token=away, message={"aps": {"alert": "after a GOAWAY"}}, push_type=PushType.ALERT))
    if not result.is_successful:
        print(f"FAIL: the push after the GOAWAY: {result.status} {result.description}")
        failures += 1
    recorded = [(d["status"], d["connectionId"]) for d in reversed(deliveries(f"token={away}")["deliveries"])]
    print(f"around a GOAWAY: (status, connection) {recorded}")
    if len(recorded) < 2 or recorded[0][0] != 200 or recorded[-1][0] != 200 or recorded[0][1] == recorded[-1][1]:
        print("FAIL: around a GOAWAY, expected the first push answered 200 on the first connection and the last on a new one")
        failures += 1

    print("aioapns: ok" if failures == 0 else f"aioapns: {failures} failure(s)")
    return 1 if failures else 0


sys.exit(asyncio.run(main()))
