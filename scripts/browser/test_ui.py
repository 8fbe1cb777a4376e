#!/usr/bin/env python3
"""Browser tests of PushMock's web page, in a real Chromium driven by Selenium.

Usage: test_ui.py PUSHMOCK_BINARY PUSH_PORT INSPECTION_PORT OTHER_ORIGIN_PORT SCREENSHOT_DIR TOKEN_INSPECTION_PORT

Expects `pushmock serve --port PUSH_PORT --inspection-port INSPECTION_PORT` running with the
sample credentials of Certs/ (the repository root is the working directory), and a second one
whose inspection port TOKEN_INSPECTION_PORT wants `--inspection-token browser-secret`. Every check
raises on failure; nothing is skipped.
"""
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

BINARY, PUSH_PORT, INSPECTION_PORT, SHOTS, TOKEN_PORT = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
BASE = f"http://127.0.0.1:{INSPECTION_PORT}"
PUSH = f"https://localhost:{PUSH_PORT}"
os.makedirs(SHOTS, exist_ok=True)
checks = []


def check(name):
    def wrap(function):
        checks.append((name, function))
        return function
    return wrap


def api(path, method="GET", body=None):
    request = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"x-pushmock-client": "browser-tests", "content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def provider_token():
    return subprocess.run([BINARY, "token", "apns"], check=True, capture_output=True, text=True).stdout.strip()


def push(token, headers, body, base=None):
    """Sends an APNs request with curl (HTTP/2 over TLS); returns (status, body)."""
    arguments = ["curl", "-sS", "--http2", "--cacert", "Certs/ca.pem", "-o", "-", "-w", "\n%{http_code}",
                 "-H", f"authorization: bearer {provider_token()}", "-d", json.dumps(body)]
    for name, value in headers.items():
        arguments += ["-H", f"{name}: {value}"]
    output = subprocess.run(arguments + [f"{base or PUSH}/3/device/{token}"], check=True, capture_output=True, text=True).stdout
    text, status = output.rsplit("\n", 1)
    return int(status), text


def alert(token, title, **headers):
    return push(token, {"apns-topic": "com.example.app", "apns-push-type": "alert", **headers}, {"aps": {"alert": {"title": title, "body": "from the browser tests"}}})


def live_activity(token, aps):
    return push(token, {"apns-topic": "com.example.app.push-type.liveactivity", "apns-push-type": "liveactivity", "apns-priority": "10"}, {"aps": aps})


def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)


driver = make_driver()
wait = WebDriverWait(driver, 10)


def until(description, condition, timeout=10):
    try:
        # A view re-renders its rows after each change: an element found a moment ago may be gone.
        ignored = (NoSuchElementException, StaleElementReferenceException)
        return WebDriverWait(driver, timeout, ignored_exceptions=ignored).until(lambda _: condition())
    except TimeoutException:
        raise AssertionError(f"timed out waiting for {description}") from None


def shot(name):
    path = os.path.join(SHOTS, f"{name}.png")
    driver.save_screenshot(path)
    print(f"  screenshot {path}")


def click(element):
    """Scrolls the element to the middle of the window (clear of the sticky header), then clicks."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def console_errors():
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def open_view(view):
    """Loads the page afresh on a view (a hash change alone would keep the page's state)."""
    driver.get("about:blank")
    driver.get(f"{BASE}/#/{view}")
    until(f"the {view} view", lambda: driver.find_element(By.CSS_SELECTOR, "main h2"))


@check("the page loads with its content types, cache validators and Content-Security-Policy")
def page_loads():
    with urllib.request.urlopen(BASE + "/") as response:
        assert response.headers["content-type"].startswith("text/html"), response.headers["content-type"]
        assert "script-src 'self'" in response.headers["content-security-policy"]
        assert response.headers["etag"]
    with urllib.request.urlopen(BASE + "/ui/app.js") as response:
        assert response.headers["content-type"].startswith("text/javascript")
    api("/api/v1/reset", "POST", {})
    open_view("deliveries")
    assert driver.title == "PushMock"
    until("the event stream to be live", lambda: driver.find_element(By.ID, "live").text == "live")


@check("a push sent with curl appears without a reload")
def live_push():
    marker = driver.execute_script("window.__sameDocument = 42; return window.__sameDocument")
    status, body = alert("ab" * 32, "Hello from curl")
    assert status == 200, body
    until("the row", lambda: "Hello from curl" in driver.find_element(By.CSS_SELECTOR, "table.deliveries tbody").text)
    assert driver.execute_script("return window.__sameDocument") == marker, "the page was reloaded"
    shot("deliveries")


@check("a rejected push's detail shows the decoded JWT claims and highlights the path its rule names")
def detail():
    now = int(time.time())
    status, body = live_activity("cd" * 32, {"event": "update", "timestamp": now - 7200, "content-state": {"score": "1-0"}})
    assert status == 400 and "LiveActivityTimestampStale" in body, (status, body)
    row = until("the rejected row", lambda: next((r for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr") if "LiveActivityTimestampStale" in r.text), None))
    row.send_keys(Keys.ENTER)
    until("the detail", lambda: "Delivery" in driver.find_element(By.ID, "detail-title").text)
    jwt = driver.find_element(By.CSS_SELECTOR, ".jwt").text
    assert '"iss": "PMTEAM0001"' in jwt and '"kid": "PUSHMOCK01"' in jwt and "signature elided" in jwt, jwt
    highlighted = driver.find_elements(By.CSS_SELECTOR, ".json .highlight")
    assert [element.get_attribute("data-path") for element in highlighted] == ["aps.timestamp"], [element.get_attribute("data-path") for element in highlighted]
    assert "LiveActivityTimestampStale" in driver.find_element(By.CSS_SELECTOR, ".rule").text
    driver.execute_script("window.scrollTo(0, 0)")
    shot("delivery-detail")
    click(driver.find_element(By.XPATH, "//button[text()='Copy as curl']"))
    until("the curl command", lambda: "curl" in driver.find_element(By.CSS_SELECTOR, "pre.curl").text)
    click(driver.find_element(By.XPATH, "//button[text()='Send again']"))
    link = until("the resent delivery's link", lambda: next(iter(driver.find_elements(By.XPATH, "//a[starts-with(text(), 'delivery ')]")), None))
    click(link)
    until("the new delivery", lambda: "LiveActivityTimestampStale" in driver.find_element(By.ID, "main").text)


@check("filters narrow the list to what the API returns for them")
def filters():
    open_view("deliveries")
    until("three rows", lambda: len(driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")) >= 3)
    Select(driver.find_element(By.NAME, "outcome")).select_by_value("rejected")
    expected = {d["id"] for d in api("/api/v1/deliveries?outcome=rejected")["deliveries"]}
    until("only rejected rows", lambda: {int(r.get_attribute("data-id")) for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")} == expected)
    alert("ef" * 32, "accepted while filtered")
    time.sleep(0.5)
    assert all("rejected" in r.get_attribute("class") for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")), "a live accepted push passed the filter"
    search = driver.find_element(By.NAME, "text")
    Select(driver.find_element(By.NAME, "outcome")).select_by_value("")
    search.send_keys("Hello from curl")
    until("the text search", lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")] and all("Hello from curl" in r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")))
    # The text search means what the API's does, live pushes included: headers (name: value) and body.
    search.send_keys(Keys.CONTROL, "a")
    search.send_keys(Keys.DELETE)
    search.send_keys("x-trace: found-by-header")
    status, body = alert("ab" * 32, "found only by a header", **{"x-trace": "found-by-header"})
    assert status == 200, body
    expected = {d["id"] for d in api("/api/v1/deliveries?text=" + urllib.parse.quote("x-trace: found-by-header"))["deliveries"]}
    assert len(expected) == 1, expected
    rows = lambda: {int(r.get_attribute("data-id")) for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")}
    until("the live push found by its header, and only it", lambda: rows() == expected)


@check("a WidgetKit push is a push type of its own: the push-type filter lists widgets, live pushes included")
def widgets_filter():
    open_view("deliveries")
    status, text = push("ab" * 32, {"apns-topic": "com.example.app.push-type.widgets", "apns-push-type": "widgets", "apns-priority": "5"}, {"aps": {"content-changed": True}})
    assert status == 200, (status, text)
    Select(driver.find_element(By.NAME, "pushType")).select_by_value("widgets")
    expected = {d["id"] for d in api("/api/v1/deliveries?pushType=widgets")["deliveries"]}
    assert expected, "the widgets push was not recorded with pushType widgets"
    rows = lambda: {int(r.get_attribute("data-id")) for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")}
    until("only widgets rows", lambda: rows() == expected)
    status, _ = push("ab" * 32, {"apns-topic": "com.example.app.push-type.widgets", "apns-push-type": "widgets", "apns-priority": "5"}, {"aps": {"content-changed": True}})
    assert status == 200
    alert("ab" * 32, "an alert while widgets are filtered")
    until("the live widgets push, and not the alert", lambda: len(rows()) == len(expected) + 1)
    time.sleep(0.5)
    assert all("widgets" in r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")), "a live alert passed the widgets filter"
    Select(driver.find_element(By.NAME, "pushType")).select_by_value("")


@check("a fault created in the page rejects the next push")
def fault():
    open_view("faults")
    token = "fa" * 32
    driver.find_element(By.NAME, "token").send_keys(token)
    Select(driver.find_element(By.NAME, "reason")).select_by_value("ServiceUnavailable")
    driver.find_element(By.NAME, "count").send_keys("1")
    click(driver.find_element(By.XPATH, "//button[text()='Create fault']"))
    until("the fault row", lambda: driver.find_elements(By.CSS_SELECTOR, "tr[data-fault]"))
    shot("faults")
    status, body = alert(token, "meets the fault")
    assert status == 503 and "ServiceUnavailable" in body, (status, body)
    newest = api(f"/api/v1/deliveries?token={token}&limit=1")["deliveries"][0]
    assert newest["fault"] and newest["reason"] == "ServiceUnavailable", newest
    status, _ = alert(token, "after the fault")
    assert status == 200, "a count-1 fault fired twice"


@check("a fault sequence shows its steps with the next one marked, and the mark moves as requests use them")
def fault_sequence():
    token = "5e" * 32
    api("/api/v1/faults", "PUT", {"id": "retry", "match": {"token": token},
                                  "sequence": [{"reject": {"reason": "ServiceUnavailable"}}, {"reject": {"reason": "TooManyRequests"}}, {"accept": True}]})
    open_view("faults")
    row = lambda: driver.find_element(By.CSS_SELECTOR, "tr[data-fault='retry']").text
    until("the sequence's row", lambda: "→ reject 503 ServiceUnavailable, reject 429 TooManyRequests, accept" in row())
    shot("fault-sequence")
    status, _ = alert(token, "meets the first step")
    assert status == 503, status
    open_view("faults")
    until("the mark on the second step", lambda: "reject 503 ServiceUnavailable, → reject 429 TooManyRequests, accept" in row())
    api("/api/v1/faults/retry", "DELETE")


@check("a Live Activity played start → update → end shows in its card and timeline")
def live_activity_card():
    now = int(time.time())
    status, body = live_activity("9a" * 32, {"event": "start", "timestamp": now, "attributes-type": "MatchAttributes", "attributes": {"home": "Lions", "away": "Tigers"},
                                              "content-state": {"score": "0-0", "minute": 1}, "alert": {"title": "Kick-off", "body": "Lions v Tigers"}, "input-push-token": 1})
    assert status == 200, body
    started = api("/api/v1/deliveries?limit=1")["deliveries"][0]
    token = started["issuedActivityToken"]
    assert token, started
    open_view("activities")
    until("the card", lambda: "MatchAttributes" in driver.find_element(By.CSS_SELECTOR, ".activities").text)
    status, body = live_activity(token, {"event": "update", "timestamp": now + 1, "content-state": {"score": "1-0", "minute": 12}, "alert": {"title": "Goal", "body": "Lions lead"}})
    assert status == 200, body
    until("the update in the card", lambda: "1-0" in driver.find_element(By.CSS_SELECTOR, ".lock-screen").text)
    status, body = live_activity(token, {"event": "end", "timestamp": now + 2, "content-state": {"score": "2-1", "minute": 90}, "dismissal-date": now + 3600})
    assert status == 200, body
    until("the ended state", lambda: driver.find_element(By.CSS_SELECTOR, ".activity .badge").text == "ended")
    timeline = driver.find_element(By.CSS_SELECTOR, ".timeline").text
    for expected in ["start", "update", "end", "applied", "~ score: 0-0 → 1-0", "~ score: 1-0 → 2-1"]:
        assert expected in timeline, (expected, timeline)
    card = driver.find_element(By.CSS_SELECTOR, ".lock-screen").text
    assert "2-1" in card and "Lions" in card and "12 h lock-screen limit" in card and "ended" in card, card
    assert "Goal Lions lead" in card, f"the last alert shown: {card}"
    shot("live-activities")


@check("relay in shadow mode: a push PushMock rejects and its upstream accepts is highlighted as a disagreement, live, in the detail and in the catalogue's parity")
def relay_disagreement():
    logs = os.path.join(SHOTS, "relay-serve.log")

    def serve(*args, **popen):
        # Ports from the kernel, read back from --ports-file once the server is up.
        ports_file = os.path.join(tempfile.mkdtemp(prefix="pushmock-ui-"), "ports.json")
        process = subprocess.Popen([BINARY, "serve", "--port", "0", "--inspection-port", "0", "--ports-file", ports_file, *args], **popen)
        deadline = time.time() + 60
        while not os.path.exists(ports_file):
            if process.poll() is not None or time.time() > deadline:
                raise AssertionError(f"pushmock serve {args} did not start: {open(logs).read() if os.path.exists(logs) else ''}")
            time.sleep(0.05)
        ports = json.load(open(ports_file))
        return process, ports["push"], ports["inspection"]

    upstream, upstream_push, upstream_inspection = serve("--live-activity-profile", "apple", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(logs, "w") as log:
        relay, relay_push, relay_inspection = serve("--relay-apns", f"https://localhost:{upstream_push}",
                                                    "--relay-apns-key", "Certs/AuthKey_PUSHMOCK01.p8", "--relay-apns-key-id", "PUSHMOCK01",
                                                    "--relay-apns-team-id", "PMTEAM0001", "--relay-mode", "shadow", "--relay-ca-file", "Certs/ca.pem",
                                                    stdout=log, stderr=subprocess.STDOUT)
    try:
        page = f"http://127.0.0.1:{relay_inspection}"
        driver.get(page + "/#/deliveries")
        until("the list", lambda: driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody"))
        # A timestamp in milliseconds: strict PushMock answers 400, Apple's devices drop it (200).
        now = int(time.time())
        status, body = push("5b" * 80, {"apns-topic": "com.example.app.push-type.liveactivity", "apns-push-type": "liveactivity", "apns-priority": "10"},
                            {"aps": {"event": "start", "timestamp": now * 1000, "attributes-type": "MatchAttributes", "attributes": {"home": "A", "away": "B"},
                                     "content-state": {"score": "0-0"}, "alert": {"title": "t", "body": "b"}}}, base=f"https://localhost:{relay_push}")
        assert status == 400 and "LiveActivityTimestampInMilliseconds" in body, (status, body)
        row = until("the row marked as a disagreement", lambda: driver.find_elements(By.CSS_SELECTOR, "tr.disagrees"))[0]
        assert "≠ upstream 200" in row.text, row.text
        shot("relay-disagreement")
        click(row)
        section = until("the relay section", lambda: driver.find_elements(By.CSS_SELECTOR, ".relay-answer.disagrees"))[0]
        assert f"https://localhost:{upstream_push} answered 200" in section.text and "difference to report" in section.text, section.text
        listed = json.loads(urllib.request.urlopen(page + "/api/v1/deliveries?relayAgrees=false", timeout=5).read())
        assert listed["total"] == 1 and listed["deliveries"][0]["relay"]["agrees"] is False, listed
        upstream_list = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{upstream_inspection}/api/v1/deliveries", timeout=5).read())
        assert upstream_list["total"] == 1 and upstream_list["deliveries"][0]["outcome"] == "dropped", upstream_list
        banner = open(logs).read()
        assert f"relay (shadow): APNs to https://localhost:{upstream_push}" in banner and "reach real devices" in banner, banner
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", section)
        shot("relay-detail")
        # The catalogue shows the parity record beside the rule's entry.
        driver.get(page + "/#/rejections")
        parity = until("the rule's parity record", lambda: driver.find_elements(
            By.CSS_SELECTOR, "tr[data-entry] .parity.parity-disagreed"))
        assert len(parity) >= 1 and all("LiveActivityTimestampInMilliseconds: disagreed with" in element.text for element in parity), \
            [element.text for element in parity]
        assert "(it answered 200 ×1)" in parity[0].text, parity[0].text
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", parity[0])
        shot("rejections-parity")
    finally:
        # Back to the main page first: its event stream would break when the servers stop.
        driver.get(BASE + "/#/deliveries")
        for process in (relay, upstream):
            process.terminate()
            process.wait(timeout=15)


@check("devices can be added and unregistered")
def devices():
    open_view("devices")
    token = "de" * 32
    driver.find_element(By.NAME, "token").send_keys(token)
    Select(driver.find_element(By.NAME, "state")).select_by_value("unregistered")
    click(driver.find_element(By.XPATH, "//button[text()='Save device']"))
    until("the device row", lambda: "unregistered" in driver.find_element(By.CSS_SELECTOR, "tbody").text)
    assert api(f"/api/v1/devices/{token}")["state"] == "unregistered"
    shot("devices")
    click(driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Unregister {token}']"))
    until("the row gone", lambda: "No devices registered." in driver.find_element(By.CSS_SELECTOR, "tbody").text)


def google(path, body, headers=()):
    """A request to PushMock's FCM side with a self-signed service-account bearer; returns (status, json)."""
    bearer = subprocess.run([BINARY, "token", "fcm", "--self-signed"], check=True, capture_output=True, text=True).stdout.strip()
    arguments = ["curl", "-sS", "--cacert", "Certs/ca.pem", "-o", "-", "-w", "\n%{http_code}", "-H", f"authorization: Bearer {bearer}",
                 "-H", "content-type: application/json", "-d", json.dumps(body)]
    for header in headers:
        arguments += ["-H", header]
    text, status = subprocess.run(arguments + [f"{PUSH}{path}"], check=True, capture_output=True, text=True).stdout.rsplit("\n", 1)
    return int(status), json.loads(text)


@check("an android_v2 remote notification shows its title and body in the deliveries table, a background sync says so")
def android_v2_rows():
    token = "YW5kcm9pZC12Mg:APA91b" + "V2r" * 40
    status, body = google("/v1/projects/pushmock-demo/messages:send",
                          {"message": {"token": token, "android_v2": {"remote_notification": {"notification": {"title": "Goal", "body": "Lions 2-1"}}}}})
    assert status == 200, (status, body)
    status, body = google("/v1/projects/pushmock-demo/messages:send", {"message": {"token": token, "data": {"sync": "1"}, "androidV2": {"backgroundSync": {}}}})
    assert status == 200, (status, body)
    open_view("deliveries")
    rows = lambda: [r.text for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")]
    until("the remote notification's row", lambda: any("Goal — Lions 2-1" in text for text in rows()))
    until("the background sync's row", lambda: any("Background sync (android_v2)" in text for text in rows()))


@check("a Web Push sent by pywebpush shows its decrypted title and body in the table, and its plaintext and VAPID claims in the detail")
def web_push():
    from py_vapid import Vapid02, b64urlencode
    from cryptography.hazmat.primitives import serialization
    from pywebpush import webpush
    vapid = Vapid02()
    vapid.generate_keys()
    key = b64urlencode(vapid.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))
    subscription = api("/api/v1/web-push/subscriptions", "POST", {"service": "apple", "applicationServerKey": key})
    os.environ["REQUESTS_CA_BUNDLE"] = "Certs/ca.pem"

    def send_and_open(message, row_text):
        """Sends `message` with pywebpush, then opens the row showing `row_text` in the deliveries view."""
        response = webpush({"endpoint": subscription["endpoint"], "keys": subscription["keys"]}, data=json.dumps(message),
                           vapid_private_key=vapid, vapid_claims={"sub": "mailto:ops@example.com"}, ttl=60)
        assert response.status_code == 201, response.text
        open_view("deliveries")
        row = until(f"the row of {row_text}", lambda: next((r for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")
                                                             if row_text in r.text), None))
        row.send_keys(Keys.ENTER)

    send_and_open({"title": "Web Push hello", "body": "from pywebpush"}, "Web Push hello — from pywebpush")
    until("the detail", lambda: "Delivery" in driver.find_element(By.ID, "detail-title").text)
    main = driver.find_element(By.ID, "main").text
    assert '"title": "Web Push hello"' in main, main
    assert "VAPID (vapid): aud " in main and "sub mailto:ops@example.com" in main, main
    assert "201 Created" in main, main
    jwt = driver.find_element(By.CSS_SELECTOR, ".jwt").text
    assert "authorization: vapid" in jwt and '"sub": "mailto:ops@example.com"' in jwt and "signature elided" in jwt, jwt
    shot("web-push-detail")
    # Declarative Web Push: the detail shows the notification as Safari would.
    send_and_open({"web_push": 8030, "notification": {"title": "Table ready", "body": "Your table for 2",
                                                      "navigate": "https://bistro.example.com/bookings/7"}, "app_badge": 1}, "Table ready")
    card = until("the notification card", lambda: driver.find_element(By.CSS_SELECTOR, ".web-notification"))
    assert "bistro.example.com" in card.text and "Table ready" in card.text and "Your table for 2" in card.text, card.text
    assert "a tap opens https://bistro.example.com/bookings/7 · app badge 1" in card.text, card.text
    shot("web-push-declarative")


@check("the Web Push view lists subscriptions with their JSON, mints one from its form, expires and removes it")
def web_push_subscriptions():
    made = api("/api/v1/web-push/subscriptions", "POST", {"service": "google"})
    open_view("web-push")
    row = until("the minted subscription's row", lambda: driver.find_element(By.CSS_SELECTOR, f"tr[data-subscription='{made['id']}']"))
    assert "google" in row.text and "active" in row.text, row.text
    click(row.find_element(By.XPATH, ".//button[text()='JSON']"))
    shown = json.loads(until("the JSON", lambda: driver.find_element(By.CSS_SELECTOR, "pre.subscription-json").text or None))
    assert shown == {"endpoint": made["endpoint"], "expirationTime": None, "keys": made["keys"]}, shown
    before = {entry["id"] for entry in api("/api/v1/web-push/subscriptions")["subscriptions"]}
    Select(driver.find_element(By.NAME, "service")).select_by_value("mozilla")
    click(driver.find_element(By.XPATH, "//button[text()='Mint']"))
    until("the mint's message", lambda: "Minted a mozilla subscription." in driver.find_element(By.CSS_SELECTOR, "p[role='status']").text)
    minted = [entry for entry in api("/api/v1/web-push/subscriptions")["subscriptions"] if entry["id"] not in before]
    assert len(minted) == 1 and minted[0]["service"] == "mozilla" and "/wpush/v1/" in minted[0]["endpoint"], minted
    assert json.loads(driver.find_element(By.CSS_SELECTOR, "pre.subscription-json").text)["endpoint"] == minted[0]["endpoint"]
    click(driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Expire {made['id']}']"))
    until("the expired badge", lambda: "Expired " in driver.find_element(By.CSS_SELECTOR, "p[role='status']").text)
    assert "expired" in driver.find_element(By.CSS_SELECTOR, f"tr[data-subscription='{made['id']}']").text
    assert api(f"/api/v1/web-push/subscriptions/{made['id']}")["state"] == "expired"
    shot("web-push-subscriptions")
    for subscription in (made, minted[0]):
        click(until("the Remove button", lambda: driver.find_element(By.CSS_SELECTOR, f"button[aria-label='Remove {subscription['id']}']")))
        until("the row gone", lambda: not driver.find_elements(By.CSS_SELECTOR, f"tr[data-subscription='{subscription['id']}']"))
    ids = {entry["id"] for entry in api("/api/v1/web-push/subscriptions")["subscriptions"]}
    assert made["id"] not in ids and minted[0]["id"] not in ids, ids


@check("a topic send shows its fan-out, and the devices view lists the subscribed token's topics")
def topics():
    token = "YnJvd3Nlci0x:APA91b" + "Br1" * 40
    status, body = google("/iid/v1:batchAdd", {"to": "/topics/scores", "registration_tokens": [token]}, ["access_token_auth: true"])
    assert status == 200 and body == {"results": [{}]}, (status, body)
    status, body = google("/v1/projects/pushmock-demo/messages:send", {"message": {"topic": "scores", "data": {"goal": "1-0"}}})
    assert status == 200, (status, body)
    open_view("deliveries")
    row = until("the topic send's row", lambda: next((r for r in driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr") if "scores" in r.text), None))
    row.send_keys(Keys.ENTER)
    until("the fan-out", lambda: "Fan-out: 1 token" in driver.find_element(By.CSS_SELECTOR, ".recipients").text)
    open_view("devices")
    until("the token's topics", lambda: "scores" in driver.find_element(By.CSS_SELECTOR, "tbody td.topics").text)
    shot("topics")
    status, body = google("/iid/v1:batchRemove", {"to": "/topics/scores", "registration_tokens": [token]}, ["access_token_auth: true"])
    assert status == 200, (status, body)


@check("Send it produces an APNs reason, an FCM error, a Live Activity rule and a Web Push refusal")
def catalogue():
    open_view("rejections")
    for entry, reason in [("apns-bad-priority", "BadPriority"), ("fcm-invalid-argument", "INVALID_ARGUMENT"), ("liveactivity-timestamp-in-milliseconds", "LiveActivityTimestampInMilliseconds"), ("webpush-subject-localhost", "subjectLocalhost")]:
        row = driver.find_element(By.CSS_SELECTOR, f"tr[data-entry='{entry}']")
        click(row.find_element(By.TAG_NAME, "button"))
        until(f"{entry}'s result", lambda: "produced" in row.find_element(By.CSS_SELECTOR, ".result").text)
        delivery_id = int(row.find_element(By.CSS_SELECTOR, ".result a").text.split()[-1])
        recorded = api(f"/api/v1/deliveries/{delivery_id}")
        assert recorded["reason"] == reason and recorded["outcome"] == "rejected", recorded
    link = driver.find_element(By.CSS_SELECTOR, "tr[data-entry='apns-bad-priority'] a[href^='https://developer.apple.com/']")
    assert link.text == "Apple's documentation", link.text
    assert driver.find_element(By.CSS_SELECTOR, "tr[data-entry='fcm-invalid-argument'] a").get_attribute("href").startswith("https://firebase.google.com/")
    rfc = driver.find_element(By.CSS_SELECTOR, "tr[data-entry='webpush-missing-ttl'] a")
    assert rfc.text == "RFC 8030", rfc.text
    shot("rejections")


@check("keyboard: rows take focus, arrows move between them, Enter opens one; focus is visible")
def keyboard():
    open_view("deliveries")
    total = min(api("/api/v1/deliveries?limit=1")["total"], 100)
    until("the list", lambda: len(driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")) == total)
    first, second = driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr[data-id]")[:2]
    driver.execute_script("arguments[0].focus()", first)
    assert driver.switch_to.active_element == first
    first.send_keys(Keys.ARROW_DOWN)
    assert driver.switch_to.active_element == second, "ArrowDown moves to the next row"
    outline = driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid", f"the focused row has no visible outline: {outline}"
    expected = f"Delivery {second.get_attribute('data-id')}"
    second.send_keys(Keys.ENTER)
    until("the detail of the focused row", lambda: driver.find_element(By.ID, "detail-title").text == expected)


@check("the page is usable at 390×844 and follows a dark system theme")
def small_and_dark():
    driver.set_window_size(390, 844)
    open_view("deliveries")
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 400, f"the page scrolls sideways at 390 px: {width}"
    shot("deliveries-390")
    open_view("activities")
    shot("live-activities-390")
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    open_view("deliveries")
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(18, 18, 20)", background
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    driver.set_window_size(1280, 800)


@check("the list stays responsive while 10 000 pushes arrive: one page of rows, caught up, filters still quick")
def ten_thousand():
    open_view("deliveries")
    until("the event stream to be live", lambda: driver.find_element(By.ID, "live").text == "live")
    body = os.path.join(SHOTS, "load.json")
    with open(body, "w") as file:
        json.dump({"aps": {"alert": {"title": "Load", "body": "h2load"}}}, file)
    started = time.monotonic()
    load = subprocess.run(["h2load", "-n", "10000", "-c", "4", "-m", "1", "-d", body, "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
                           "-H", f"authorization: bearer {provider_token()}", f"https://127.0.0.1:{PUSH_PORT}/3/device/{'c4' * 32}"],
                          capture_output=True, text=True, check=False)
    assert "10000 succeeded, 0 failed" in load.stdout, load.stdout[-800:]
    newest = api("/api/v1/deliveries?limit=1")["newestId"]
    first_row = "return document.querySelector('table.deliveries tbody tr[data-id]')?.dataset.id"
    until("the list to catch up with the newest delivery", lambda: driver.execute_script(first_row) == str(newest), timeout=20)
    caught_up = time.monotonic() - started
    rows = len(driver.find_elements(By.CSS_SELECTOR, "table.deliveries tbody tr"))
    assert rows == 100, f"{rows} rows in the DOM; the list keeps one page"
    probe = time.monotonic()
    assert driver.execute_script("return 1 + 1") == 2
    script_latency = time.monotonic() - probe
    assert script_latency < 1.0, f"the page's main thread answered after {script_latency:.2f} s"
    Select(driver.find_element(By.NAME, "service")).select_by_value("fcm")
    filtered = time.monotonic()
    expected = [str(d["id"]) for d in api("/api/v1/deliveries?service=fcm")["deliveries"]]
    row_ids = "return [...document.querySelectorAll('table.deliveries tbody tr[data-id]')].map((row) => row.dataset.id)"
    until("the fcm filter", lambda: driver.execute_script(row_ids) == expected, timeout=5)
    print(f"  10 000 pushes: h2load and the page caught up in {caught_up:.1f} s; a script ran after {script_latency * 1000:.0f} ms; filter applied in {time.monotonic() - filtered:.2f} s")


@check("with --inspection-token the page asks for the token once per tab")
def token_once_per_tab():
    driver.get("about:blank")
    driver.get(f"http://127.0.0.1:{TOKEN_PORT}/#/deliveries")
    dialog = until("the token dialog", lambda: driver.find_element(By.ID, "token-dialog") if driver.find_element(By.ID, "token-dialog").get_attribute("open") is not None else None)
    shot("token")
    dialog.find_element(By.ID, "token-input").send_keys("browser-secret", Keys.ENTER)
    until("the list with the token", lambda: driver.find_elements(By.ID, "deliveries-title"))
    until("the event stream with the token", lambda: driver.find_element(By.ID, "live").text == "live")
    driver.refresh()
    until("the list again", lambda: driver.find_elements(By.ID, "deliveries-title"))
    assert driver.find_element(By.ID, "token-dialog").get_attribute("open") is None, "the token was asked for twice in one tab"


@check("no console errors")
def no_console_errors():
    errors = console_errors()
    assert not errors, errors


@check("a cross-origin fetch POST to /api/v1/reset is refused")
def cross_origin():
    before = api("/api/v1/deliveries?limit=1")["total"]
    assert before > 0

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>another origin</title>")

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    OTHER_PORT = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        driver.get(f"http://127.0.0.1:{OTHER_PORT}/")
        outcomes = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const target = arguments[0] + '/api/v1/reset';
            const results = {};
            fetch(target, { method: 'POST', mode: 'no-cors', body: 'x', headers: { 'content-type': 'text/plain' } })
              .then((r) => { results.simple = 'sent (opaque)'; }, (e) => { results.simple = 'blocked: ' + e; })
              .then(() => fetch(target, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }))
              .then((r) => { results.json = 'status ' + r.status; }, (e) => { results.json = 'blocked: ' + e; })
              .then(() => done(results));
        """, BASE)
    finally:
        server.shutdown()
    assert outcomes["json"].startswith("blocked"), f"a JSON cross-origin POST was let through: {outcomes}"
    after = api("/api/v1/deliveries?limit=1")["total"]
    assert after >= before, f"PushMock was reset from another origin: {before} → {after} ({outcomes})"
    print(f"  cross-origin: {outcomes}; deliveries kept: {after}")


failures = 0
try:
    for name, function in checks:
        try:
            function()
            print(f"ok   {name}")
        except Exception as error:  # noqa: BLE001 - every failure is reported, then the run fails
            failures += 1
            print(f"FAIL {name}: {error!r}")
            shot(f"failure-{function.__name__}")
finally:
    driver.quit()
print(f"{len(checks) - failures}/{len(checks)} browser checks passed")
sys.exit(1 if failures else 0)
