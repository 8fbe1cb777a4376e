"""The ``pushmock`` pytest fixture: a ``PushMock`` reset before each test.

It uses the server at ``PUSHMOCK_URL`` (the inspection API, with ``PUSHMOCK_TOKEN`` if it wants a
token) or starts one ``pushmock serve`` for the session (``PUSHMOCK_BIN`` or ``pushmock`` on
``PATH``). A server that does not answer fails the test; it is never skipped.
"""
import os
from typing import Iterator

import pytest

from ._client import PushMock
from ._server import start_pushmock


@pytest.fixture(scope="session")
def pushmock_server() -> Iterator[PushMock]:
    """The session's PushMock (not reset; use ``pushmock``)."""
    url = os.environ.get("PUSHMOCK_URL")
    if url:
        client = PushMock(url, token=os.environ.get("PUSHMOCK_TOKEN"))
        client.wait_until_ready(timeout=10)
        yield client
        return
    server = start_pushmock()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pushmock(pushmock_server: PushMock) -> PushMock:
    """A ``PushMock``, reset before the test: no deliveries, faults or devices but the configured ones."""
    pushmock_server.reset()
    return pushmock_server
