"""A local ``pushmock serve`` for a test run, on free ports."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional

from ._client import PushMock, PushMockError


class PushMockServer(PushMock):
    """A ``pushmock serve`` this process started: a ``PushMock`` with its ``ports`` and ``stop()``."""

    def __init__(self, process: subprocess.Popen, ports: Dict[str, Optional[int]], folder: str, log_path: str):
        super().__init__(f"http://127.0.0.1:{ports['inspection']}")
        self.process = process
        self.ports = ports
        self._folder = folder
        self.log_path = log_path

    def log(self) -> str:
        with open(self.log_path, errors="replace") as handle:
            return handle.read()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL after ``timeout`` seconds."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> "PushMockServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()


def find_binary(binary: Optional[str] = None) -> str:
    """``binary``, else ``$PUSHMOCK_BIN``, else ``pushmock`` on ``PATH``."""
    candidate = binary or os.environ.get("PUSHMOCK_BIN") or shutil.which("pushmock")
    if not candidate or not os.path.exists(candidate):
        raise FileNotFoundError(
            "pushmock binary not found: set PUSHMOCK_BIN to its path, put it on PATH, or pass binary=…"
            " (the release archive has it; in a clone: swift build, then .build/debug/pushmock)"
        )
    return candidate


def _arguments(options: Dict[str, Any]) -> List[str]:
    arguments: List[str] = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            arguments.append(flag)
        elif value is False or value is None:
            continue
        elif isinstance(value, (list, tuple)):
            for item in value:
                arguments += [flag, str(item)]
        else:
            arguments += [flag, str(value)]
    return arguments


def start_pushmock(binary: Optional[str] = None, timeout: float = 30.0, **options: Any) -> PushMockServer:
    """Starts ``pushmock serve`` on free ports (reported through ``--ports-file``) with its own data
    directory; ``options`` are ``serve``'s flags in snake case (``store="sqlite:/tmp/p.sqlite"``,
    ``live_activity_profile="apple"``, ``transparent=True``). Use it as a context manager:

        with start_pushmock() as pushmock:
            pushmock.wait_for(service="apns")
    """
    executable = find_binary(binary)
    folder = tempfile.mkdtemp(prefix="pushmock-")
    ports_file = os.path.join(folder, "ports.json")
    log_path = os.path.join(folder, "serve.log")
    options.setdefault("port", 0)
    options.setdefault("inspection_port", 0)
    options.setdefault("data_dir", os.path.join(folder, "data"))
    command = [executable, "serve", "--ports-file", ports_file] + _arguments(options)
    log = open(log_path, "w")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, cwd=folder)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if os.path.exists(ports_file) and os.path.getsize(ports_file) > 0:
            with open(ports_file) as handle:
                ports = json.load(handle)
            server = PushMockServer(process, ports, folder, log_path)
            server.wait_until_ready(timeout=max(1.0, deadline - time.monotonic()))
            return server
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait()
    with open(log_path, errors="replace") as handle:
        output = handle.read()
    shutil.rmtree(folder, ignore_errors=True)
    raise PushMockError("start", " ".join(command), process.returncode or 0, f"pushmock serve did not start: {output.strip()[-2000:]}")
