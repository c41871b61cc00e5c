"""The compile server's reused workers (`wgc/server/worker.py`): commands run one after the other in
one process, each as if alone.

End to end through the real `wgc` (the reference is the same command run by a plain process), and
the worker's own checks in process: the state a command could leave behind (`State`, `verdict`)
and the watch that raises a forwarded signal only while its command runs (`command.Watch`).
Nothing here is timed.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest
from test_server import (  # noqa: F401 - `cache` and `warm_startup_caches` are fixtures
    BROKEN,
    COMMAND,
    GRAPH,
    HEADER,
    WAIT_SECONDS,
    big_graph,
    cache,
    files,
    live_servers,
    plain_and_served,
    project,
    running_count,
    served_count,
    wait_until,
    warm_startup_caches,
    wgc,
)

from conftest import wgc_command

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not hasattr(socket, "AF_UNIX")
                                or not Path("/proc/self/status").exists(),
                                reason="the compile server needs fork and Unix-domain sockets; these tests read /proc")


def workers(env: dict[str, str]) -> list[tuple[int, bool]]:
    """(pid, busy) of the server's workers, from `wgc server --status`."""
    status = wgc("server", "--status", env=env)
    assert status.returncode == 0, status.stderr
    line = re.search(rb"workers:  (.*)\n", status.stdout).group(1).decode()
    return [] if line == "none" else [(int(word.split()[0]), "(busy)" in word) for word in line.split(", ")]


def only_worker(env: dict[str, str]) -> int:
    [(pid, busy)] = workers(env)
    assert not busy
    return pid


def ignored_mask(pid: int) -> int:
    """The signals process `pid` ignores (/proc/PID/status, SigIgn)."""
    text = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"SigIgn:\s*([0-9a-f]+)", text).group(1), 16)


def test_one_worker_runs_commands_in_turn_each_with_its_own_folder_umask_streams_and_exit_code(cache, tmp_path):  # noqa: F811 - the fixture
    """Commands of different folders, umasks, arguments, standard streams and exit codes, in turn,
    all run by one worker: each gives what a plain process gives."""
    env = {"WGC_CACHE_DIR": str(cache)}
    one = project(tmp_path / "one")
    two = project(tmp_path / "two")
    (two / "inc" / "records.hlsli").write_text(HEADER.replace("records v1", "records v2"))
    inline = GRAPH.replace('#include "inc/records.hlsli"', HEADER.splitlines()[0]).encode()

    def umask(mask: int):
        return lambda: os.umask(mask)

    runs = [(one, COMMAND, None, umask(0o022)),
            (two, COMMAND, None, umask(0o077)),                                   # another folder, umask
            (one, ("compile", "-o", "out/broken.spv", "broken.hlsl"), None, umask(0o022)),   # exit 1
            (two, ("compile", "-o", "-", "-S", "-"), inline, umask(0o022)),       # standard input and output
            (one, ("compile", "-T", "lib_9_9", "graph.hlsl"), None, umask(0o022)),   # a usage error: exit 2
            (two, ("compile", "-Werror", "-o", "out/graph.spv", "graph.hlsl"), None, umask(0o022)),
            (two, ("compile", "-o", "out/graph.spv", "graph.hlsl"), None, umask(0o022)),   # -Werror did not stay
            (one, ("inspect", "graph.hlsl"), None, umask(0o077))]
    worker = None
    for folder, args, stdin, preexec in runs:
        plain, served = plain_and_served(folder, cache, *args, stdin=stdin, preexec=preexec, modes=True)
        assert served == plain, args
        if worker is None:
            worker = only_worker(env)
        assert only_worker(env) == worker, args
    assert served_count(env) == len(runs) and only_worker(env) == worker


def test_the_environment_of_each_command_is_its_clients(cache, tmp_path):  # noqa: F811 - the fixture
    """$NO_COLOR set for one command and not for the next (standard error a terminal for both): the
    worker takes each client's environment, and none stays for the next."""
    import pty

    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache), "WGC_SERVER": "1"}
    coloured = []
    for no_color in ("1", "", "1", ""):
        controller, terminal = pty.openpty()
        try:
            full = dict(os.environ, **env)
            full.pop("NO_COLOR", None)
            if no_color:
                full["NO_COLOR"] = no_color
            done = subprocess.run(wgc_command() + ["compile", "-o", "out/broken.spv", "broken.hlsl"], cwd=work,
                                  env=full, stdout=subprocess.PIPE, stderr=terminal, timeout=WAIT_SECONDS)
            os.close(terminal)
            terminal = -1
            text = b""
            while True:
                try:
                    chunk = os.read(controller, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                text += chunk
        finally:
            os.close(controller)
            if terminal >= 0:
                os.close(terminal)
        assert done.returncode == 1 and b"error" in text
        coloured.append(b"\x1b[" in text)
    assert coloured == [False, True, False, True]
    assert served_count({"WGC_CACHE_DIR": str(cache)}) == 4 and len(workers({"WGC_CACHE_DIR": str(cache)})) == 1


def test_each_command_ignores_the_signals_its_client_ignores(cache, tmp_path):  # noqa: F811 - the fixture
    """A fresh process inherits its parent's ignored signals: the worker ignores SIGUSR1 while it
    runs the command of a client that ignores it, and not while it runs the next one's."""
    work = project(tmp_path / "work")
    big_graph(work)
    env = {"WGC_CACHE_DIR": str(cache)}
    assert wgc("server", "--daemon", env=env).returncode == 0
    assert wgc("compile", "-o", "out/warm.spv", "graph.hlsl", cwd=work, env={**env, "WGC_SERVER": "1"}).returncode == 0
    worker = only_worker(env)
    usr1 = 1 << (signal.SIGUSR1 - 1)
    seen = []
    for ignore in (True, False):
        def preexec(ignore: bool = ignore) -> None:
            signal.signal(signal.SIGUSR1, signal.SIG_IGN if ignore else signal.SIG_DFL)

        client = subprocess.Popen(wgc_command() + ["compile", "-o", "out/big.spv", "big.hlsl"], cwd=work,
                                  env=dict(os.environ, **env, WGC_SERVER="1"), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, preexec_fn=preexec)
        try:
            wait_until(lambda: running_count(env) == 1, "the worker to run the compile")
            seen.append(bool(ignored_mask(worker) & usr1))
            assert client.wait(timeout=WAIT_SECONDS) == 0
        finally:
            if client.poll() is None:
                client.kill()
                client.wait()
    assert seen == [True, False]
    assert only_worker(env) == worker


def raw_command(socket_path: str, work: Path, args: list[str], signal_before_go: int | None = None):
    """A client written out: COMPILE, RUNNING, GO (or SIGNAL instead), then EXITED; returns (the
    pid that ran it, the EXITED body, the connection, still open)."""
    from wgc.identity import fingerprint
    from wgc.server import protocol

    request = {"fingerprint": fingerprint(), "argv": args, "argv0": "wgc", "cwd": str(work),
               "env": {k: v for k, v in os.environ.items() if k not in ("WGC_SERVER", "NO_COLOR")},
               "umask": 0o022, "limits": protocol.limits(), "stdio": [(True, "utf-8", "strict", False, False)] * 3,
               "ignored": [int(signal.SIGPIPE), int(signal.SIGXFSZ)]}
    connection = protocol.connect(socket_path, WAIT_SECONDS)
    protocol.send(connection, protocol.COMPILE, request)
    kind, pid, _fds = protocol.receive(connection)
    assert kind == protocol.RUNNING, (kind, pid)
    if signal_before_go is not None:
        protocol.send(connection, protocol.SIGNAL, signal_before_go)
    else:
        with open(os.devnull, "rb") as stdin, open(work / "out" / "raw.log", "wb") as log:
            protocol.send(connection, protocol.GO, None, (stdin.fileno(), log.fileno(), log.fileno()))
    kind, body, _fds = protocol.receive(connection)
    assert kind == protocol.EXITED, (kind, body)
    return pid, body, connection


def test_a_finished_clients_signal_never_reaches_the_next_command(cache, tmp_path):  # noqa: F811 - the fixture
    """A client that forwards SIGINT, SIGTERM and SIGHUP after its command ended (EXITED came) does
    not interrupt the next command the same worker runs; one that forwards SIGINT before GO ends
    its own command (130, nothing written), and the worker goes on."""
    from wgc.server import protocol

    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    assert wgc("server", "--daemon", env=env).returncode == 0
    [(key, _pid)] = live_servers(cache).items()
    path = str(cache / f"server-{os.getuid()}" / f"{key}.sock")
    plain, _served = plain_and_served(work, cache, *COMMAND)
    held = []
    try:
        pid, ended, connection = raw_command(path, work, ["compile", "-o", "out/first.spv", "graph.hlsl"])
        held.append(connection)
        assert ended == ("exit", 0) and (work / "out" / "first.spv").exists()
        for number in range(4):
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                try:               # as the client does: the worker may have closed its side already
                    protocol.send(connection, protocol.SIGNAL, int(signum))
                except OSError:
                    pass
            _plain, served = plain_and_served(work, cache, *COMMAND)
            assert served == plain, number
            assert [worker for worker, _busy in workers(env)] == [pid]
            pid, ended, connection = raw_command(path, work, ["compile", "-o", f"out/late{number}.spv", "graph.hlsl"])
            held.append(connection)
            assert ended == ("exit", 0)
        pid, ended, connection = raw_command(path, work, ["compile", "-o", "out/never.spv", "graph.hlsl"],
                                             signal_before_go=int(signal.SIGINT))
        held.append(connection)
        assert ended == ("exit", 130) and not (work / "out" / "never.spv").exists()
        _plain, served = plain_and_served(work, cache, *COMMAND)
        assert served == plain and [worker for worker, _busy in workers(env)] == [pid]
    finally:
        for connection in held:
            connection.close()


def test_a_crashed_or_interrupted_worker_is_replaced(cache, tmp_path):  # noqa: F811 - the fixture
    """A worker killed between commands, or killed while it runs one (the client says so, WG0029,
    and ends by that signal), or whose command was interrupted, is not used again: the next command
    gets a new worker and the outputs of a plain process."""
    work = project(tmp_path / "work")
    big_graph(work)
    env = {"WGC_CACHE_DIR": str(cache)}
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain
    first = only_worker(env)
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: workers(env) == [], "the server to reap its killed worker")
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain
    second = only_worker(env)
    assert second != first
    client = subprocess.Popen(wgc_command() + ["compile", "-o", "out/big.spv", "big.hlsl"], cwd=work,
                              env=dict(os.environ, **env, WGC_SERVER="1"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    try:
        wait_until(lambda: running_count(env) == 1, "the worker to run the compile")
        client.send_signal(signal.SIGINT)
        assert client.wait(timeout=WAIT_SECONDS) == 130
    finally:
        if client.poll() is None:
            client.kill()
            client.wait()
        client.stdout.close()
        client.stderr.close()
    wait_until(lambda: second not in [pid for pid, _busy in workers(env)], "the interrupted worker to go")
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain
    assert only_worker(env) not in (first, second)


def test_a_command_with_other_resource_limits_leaves_the_worker_alone(cache, tmp_path):  # noqa: F811 - the fixture
    """A client with a lower file-size limit gets a process of its own (a worker cannot raise a
    limit again): the worker's limits stay as they were, and it runs the next command."""
    import resource

    work = project(tmp_path / "work")
    env = {"WGC_CACHE_DIR": str(cache)}
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain
    worker = only_worker(env)
    limits = Path(f"/proc/{worker}/limits").read_text()

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (200, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    plain, served = plain_and_served(work, cache, *COMMAND, preexec=small_files)
    assert served == plain and served[0] == 1 and b"[WG0007]" in served[2]
    assert Path(f"/proc/{worker}/limits").read_text() == limits
    plain, served = plain_and_served(work, cache, *COMMAND)
    assert served == plain and only_worker(env) == worker
    assert served_count(env) == 3


def test_the_worker_keeps_nothing_of_a_client_between_commands(cache, tmp_path):  # noqa: F811 - the fixture
    """Between commands a worker's standard streams are /dev/null (a pipeline reading a command's
    output ends with the command), its folder is /, and it holds no socket but its control socket
    (a socketpair, no path: only the server reaches it); it has no file in the server's folder."""
    work = project(tmp_path / "work")
    env = dict(os.environ, WGC_CACHE_DIR=str(cache), WGC_SERVER="1")
    env.pop("NO_COLOR", None)
    command = " ".join(wgc_command())
    for _ in range(2):
        done = subprocess.run(["bash", "-c", f"{command} compile -o - -S graph.hlsl | cat"], cwd=work, env=env,
                              capture_output=True, timeout=WAIT_SECONDS)
        assert done.returncode == 0 and b"OpEntryPoint" in done.stdout
    worker = only_worker({"WGC_CACHE_DIR": str(cache)})
    descriptors = {fd: os.readlink(f"/proc/{worker}/fd/{fd}") for fd in os.listdir(f"/proc/{worker}/fd")}
    assert [descriptors[fd] for fd in ("0", "1", "2")] == [os.devnull] * 3
    assert os.readlink(f"/proc/{worker}/cwd") == "/"
    sockets = [target for target in descriptors.values() if target.startswith("socket:")]
    assert len(sockets) == 1
    assert not any(str(cache) in target for target in descriptors.values())


# ---------------------------------------------------------------------- the worker's checks, in process


def test_the_state_a_command_could_leave_behind_is_seen():
    """Each kind of process-wide state a command could change is a difference between the captures
    before and after it (the worker is then replaced)."""
    from wgc.server.worker import State

    def changed(change, undo) -> list[str]:
        before = State.capture()
        change()
        try:
            return before.differences(State.capture())
        finally:
            undo()

    assert changed(lambda: None, lambda: None) == []
    previous = signal.getsignal(signal.SIGUSR2)
    assert changed(lambda: signal.signal(signal.SIGUSR2, signal.SIG_IGN),
                   lambda: signal.signal(signal.SIGUSR2, previous)) == ["signal dispositions"]
    assert changed(lambda: signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR2]),
                   lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGUSR2])) == ["the signal mask"]
    opened: list[int] = []
    assert changed(lambda: opened.append(os.open(os.devnull, os.O_RDONLY)),
                   lambda: os.close(opened[0])) == ["open descriptors"]
    stop = threading.Event()
    left = threading.Thread(target=stop.wait, daemon=True)
    assert changed(left.start, lambda: (stop.set(), left.join())) == ["threads"]
    assert changed(lambda: sys.path.append("/nowhere"), sys.path.pop) == ["sys.path"]
    filters = list(warnings.filters)
    assert changed(lambda: warnings.simplefilter("error"),
                   lambda: warnings.filters.__setitem__(slice(None), filters)) == ["warning filters"]
    limit = sys.getrecursionlimit()
    assert changed(lambda: sys.setrecursionlimit(limit + 1),
                   lambda: sys.setrecursionlimit(limit)) == ["the recursion limit"]
    hook = sys.excepthook
    assert changed(lambda: setattr(sys, "excepthook", lambda *a: None),
                   lambda: setattr(sys, "excepthook", hook)) == ["the process's hooks"]


def test_a_worker_goes_after_an_error_an_interrupt_a_foreign_module_or_growth(tmp_path):
    """`verdict`: the worker may run another command unless its command ended with an internal error
    (3) or an interrupt (> 128), changed state, loaded a new top-level module from outside wgc and
    the standard library (e.g. a plugin, which may keep state), or the worker grew by more than
    MEMORY_GROWTH."""
    from wgc.server import worker

    state = worker.State.capture()
    kept = worker.Kept()
    modules = set(sys.modules)
    assert worker.verdict(0, state, state, modules, kept) == (True, "")
    assert kept.resident is not None                     # its size after its first command
    assert worker.verdict(1, state, state, modules, kept) == (True, "")
    assert worker.verdict(3, state, state, modules, kept) == (False, "the command ended with 3")
    assert worker.verdict(130, state, state, modules, kept) == (False, "the command ended with 130")
    changed = worker.State((*state.values[:-1], None))
    assert worker.verdict(0, state, changed, modules, kept) == (False, "the command changed the process's hooks")
    (tmp_path / "wgc_test_plugin.py").write_text("STATE = []\n")
    sys.path.insert(0, str(tmp_path))
    try:
        sys.modules.pop("colorsys", None)
        import colorsys  # noqa: F401 - the standard library: harmless
        assert worker.verdict(0, state, state, modules, kept) == (True, "")
        import wgc_test_plugin  # noqa: F401
        assert worker.verdict(0, state, state, modules, kept) == (False, "the command loaded wgc_test_plugin")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("wgc_test_plugin", None)
    kept.resident = -worker.MEMORY_GROWTH          # as if it had grown by MEMORY_GROWTH and more since
    ok, why = worker.verdict(0, state, state, set(sys.modules), kept)
    assert not ok and why.startswith("it grew to ")


def assert_rearmed_watch_forwards(watch, connection, client_end, got: list[int]) -> None:  # type: ignore[no-untyped-def]
    """`watch`, rearmed on `connection`, forwards the SIGHUP its client sends on `client_end`: the
    handler installed here appends it to `got`, which held nothing before."""
    from wgc.server import protocol

    signal.signal(signal.SIGHUP, lambda signum, _frame: got.append(signum))
    watch.rearm(connection)
    protocol.send(client_end, protocol.SIGNAL, int(signal.SIGHUP))
    wait_until(lambda: bool(got), "the forwarded signal")
    assert got == [signal.SIGHUP]


@pytest.fixture
def connections():
    """Two socket pairs, (the end a `command.Watch` reads, the client's end) each, for the watch's
    tests; afterwards every end is closed and the handlers of the signals a watch handles are
    restored."""
    from wgc.server import command

    previous = {number: signal.getsignal(number) for number in command.HANDLED}
    pairs = [socket.socketpair() for _ in range(2)]
    yield pairs
    for pair in pairs:
        for end in pair:
            end.close()
    for number, handler in previous.items():
        signal.signal(number, handler)


def test_a_forwarded_signal_is_raised_only_while_its_command_runs(connections):
    """`command.Watch`: a SIGNAL message raises that signal in the main thread while the command runs;
    after `finish` (the command ended) one is dropped, even one that was already on its way."""
    from wgc.server import command, protocol

    got: list[int] = []
    (theirs, ours), _ = connections
    signal.signal(signal.SIGHUP, lambda signum, _frame: got.append(signum))
    watch = command.Watch(theirs)
    protocol.send(ours, protocol.SIGNAL, int(signal.SIGHUP))
    wait_until(lambda: bool(got), "the forwarded signal")
    assert got == [signal.SIGHUP]
    protocol.send(ours, protocol.SIGNAL, int(signal.SIGHUP))     # on its way as the command ends
    watch.finish()                 # raised before: handled by now (by the command's handler or none)
    signal.signal(signal.SIGHUP, lambda signum, _frame: got.append(signum))
    handled = len(got)
    assert handled in (1, 2)
    protocol.send(ours, protocol.SIGNAL, int(signal.SIGHUP))
    time.sleep(0.3)
    signal.pthread_sigmask(signal.SIG_BLOCK, [])                  # run any handler pending
    watch.close()
    assert len(got) == handled


def test_one_watching_thread_serves_successive_commands(connections):
    """`command.Watch.rearm`/`release`: a reused worker's one watching thread reads each command's
    connection in turn. A SIGNAL on the next command's connection is raised while that command
    runs; the previous connection is closed by `release` only once the thread let go of it, and
    the thread is the same one throughout (no thread per command)."""
    from wgc.server import command, protocol

    got: list[int] = []
    (first, first_peer), (second, second_peer) = connections
    watch = command.Watch(first)
    thread = watch.thread
    watch.finish()
    watch.release()
    assert first.fileno() == -1                    # closed by `release`
    assert thread.is_alive() and watch.connection is None
    first_peer.close()
    assert_rearmed_watch_forwards(watch, second, second_peer, got)
    watch.finish()
    signal.signal(signal.SIGHUP, lambda signum, _frame: got.append(signum))
    protocol.send(second_peer, protocol.SIGNAL, int(signal.SIGHUP))   # after the command: dropped
    time.sleep(0.3)
    signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert got == [signal.SIGHUP]
    assert watch.thread is thread
    watch.close()
    assert second.fileno() == -1 and not thread.is_alive()


def test_a_client_gone_mid_command_still_stops_it_with_a_reused_watch(connections):
    """The watching thread of a reused worker treats the next command's client going away as it
    did the first's: SIGTERM raised in the main thread while that command runs."""
    from wgc.server import command

    got: list[int] = []
    (first, first_peer), (second, second_peer) = connections
    watch = command.Watch(first)
    watch.finish()
    watch.release()
    first_peer.close()
    signal.signal(signal.SIGTERM, lambda signum, _frame: got.append(signum))
    watch.rearm(second)
    second_peer.close()                            # the client went away
    wait_until(lambda: bool(got), "the forwarded signal")
    assert got == [signal.SIGTERM]
    watch.finish()
    watch.close()


def test_a_worker_keeps_one_watching_thread_across_its_commands(cache, tmp_path):  # noqa: F811 - the fixture
    """Between commands a worker runs two threads, the same two each time: its main thread and the
    one that watches each command's connection in turn (none started per command, none left)."""
    env = {"WGC_CACHE_DIR": str(cache)}
    work = project(tmp_path / "work")
    seen = []
    for _ in range(3):
        plain, served = plain_and_served(work, cache, *COMMAND)
        assert served == plain
        pid = only_worker(env)
        seen.append((pid, sorted(os.listdir(f"/proc/{pid}/task"))))
    assert len(seen[0][1]) == 2 and seen[1] == seen[0] and seen[2] == seen[0]


def test_a_watch_that_fails_unexpectedly_never_holds_up_its_release(monkeypatch, connections):
    """An error the watching thread does not expect (here `protocol.receive` raising RuntimeError)
    ends its watch of that connection, as a thread per command ended: `release` closes it at once
    instead of waiting for a thread that will never let go, and the thread watches the next
    command's connection."""
    from wgc.server import command, protocol

    got: list[int] = []
    (first, first_peer), (second, second_peer) = connections
    receive = protocol.receive

    def broken(_connection):
        raise RuntimeError("unexpected")

    monkeypatch.setattr(protocol, "receive", broken)
    watch = command.Watch(first)
    wait_until(lambda: not watch.held, "the watch to let go")
    watch.finish()
    released = threading.Event()
    threading.Thread(target=lambda: (watch.release(), released.set()), daemon=True).start()
    assert released.wait(WAIT_SECONDS) and first.fileno() == -1
    assert watch.thread.is_alive()
    monkeypatch.setattr(protocol, "receive", receive)
    assert_rearmed_watch_forwards(watch, second, second_peer, got)
    watch.finish()
    watch.close()
