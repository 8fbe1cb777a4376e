"""How a user writes a test with the plugin: install the package, nothing else (no conftest)."""
import json
import ssl
import urllib.request


def test_x(pushmock):
    # The code under test would do this: send a push to PushMock's push port.
    context = ssl.create_default_context(cafile=pushmock.credentials.ca_path)
    request = urllib.request.Request(
        f"{pushmock.push_url}/3/device/{'cd' * 32}", method="POST", data=json.dumps({"aps": {"alert": "hi"}}).encode(),
        headers={"authorization": f"bearer {pushmock.credentials.apns_token()}", "apns-topic": "com.example.app"},
    )
    with urllib.request.urlopen(request, context=context) as response:
        assert response.status == 200
    [push] = pushmock.wait_for(service="apns")
    assert push["payload"] == {"aps": {"alert": "hi"}}


def test_each_test_starts_from_a_reset(pushmock):
    assert pushmock.deliveries() == []
