"""Interop check: the official MCP Python SDK (`mcp` on PyPI) against PushMock's MCP server, over
Streamable HTTP (/mcp on the inspection port) and over stdio (`pushmock mcp`).

Over each transport: initialize; list tools, resources, resource templates and prompts; a push the
catalogue sends is rejected, and explain_delivery names its reason and field; wait_for_deliveries
returns a push sent after the call began; check_payload with a Live Activity message carrying
`notification` gives the reason the push port gives it, and records nothing; send_test_push is
recorded, and a Web Push one is sealed, signed and opened; a fault set through MCP fires on the
push port; arguments of the wrong type get a JSON-RPC error.

usage: python mcp_check.py PUSHMOCK_BINARY INSPECTION_PORT
"""
import asyncio
import json
import sys
import urllib.request

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

binary, inspection_port = sys.argv[1], int(sys.argv[2])
API = f"http://127.0.0.1:{inspection_port}"
TOOLS = {"list_deliveries", "get_delivery", "explain_delivery", "wait_for_deliveries", "activity_timeline",
         "set_fault", "list_faults", "clear_faults", "set_device", "reset", "check_payload", "send_test_push"}


def api(method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(API + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def catalogue_send(entry: str) -> dict:
    """Sends the rejections catalogue's request for `entry` through the push port."""
    return api("POST", f"/api/v1/rejections/{entry}/send", {})


async def exercise(session: ClientSession, label: str) -> None:
    init = await session.initialize()
    assert init.server_info.name == "pushmock", init
    assert init.protocol_version in ("2025-11-25", "2025-06-18", "2025-03-26"), init.protocol_version
    tools = {tool.name for tool in (await session.list_tools()).tools}
    assert TOOLS <= tools, tools
    resources = {resource.uri for resource in (await session.list_resources()).resources}
    assert {"pushmock://deliveries/latest", "pushmock://rejections"} <= {str(uri) for uri in resources}, resources
    templates = {template.uri_template for template in (await session.list_resource_templates()).resource_templates}
    assert "pushmock://deliveries/{id}" in templates, templates
    prompts = {prompt.name for prompt in (await session.list_prompts()).prompts}
    assert len(prompts) == 3, prompts

    # A push the push port rejects: explained with its reason and field.
    sent = catalogue_send("apns-bad-priority")
    assert sent["produced"] and sent["deliveryId"], sent
    explained = await session.call_tool("explain_delivery", {"id": sent["deliveryId"]})
    text = explained.content[0].text
    assert not explained.is_error and "BadPriority" in text and "apns-priority" in text, text
    assert explained.structured_content["reason"] == "BadPriority", explained.structured_content
    assert explained.structured_content["field"] == "header:apns-priority", explained.structured_content
    read = await session.read_resource(f"pushmock://deliveries/{sent['deliveryId']}")
    assert "BadPriority" in read.contents[0].text

    # A wait begun before the push returns it (the cursor makes it so whichever comes first).
    newest = api("GET", "/api/v1/deliveries?limit=1")["newestId"]
    waiting = asyncio.create_task(session.call_tool("wait_for_deliveries", {"after": newest, "count": 1, "timeoutSeconds": 60}))
    catalogue_send("apns-bad-device-token")
    waited = await waiting
    assert not waited.is_error and waited.structured_content["count"] == 1 and not waited.structured_content["timedOut"], waited
    assert waited.structured_content["deliveries"][0]["reason"] == "BadDeviceToken", waited.structured_content

    # check_payload: a Live Activity message carrying `notification` gets the push port's reason,
    # and is not recorded; the same message sent through the push port is.
    activity_token = "cd" * 32
    message = {"token": "pm0011223344556677:APA91b" + "Q" * 120, "notification": {"title": "Goal"},
               "apns": {"live_activity_token": activity_token,
                        "payload": {"aps": {"event": "update", "timestamp": 1767225600, "content-state": {"score": "1-0"}}}}}
    before = api("GET", "/api/v1/deliveries?limit=1")["total"]
    checked = await session.call_tool("check_payload", {"service": "fcm", "message": message})
    assert not checked.is_error, checked
    check = checked.structured_content["check"]
    assert api("GET", "/api/v1/deliveries?limit=1")["total"] == before, "check_payload recorded nothing"
    assert check["recorded"] is False and check["status"] == 400, check
    assert "would be rejected: 400 INVALID_ARGUMENT" in checked.content[0].text, checked.content[0].text
    sent_through = await session.call_tool("send_test_push", {"service": "fcm", "message": message})
    assert not sent_through.is_error, sent_through
    recorded = api("GET", f"/api/v1/deliveries/{sent_through.structured_content['deliveryId']}")
    assert (recorded["status"], recorded["reason"]) == (check["status"], check["delivery"]["reason"]), (recorded, check)
    assert recorded["explanation"] == check["delivery"]["explanation"] and "notification" in recorded["explanation"], recorded

    # Web Push: send_test_push mints a subscription and sends a sealed, VAPID-signed message; the
    # recorded body is the message as the service worker reads it.
    web_push = await session.call_tool("send_test_push", {"service": "webpush", "payload": {"title": "Hi"}})
    assert not web_push.is_error and web_push.structured_content["status"] == 201, web_push
    opened = api("GET", f"/api/v1/deliveries/{web_push.structured_content['deliveryId']}")
    assert opened["outcome"] == "accepted" and json.loads(opened["body"]) == {"title": "Hi"}, opened

    # A fault set through MCP fires on the push port, once.
    fault = {"id": f"mcp-{label}", "match": {"service": "apns"}, "reject": {"reason": "Unregistered"}, "count": 1}
    assert not (await session.call_tool("set_fault", {"fault": fault})).is_error
    faulted = catalogue_send("apns-bad-priority")
    assert faulted["status"] == 410 and faulted["reason"] == "Unregistered", faulted
    assert (await session.call_tool("list_faults", {})).structured_content["faults"] == [], "the one-shot fault is spent"
    assert not (await session.call_tool("clear_faults", {})).is_error

    # Arguments of the wrong type: a JSON-RPC error naming the field.
    try:
        result = await session.call_tool("get_delivery", {"id": "one"})
    except Exception as error:  # the SDK raises the server's JSON-RPC error
        assert "arguments.id" in str(error), error
    else:
        raise AssertionError(f"get_delivery with a string id was answered: {result}")
    print(f"mcp ({label}, revision {init.protocol_version}): initialize, lists, explain_delivery, a resource, wait_for_deliveries, check_payload against the push port, send_test_push (APNs, FCM and Web Push), a fault and a refused argument")


async def main() -> None:
    async with streamable_http_client(f"{API}/mcp") as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await exercise(session, "http")
    server = StdioServerParameters(command=binary, args=["mcp", "--inspection-url", API])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await exercise(session, "stdio")


asyncio.run(main())
