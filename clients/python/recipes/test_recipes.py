"""Recipes: popular Python SDKs sending to the ``pushmock`` fixture's server, each through its own
hook for another server (run by CI; copy the one you need). The SDKs trust PushMock's CA through
REQUESTS_CA_BUNDLE / SSL_CERT_FILE or an ssl context."""
import asyncio
import os
import ssl
import uuid

import pytest


@pytest.fixture
def trust(pushmock, monkeypatch):
    """Points requests, httpx and google-auth at the server's CA."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", pushmock.credentials.ca_path)
    monkeypatch.setenv("SSL_CERT_FILE", pushmock.credentials.ca_path)
    return pushmock.credentials


def firebase_app(pushmock, name):
    import firebase_admin
    from firebase_admin import credentials, messaging

    # firebase-admin's one hook for the send URL; the token URL is the served account's own token_uri.
    messaging._MessagingService.FCM_URL = pushmock.push_url + "/v1/projects/{0}/messages:send"
    return firebase_admin.initialize_app(credentials.Certificate(pushmock.credentials.service_account_path), name=name)


def test_firebase_admin_sync(pushmock, trust):
    from firebase_admin import messaging

    app = firebase_app(pushmock, f"sync-{uuid.uuid4()}")
    token = trust.fcm_token()
    name = messaging.send(messaging.Message(token=token, notification=messaging.Notification(title="Hi", body="sync")), app=app)
    assert name.startswith(f"projects/{trust.project_id}/messages/")
    pushmock.unregister(trust.fcm_token("gone"))
    with pytest.raises(messaging.UnregisteredError):
        messaging.send(messaging.Message(token=trust.fcm_token("gone"), data={"k": "v"}), app=app)
    [sent] = pushmock.wait_for(service="fcm", status=200)
    assert sent["deviceToken"] == token


def test_firebase_admin_async(pushmock, trust):
    from firebase_admin import messaging

    app = firebase_app(pushmock, f"async-{uuid.uuid4()}")
    messages = [messaging.Message(token=trust.fcm_token(f"async-{n}"), data={"n": str(n)}) for n in range(3)]
    batch = asyncio.run(messaging.send_each_async(messages, app=app))
    assert batch.success_count == 3, [r.exception for r in batch.responses]
    assert len(pushmock.wait_for(count=3, service="fcm")) == 3


def test_aioapns(pushmock, trust):
    from aioapns import APNs, NotificationRequest
    from aioapns.connection import APNsDevelopmentClientProtocol, APNsTLSClientProtocol

    # aioapns' hooks for another server: the protocol classes' host and port.
    port = int(pushmock.push_url.rsplit(":", 1)[1])
    APNsDevelopmentClientProtocol.APNS_SERVER = "localhost"
    APNsTLSClientProtocol.APNS_PORT = port

    async def send():
        apns = APNs(key=open(trust.apns_key_path).read(), key_id=trust.apns_key_id, team_id=trust.apns_team_id,
                    topic="com.example.app", use_sandbox=True, ssl_context=ssl.create_default_context(cafile=trust.ca_path))
        result = await apns.send_notification(NotificationRequest(device_token="ab" * 32, message={"aps": {"alert": "aioapns"}}))
        gone = await apns.send_notification(NotificationRequest(device_token="de" * 32, message={"aps": {"alert": "gone"}}))
        return result, gone

    pushmock.unregister("de" * 32)
    result, gone = asyncio.run(send())
    assert result.is_successful, result.description
    assert not gone.is_successful and gone.description == "Unregistered"
    assert pushmock.wait_for(service="apns", token="ab" * 32)[0]["payload"] == {"aps": {"alert": "aioapns"}}
