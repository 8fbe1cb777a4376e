"""Test helpers for PushMock: a client for its inspection API, a local server for a test run,
and a pytest fixture (``pushmock``). Standard library only.

    from pushmock import PushMock
    mock = PushMock("http://127.0.0.1:2198")
    after = mock.cursor()
    ...  # the code under test sends a push
    [push] = mock.wait_for(service="apns", after=after)
"""
from ._client import Credentials, PushMock, PushMockError, PushMockTimeout, android_v2_kind, describe
from ._server import PushMockServer, start_pushmock

__all__ = ["PushMock", "PushMockError", "PushMockTimeout", "Credentials", "PushMockServer", "start_pushmock", "android_v2_kind", "describe"]
__version__ = "0.4.0"
