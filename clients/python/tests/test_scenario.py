"""The scenario every PushMock helper runs (Python, JavaScript, Go), against a real pushmock serve.

The server is the one at PUSHMOCK_URL, or one started for the session (PUSHMOCK_BIN or PATH):
the pytest plugin's own fixture. Pushes are sent over HTTPS with the standard library.
"""
import json
import ssl
import time
import urllib.error
import urllib.request

import pytest

from pushmock import PushMockTimeout, android_v2_kind, describe

DEVICE = "ab" * 32
PUSH_TO_START = "5a" * 80


def send(pushmock, path, body, headers):
    """POSTs to the push port, trusting the server's CA; returns (status, decoded body)."""
    context = ssl.create_default_context(cafile=pushmock.credentials.ca_path)
    request = urllib.request.Request(pushmock.push_url + path, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as response:
            text = response.read().decode()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        return error.code, json.loads(text) if text else None


def apns(pushmock, token, aps, push_type="alert", topic="com.example.app"):
    headers = {"authorization": f"bearer {pushmock.credentials.apns_token()}", "apns-topic": topic, "apns-push-type": push_type, "apns-priority": "10"}
    return send(pushmock, f"/3/device/{token}", {"aps": aps}, headers)


def fcm(pushmock, message):
    headers = {"authorization": f"Bearer {pushmock.credentials.fcm_access_token()}", "content-type": "application/json"}
    return send(pushmock, f"/v1/projects/{pushmock.credentials.project_id}/messages:send", {"message": message}, headers)


def test_an_apns_alert_and_an_fcm_message_are_sent_and_waited_for(pushmock):
    after = pushmock.cursor()
    assert apns(pushmock, DEVICE, {"alert": {"title": "Hello", "body": "from Python"}})[0] == 200
    token = pushmock.credentials.fcm_token()
    status, body = fcm(pushmock, {"token": token, "notification": {"title": "Hello"}})
    assert status == 200 and body["name"].startswith(f"projects/{pushmock.credentials.project_id}/messages/"), body
    [alert] = pushmock.wait_for(service="apns", token=DEVICE, after=after)
    assert alert["outcome"] == "accepted" and alert["payload"]["aps"]["alert"]["title"] == "Hello"
    [message] = pushmock.wait_for(service="fcm", after=after)
    assert message["deviceToken"] == token and message["status"] == 200
    assert [d["service"] for d in pushmock.deliveries(after=after, service="apns")] == ["apns"]


def test_android_v2_messages_are_accepted_and_told_apart(pushmock):
    after = pushmock.cursor()
    token = pushmock.credentials.fcm_token()
    remote = {"token": token, "android_v2": {"remote_notification": {"notification": {"title": "Goal", "body": "2-1"}}}}
    assert fcm(pushmock, remote)[0] == 200
    assert fcm(pushmock, {"token": token, "data": {"sync": "inbox"}, "androidV2": {"backgroundSync": {}}})[0] == 200
    status, body = fcm(pushmock, {"token": token, "android": {}, "android_v2": {"background_sync": {}}})
    assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT", body
    first, second, refused = pushmock.wait_for(3, service="fcm", after=after)
    assert [android_v2_kind(d) for d in (first, second)] == ["remote_notification", "background_sync"]
    assert describe(first).endswith("android_v2:remote_notification") and refused["outcome"] == "rejected"


def test_a_live_activity_start_update_and_end_land_on_one_timeline(pushmock):
    now = int(time.time())
    start = {"event": "start", "timestamp": now, "content-state": {"score": "0-0"}, "attributes-type": "MatchAttributes",
             "attributes": {"home": "A", "away": "B"}, "alert": {"title": "Kick-off", "body": "A v B"}, "input-push-token": 1}
    topic = "com.example.app.push-type.liveactivity"
    assert apns(pushmock, PUSH_TO_START, start, "liveactivity", topic)[0] == 200
    [started] = pushmock.wait_for(token=PUSH_TO_START)
    activity_token = started["issuedActivityToken"]
    assert activity_token, started
    assert apns(pushmock, activity_token, {"event": "update", "timestamp": now + 1, "content-state": {"score": "1-0"}}, "liveactivity", topic)[0] == 200
    assert apns(pushmock, activity_token, {"event": "end", "timestamp": now + 2, "content-state": {"score": "1-0"}}, "liveactivity", topic)[0] == 200
    pushmock.wait_for(count=2, token=activity_token)
    activity = pushmock.activity(activity_token)
    assert [entry["event"] for entry in activity["timeline"]] == ["start", "update", "end"]
    assert activity["contentState"] == {"score": "1-0"} and activity["state"] == "ended"


def test_a_count_1_fault_fires_once(pushmock):
    pushmock.add_fault({"service": "apns", "token": DEVICE}, id="busy", reject={"status": 429, "reason": "TooManyRequests"}, count=1)
    assert apns(pushmock, DEVICE, {"alert": "one"}) == (429, {"reason": "TooManyRequests"})
    assert apns(pushmock, DEVICE, {"alert": "two"})[0] == 200
    assert [d["status"] for d in pushmock.wait_for(2, service="apns")] == [429, 200]


def test_a_fault_sequence_answers_each_step_in_turn(pushmock):
    pushmock.add_fault({"service": "apns", "token": DEVICE}, id="retry",
                       sequence=[{"reject": {"reason": "ServiceUnavailable"}}, {"reject": {"reason": "TooManyRequests"}}, {"accept": True}])
    assert [apns(pushmock, DEVICE, {"alert": str(n)})[0] for n in range(4)] == [503, 429, 200, 200]
    assert [d.get("fault") for d in pushmock.wait_for(4, service="apns")] == ["retry", "retry", None, None]


def test_an_unregistered_device_is_answered_410_and_404_unregistered(pushmock):
    pushmock.unregister(DEVICE, at_milliseconds=1767225600000)
    status, body = apns(pushmock, DEVICE, {"alert": "gone"})
    assert status == 410 and body == {"reason": "Unregistered", "timestamp": 1767225600000}
    token = pushmock.credentials.fcm_token("gone")
    pushmock.unregister(token)
    status, body = fcm(pushmock, {"token": token, "data": {"k": "v"}})
    assert status == 404 and body["error"]["details"][0]["errorCode"] == "UNREGISTERED", body


def test_a_reset_clears_everything(pushmock):
    pushmock.add_fault({"service": "apns"}, id="all", reject={"status": 500, "reason": "InternalServerError"})
    pushmock.unregister(DEVICE)
    apns(pushmock, DEVICE, {"alert": "x"})
    assert pushmock.wait_for(service="apns")
    pushmock.reset()
    assert pushmock.deliveries() == [] and pushmock.cursor() == 0
    assert apns(pushmock, DEVICE, {"alert": "after the reset"})[0] == 200


def test_a_wait_that_times_out_says_what_arrived(pushmock):
    apns(pushmock, DEVICE, {"alert": "not what the test waits for"})
    started = time.monotonic()
    with pytest.raises(PushMockTimeout) as raised:
        pushmock.wait_for(service="fcm", timeout=0.5)
    assert 0.4 < time.monotonic() - started < 5
    message = str(raised.value)
    assert "service=fcm" in message and "0 matched" in message and f"apns 200 accepted {DEVICE}" in message, message
    assert raised.value.arrived and raised.value.arrived[-1]["service"] == "apns"


def test_a_server_that_does_not_answer_is_an_error_not_a_skip():
    from pushmock import PushMock, PushMockError
    with pytest.raises(PushMockError) as raised:
        PushMock("http://127.0.0.1:9").deliveries()
    assert "not answering" in str(raised.value)


def test_the_credentials_carry_the_shared_names(pushmock):
    # The same names in every helper (docs/testing-from-any-language.md), in this language's casing.
    credentials = pushmock.credentials
    assert credentials.push_url.startswith("https://")
    assert credentials.ca_pem.startswith("-----BEGIN CERTIFICATE-----")
    assert open(credentials.ca_path).read() == credentials.ca_pem
    assert (credentials.apns_key_id, credentials.apns_team_id, credentials.apns_bundle_id) == ("PUSHMOCK01", "PMTEAM0001", "com.example.app")
    assert open(credentials.apns_key_path).read().startswith("-----BEGIN PRIVATE KEY-----")
    assert json.load(open(credentials.service_account_path))["project_id"] == credentials.project_id == "pushmock-demo"
    assert json.load(open(credentials.authorized_user_path))["type"] == "authorized_user"
    assert len(credentials.sample_device_token) == 64 and len(credentials.sample_fid) == 22


def test_a_web_push_to_a_minted_subscription_is_recorded_and_an_expired_one_answers_410(pushmock):
    subscription = pushmock.create_web_push_subscription("mozilla")
    assert subscription["endpoint"].startswith(pushmock.push_url + "/wpush/v1/") and set(subscription["keys"]) == {"p256dh", "auth"}
    context = ssl.create_default_context(cafile=pushmock.credentials.ca_path)

    def push():
        # A push without a payload: no encryption needed, and no VAPID for a subscription made without a key.
        request = urllib.request.Request(subscription["endpoint"], data=b"", method="POST", headers={"ttl": "60"})
        try:
            with urllib.request.urlopen(request, context=context, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    assert push() == 201
    [delivery] = pushmock.wait_for(service="webpush", token=subscription["id"])
    assert delivery["outcome"] == "accepted" and delivery["status"] == 201
    assert pushmock.expire_web_push_subscription(subscription["id"])["state"] == "expired"
    assert push() == 410
