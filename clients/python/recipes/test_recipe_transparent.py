"""Recipes for SDKs with no hook for another host, through transparent mode: PushMock serves 443
as api.sandbox.push.apple.com, fcm.googleapis.com and oauth2.googleapis.com (``pushmock serve
--transparent``), the names point at it (/etc/hosts, a container's extra hosts), and the CA is
trusted (``eval "$(pushmock trust env)"``). Run with PUSHMOCK_URL at that server's inspection API.

- kalyke-apns: Apple's hosts are written into it;
- async-firebase: its token URL is written into it (its send URL, BASE_URL, could be changed)."""
import asyncio


def test_kalyke_apns(pushmock):
    from kalyke import ApnsClient, ApnsConfig, Payload, PayloadAlert
    from kalyke.exceptions import Unregistered

    credentials = pushmock.credentials
    client = ApnsClient(use_sandbox=True, team_id=credentials.apns_team_id, auth_key_id=credentials.apns_key_id, auth_key_filepath=credentials.apns_key_path)
    config = ApnsConfig(topic="com.example.app")
    apns_id = asyncio.run(client.send_message("ab" * 32, Payload(alert=PayloadAlert(title="Hi", body="kalyke")), config))
    assert len(apns_id) == 36
    pushmock.unregister("de" * 32)
    try:
        asyncio.run(client.send_message("de" * 32, Payload(alert="gone"), config))
        raise AssertionError("no Unregistered error")
    except Unregistered:
        pass
    [push] = pushmock.wait_for(service="apns", token="ab" * 32)
    assert push["status"] == 200


def test_async_firebase(pushmock):
    from async_firebase import AsyncFirebaseClient
    from async_firebase.errors import UnregisteredError
    from async_firebase.messages import Message

    async def send():
        client = AsyncFirebaseClient()
        client.creds_from_service_account_file(pushmock.credentials.service_account_path)
        sent = await client.send(Message(fid=pushmock.credentials.sample_fid, data={"k": "v"}))
        refused = await client.send(Message(fid="not-a-fid", data={"k": "v"}))
        return sent, refused

    sent, refused = asyncio.run(send())
    assert sent.success, sent.exception
    assert isinstance(refused.exception, UnregisteredError)
    assert pushmock.wait_for(service="fcm", status=200)[0]["deviceToken"] == pushmock.credentials.sample_fid
