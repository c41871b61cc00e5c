"""The per-command set-up of a server worker done with less work: the environment set by its
differences (`command.set_environment`), the signal dispositions read and set through the C
functions (`command.CATCHABLE`, `command.set_dispositions`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from wgc.server import command, worker


@pytest.fixture
def saved_environment():
    saved = dict(os.environ)
    yield
    os.environ.clear()
    os.environ.update(saved)


@pytest.mark.parametrize("wanted", [
    lambda env: env,                                                          # the same
    lambda env: {**env, "WGC_TEST_A": "2"},                                   # one value changed
    lambda env: {k: v for k, v in env.items() if k != "WGC_TEST_B"},          # one name fewer
    lambda env: {"WGC_TEST_C": "3", **env},                                   # one more, first
    lambda env: dict(reversed(list(env.items()))),                            # another order
])
def test_the_environment_is_the_one_asked_for(saved_environment, wanted):
    """After `set_environment(E)`, `os.environ` holds E's names in E's order with E's values, and so
    does the process's own environment (what a program it starts inherits)."""
    os.environ["WGC_TEST_A"] = "1"
    os.environ["WGC_TEST_B"] = "x"
    target = wanted(dict(os.environ))
    command.set_environment(target)
    assert list(os.environ.items()) == list(target.items())
    for name in ("WGC_TEST_A", "WGC_TEST_B", "WGC_TEST_C"):
        assert os.getenv(name) == target.get(name)
    seen = subprocess.run([sys.executable, "-c", "import os, json; print(json.dumps(dict(os.environ)))"],
                          capture_output=True, text=True, check=True).stdout
    child = json.loads(seen)
    for name in ("WGC_TEST_A", "WGC_TEST_B", "WGC_TEST_C"):
        assert child.get(name) == target.get(name)


def test_catchable_signals_are_the_valid_ones_but_kill_and_stop():
    """`CATCHABLE` is `signal.valid_signals()` less SIGKILL and SIGSTOP, as numbers, in order."""
    expected = sorted(int(n) for n in signal.valid_signals() if n not in (signal.SIGKILL, signal.SIGSTOP))
    assert list(command.CATCHABLE) == expected
    assert all(type(n) is int for n in command.CATCHABLE)


def test_dispositions_are_set_as_a_fresh_process_has_them():
    """`set_dispositions(ignored)`: the signals in `ignored` ignored, SIGINT, SIGTERM and SIGHUP at the
    handler for between commands, every other catchable one at its default; the capture of the
    worker's state reads the same dispositions as `signal.getsignal`."""
    saved = {n: signal.getsignal(n) for n in command.CATCHABLE}
    try:
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        command.set_dispositions([signal.SIGUSR2, signal.SIGPIPE])
        assert signal.getsignal(signal.SIGUSR1) == signal.SIG_DFL
        assert signal.getsignal(signal.SIGUSR2) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGPIPE) == signal.SIG_IGN
        for number in command.HANDLED:
            assert signal.getsignal(number) is command._between_commands
        captured = dict(worker.State.capture().values[0])
        assert captured == {int(n): signal.getsignal(n) for n in command.CATCHABLE}
    finally:
        for number, handler in saved.items():
            if handler is not None:
                signal.signal(number, handler)


def test_a_request_run_postpones_the_servers_own_check_of_its_files(monkeypatch, tmp_path):
    """A request whose fingerprint is the server's means its client read the files just now: the
    server's idle check (`_check_idle`, every FILE_CHECK_SECONDS) reads them only that long after the
    last such request, not again at once; a server that got no request still checks on time."""
    from wgc.server import daemon, protocol

    reads = []
    monkeypatch.setattr(daemon.buildcache, "compute_fingerprint", lambda: reads.append(1) or server.fingerprint)
    clock = [1000.0]
    monkeypatch.setattr(daemon.time, "monotonic", lambda: clock[0])
    server = daemon.Server(str(tmp_path), "k" * 24, idle=600.0)
    monkeypatch.setattr(server, "_hand_off", lambda connection, body: True)
    request = {"fingerprint": server.fingerprint, "argv": ["compile"], "cwd": "/", "env": {}, "umask": 0o022,
               "limits": server.limits, "stdio": [(True, "utf-8", "strict", False, False)] * 3}
    clock[0] += daemon.FILE_CHECK_SECONDS - 0.5
    server._handle(None, protocol.COMPILE, request, [])      # type: ignore[arg-type]
    clock[0] += 1.0                                          # past the first check's time
    server._check_idle()
    assert reads == [] and server.served == 1
    clock[0] += daemon.FILE_CHECK_SECONDS                   # idle that long after the request
    server._check_idle()
    assert reads == [1]


def test_a_native_launchers_request_has_its_files_read_by_the_server(monkeypatch, tmp_path):
    """A native launcher's request carries no fingerprint (None): the server reads its files for it
    (each time) and runs it when they are its own; when they changed it refuses it (retry: the
    launcher's Python program finds this wgc's server) and stops. The report counts them."""
    from wgc.server import daemon, protocol

    now = [b"same"]
    monkeypatch.setattr(daemon.buildcache, "compute_fingerprint", lambda: now[0])
    server = daemon.Server(str(tmp_path), "k" * 24, idle=600.0)
    server.fingerprint = b"same"
    monkeypatch.setattr(server, "_hand_off", lambda connection, body: True)
    sent = []
    monkeypatch.setattr(daemon.protocol, "send", lambda connection, kind, body, fds=(): sent.append((kind, body)))
    request = {"fingerprint": None, "argv": ["compile"], "cwd": "/", "env": {}, "umask": 0o022,
               "limits": server.limits, "stdio": [(True, "utf-8", "strict", False, False)] * 3}

    class Connection:
        def close(self) -> None:
            pass

    server._handle(Connection(), protocol.COMPILE, dict(request), [])     # type: ignore[arg-type]
    assert (server.served, sent, server.stopping) == (1, [], None)
    assert server.report()["native"] == 1
    now[0] = b"changed"
    server._handle(Connection(), protocol.COMPILE, dict(request), [])     # type: ignore[arg-type]
    assert (server.served, sent, server.stopping) == (1, [(protocol.REFUSED, (True, "its files changed"))],
                                                      "its files changed")
    sent.clear()
    server._handle(Connection(), protocol.COMPILE, {**request, "fingerprint": 7}, [])     # type: ignore[arg-type]
    assert sent == [(protocol.REFUSED, (True, "the server is stopping"))]
