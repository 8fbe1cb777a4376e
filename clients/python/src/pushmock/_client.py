"""The inspection API, as a Python object."""
import atexit
import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional


class PushMockError(Exception):
    """The inspection API answered with an error (``status`` and the decoded ``body``)."""

    def __init__(self, method: str, path: str, status: int, body: Any):
        self.status = status
        self.body = body
        reason = body.get("reason") or body.get("error") if isinstance(body, dict) else body
        super().__init__(f"{method} {path}: {status} {reason}")


class PushMockTimeout(AssertionError):
    """A wait ended before enough deliveries matched; ``arrived`` holds what did arrive."""

    def __init__(self, count: int, timeout: float, filters: Dict[str, Any], matched: List[dict], arrived: List[dict]):
        self.count, self.timeout, self.filters, self.matched, self.arrived = count, timeout, filters, matched, arrived
        wanted = ", ".join(f"{k}={v}" for k, v in filters.items()) or "no filter"
        lines = [f"waited {timeout:g} s for {count} deliveries matching {wanted}; {len(matched)} matched"]
        if arrived:
            lines.append(f"what arrived ({len(arrived)}):")
            lines += [f"  #{d.get('id')} {describe(d)}" for d in arrived[-10:]]
        else:
            lines.append("nothing arrived at all: is the code under test pointed at this PushMock?")
        super().__init__("\n".join(lines))


def android_v2_kind(delivery: dict) -> Optional[str]:
    """For an FCM message sent with ``android_v2`` (AndroidConfigV2): ``"remote_notification"`` or
    ``"background_sync"``, whichever its union sets; else None."""
    payload = delivery.get("payload")
    message = payload.get("message") if isinstance(payload, dict) else None
    config = (message.get("android_v2") or message.get("androidV2")) if isinstance(message, dict) else None
    if not isinstance(config, dict):
        return None
    for kind, camel in (("remote_notification", "remoteNotification"), ("background_sync", "backgroundSync")):
        if config.get(kind) is not None or config.get(camel) is not None:
            return kind
    return None


def describe(delivery: dict) -> str:
    """One line for a delivery: service, status, reason, token or topic (and an FCM message's
    android_v2 kind)."""
    target = delivery.get("deviceToken") or delivery.get("topic") or delivery.get("path")
    reason = f" {delivery['reason']}" if delivery.get("reason") else ""
    kind = android_v2_kind(delivery)
    v2 = f" android_v2:{kind}" if kind else ""
    return f"{delivery.get('service')} {delivery.get('status')}{reason} {delivery.get('outcome')} {target}{v2}"


class Credentials:
    """The development credentials a PushMock runs with, fetched from ``GET /api/v1/credentials``
    and written to files: ``ca_path`` (trust it), ``service_account_path`` (its ``token_uri`` names
    the server's real port), ``apns_key_path`` with ``apns_key_id`` and ``apns_team_id``. The files
    are in a temporary folder that is removed when the process exits."""

    def __init__(self, client: "PushMock", resource: dict):
        self._client = client
        self.resource = resource
        self.push_url: str = resource["pushUrl"]
        folder = tempfile.mkdtemp(prefix="pushmock-credentials-")
        # The files are removed when the process exits: a test run leaves no folder behind.
        atexit.register(shutil.rmtree, folder, True)
        self.folder = folder
        self.ca_pem: Optional[str] = resource.get("caPem")
        self.ca_path = self._write(folder, "ca.pem", self.ca_pem)
        apns = resource.get("apns") or {}
        self.apns_key_id: Optional[str] = apns.get("keyId")
        self.apns_team_id: Optional[str] = apns.get("teamId")
        self.apns_bundle_id: Optional[str] = apns.get("bundleId")
        self.apns_key_path = self._write(folder, f"AuthKey_{self.apns_key_id}.p8", apns.get("p8"))
        account = resource.get("serviceAccount")
        self.service_account_path = self._write(folder, "service-account.json", json.dumps(account, indent=2) if account else None)
        self.project_id: Optional[str] = account.get("project_id") if account else None
        users = resource.get("authorizedUser")
        self.authorized_user_path = self._write(folder, "authorized-user.json", json.dumps(users, indent=2) if users else None)
        samples = resource.get("samples", {})
        self.sample_device_token: str = samples.get("apnsDeviceToken", "ab" * 32)
        self.sample_fid: str = samples.get("fid", "cPushMockSampleFID0001")
        self._registration = samples.get("fcmRegistrationToken")

    @staticmethod
    def _write(folder: str, name: str, text: Optional[str]) -> Optional[str]:
        if text is None:
            return None
        path = os.path.join(folder, name)
        with open(path, "w") as handle:
            handle.write(text)
        return path

    def apns_token(self) -> str:
        """A provider token signed with the development APNs key (the same for 20 minutes)."""
        return self._client._get("/api/v1/credentials/apns-token")["token"]

    def fcm_access_token(self) -> str:
        """An access token for the development service account, as ``/token`` issues it."""
        return self._client._get("/api/v1/credentials/fcm-access-token")["token"]

    def fcm_token(self, name: str = "") -> str:
        """A real-shaped FCM registration token (``<instance id>:APA91b…``); ``name`` makes distinct ones."""
        if not name:
            return self._registration
        import base64
        instance = base64.urlsafe_b64encode(f"pushmock-{name}".encode()).decode().rstrip("=")
        body = (base64.urlsafe_b64encode(name.encode()).decode().rstrip("=") + "Pm0") * 40
        return f"{instance}:APA91b{body[:140]}"


class PushMock:
    """A PushMock's inspection API: deliveries, waits, faults, devices, Live Activities.

    ``inspection_url`` is where the inspection port listens (``http://127.0.0.1:2198``); ``token``
    the inspection token, if the server wants one."""

    def __init__(self, inspection_url: str = "http://127.0.0.1:2198", token: Optional[str] = None):
        self.inspection_url = inspection_url.rstrip("/")
        self.token = token
        self._credentials: Optional[Credentials] = None
        self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    # --- HTTP

    def _request(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"x-pushmock-client": "pushmock-python", "accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        request = urllib.request.Request(self.inspection_url + path, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=timeout) as response:
                payload = response.read()
                status = response.status
        except urllib.error.HTTPError as error:
            payload, status = error.read(), error.code
        except urllib.error.URLError as error:
            raise PushMockError(method, path, 0, f"PushMock is not answering at {self.inspection_url}: {error.reason}") from error
        decoded: Any = payload.decode()
        try:
            decoded = json.loads(decoded) if decoded else None
        except ValueError:
            pass
        if status == 408 and path.startswith("/api/v1/deliveries/wait"):
            return decoded  # a wait that timed out is data, not an error
        if status >= 400:
            raise PushMockError(method, path, status, decoded)
        return decoded

    def _get(self, path: str, **query: Any) -> Any:
        return self._request("GET", path + _query(query))

    # --- deliveries

    @property
    def push_url(self) -> str:
        """The push port's URL (``https://localhost:<port>``)."""
        return self.credentials.push_url

    @property
    def credentials(self) -> Credentials:
        """The development credentials, fetched once."""
        if self._credentials is None:
            self._credentials = Credentials(self, self._get("/api/v1/credentials"))
        return self._credentials

    def ready(self) -> bool:
        """Whether ``/readyz`` says ready."""
        try:
            return self._get("/readyz").get("status") == "ready"
        except PushMockError:
            return False

    def deliveries(self, limit: int = 1000, **filters: Any) -> List[dict]:
        """Recorded deliveries matching ``filters`` (``service``, ``token``, ``topic``, ``outcome``,
        ``reason``, ``status``, ``project``, ``pushType``, ``text``, ``after``…), oldest first."""
        return list(reversed(self._get("/api/v1/deliveries", limit=limit, **filters)["deliveries"]))

    def cursor(self) -> int:
        """The newest delivery's id (0 when none): pass it as ``after`` to wait only for what comes next."""
        return self._get("/api/v1/deliveries", limit=1).get("newestId") or 0

    def wait_for(self, count: int = 1, timeout: float = 5.0, after: Optional[int] = None, **filters: Any) -> List[dict]:
        """Waits until ``count`` deliveries match (after ``after``, when given) and returns them,
        oldest first. Raises ``PushMockTimeout`` saying what did arrive."""
        query = dict(filters, count=count, timeout=f"{int(timeout * 1000)}ms")
        if after is not None:
            query["after"] = after
        answer = self._request("GET", "/api/v1/deliveries/wait" + _query(query), timeout=timeout + 10)
        matched = list(reversed(answer.get("deliveries", []))) if isinstance(answer, dict) else []
        if len(matched) >= count:
            return matched
        arrived = self.deliveries(limit=50, **({"after": after} if after is not None else {}))
        raise PushMockTimeout(count, timeout, filters, matched, arrived)

    def delivery(self, delivery_id: int) -> dict:
        return self._get(f"/api/v1/deliveries/{delivery_id}")

    def reset(self) -> None:
        """Deliveries, faults, devices, activities and tokens back to the server's configuration."""
        self._request("POST", "/api/v1/reset", {})

    # --- faults and devices

    def add_fault(self, match: Optional[Dict[str, Any]] = None, *, id: Optional[str] = None, reject: Optional[Dict[str, Any]] = None,
                  delay_milliseconds: Optional[int] = None, go_away: Optional[str] = None, reset_stream: bool = False,
                  count: Optional[int] = None, probability: Optional[float] = None,
                  sequence: Optional[List[Dict[str, Any]]] = None) -> dict:
        """Adds a fault: ``match`` (``service``, ``token``, ``topic``, ``project``, ``path``) and one
        action: ``reject={"status": 410, "reason": "Unregistered"}``, ``delay_milliseconds``,
        ``go_away`` or ``reset_stream``; ``count`` fires it that many times. Or, for a retry path,
        a ``sequence`` of steps used in turn, one per matching request, each one action in the
        API's form or ``{"accept": True}``: ``[{"reject": {"reason": "ServiceUnavailable"}},
        {"reject": {"reason": "TooManyRequests"}}, {"accept": True}]``."""
        rule: Dict[str, Any] = {"match": match or {}}
        if id is not None:
            rule["id"] = id
        if reject is not None:
            rule["reject"] = reject
        if delay_milliseconds is not None:
            rule["delayMilliseconds"] = delay_milliseconds
        if go_away is not None:
            rule["goAway"] = go_away
        if reset_stream:
            rule["resetStream"] = True
        if count is not None:
            rule["count"] = count
        if probability is not None:
            rule["probability"] = probability
        if sequence is not None:
            rule["sequence"] = sequence
        return self._request("PUT", "/api/v1/faults", rule)

    def remove_faults(self) -> None:
        self._request("DELETE", "/api/v1/faults")

    def set_device(self, token: str, **record: Any) -> dict:
        """Sets what PushMock knows of a device token: ``state`` (``active``, ``unregistered``,
        ``expired``), ``bundleId``, ``environment``, ``project``, ``lastActiveAt``, ``liveActivity``, ``appRunning``…"""
        return self._request("PUT", f"/api/v1/devices/{urllib.parse.quote(token, safe='')}", record)

    def unregister(self, token: str, at_milliseconds: Optional[int] = None) -> dict:
        """APNs answers 410 ``Unregistered`` for the token from now on; FCM 404 ``UNREGISTERED``."""
        record: Dict[str, Any] = {"state": "unregistered"}
        if at_milliseconds is not None:
            record["unregisteredAt"] = at_milliseconds
        return self.set_device(token, **record)

    # --- Web Push

    def create_web_push_subscription(self, service: str = "mozilla", application_server_key: Optional[str] = None) -> dict:
        """Mints a Web Push subscription for ``service`` (``apple``, ``mozilla`` or ``google``),
        made with ``application_server_key`` (your VAPID public key, base64url) if given. The
        answer holds ``endpoint``, ``expirationTime`` and ``keys`` (``p256dh``, ``auth``), as a
        browser's ``PushSubscription.toJSON()`` gives them: hand them to the code under test."""
        body: Dict[str, Any] = {"service": service}
        if application_server_key is not None:
            body["applicationServerKey"] = application_server_key
        return self._request("POST", "/api/v1/web-push/subscriptions", body)

    def expire_web_push_subscription(self, subscription_id: str) -> dict:
        """Pushes to the subscription get the service's 410 from now on, as after the user unsubscribed."""
        return self._request("POST", f"/api/v1/web-push/subscriptions/{urllib.parse.quote(subscription_id, safe='')}/expire", {})

    # --- Live Activities

    def activity(self, token: str) -> dict:
        """A simulated Live Activity with its timeline (by its push token, or its id)."""
        return self._get(f"/api/v1/activities/{urllib.parse.quote(token, safe='')}")

    def declare_activity_type(self, name: str, declaration: Dict[str, Any]) -> dict:
        """Declares an ``ActivityAttributes`` type (``{"attributes": {...}, "contentState": {...}}``)."""
        return self._request("PUT", f"/api/v1/activity-types/{urllib.parse.quote(name, safe='')}", declaration)

    def wait_until_ready(self, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready():
                return
            time.sleep(0.05)
        raise PushMockError("GET", "/readyz", 0, f"PushMock at {self.inspection_url} was not ready within {timeout:g} s")


def _query(values: Dict[str, Any]) -> str:
    pairs = [(k, str(v).lower() if isinstance(v, bool) else v) for k, v in values.items() if v is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""
