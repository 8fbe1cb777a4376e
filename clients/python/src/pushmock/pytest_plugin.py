"""The ``pushmock`` pytest fixture: a ``PushMock`` reset before each test.

It uses the server at ``--pushmock-url`` or ``PUSHMOCK_URL`` (the inspection API, with
``--pushmock-token`` or ``PUSHMOCK_TOKEN`` if it wants a token), or starts one ``pushmock serve``
for the session (``--pushmock-binary``, ``PUSHMOCK_BIN`` or ``pushmock`` on ``PATH``). A server
that does not answer fails the test; it is never skipped.
"""
import os
from typing import Iterator

import pytest

from ._client import PushMock
from ._server import start_pushmock


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pushmock")
    group.addoption("--pushmock-url", default=None, help="a running PushMock's inspection API (default $PUSHMOCK_URL; else one is started)")
    group.addoption("--pushmock-token", default=None, help="its inspection token (default $PUSHMOCK_TOKEN)")
    group.addoption("--pushmock-binary", default=None, help="the pushmock binary to start (default $PUSHMOCK_BIN, else pushmock on PATH)")


@pytest.fixture(scope="session")
def pushmock_server(pytestconfig: pytest.Config) -> Iterator[PushMock]:
    """The session's PushMock (not reset; use ``pushmock``)."""
    url = pytestconfig.getoption("pushmock_url") or os.environ.get("PUSHMOCK_URL")
    if url:
        client = PushMock(url, token=pytestconfig.getoption("pushmock_token") or os.environ.get("PUSHMOCK_TOKEN"))
        client.wait_until_ready(timeout=10)
        yield client
        return
    server = start_pushmock(binary=pytestconfig.getoption("pushmock_binary"))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pushmock(pushmock_server: PushMock) -> PushMock:
    """A ``PushMock``, reset before the test: no deliveries, faults or devices but the configured ones."""
    pushmock_server.reset()
    return pushmock_server
