"""The served compile's client without `os` (`wgc.portable.system`, `environ`, `absolute`, `join`):
each answer is the one `os` gives, and the per-command work (fingerprint, folder checks, request)
is the same as before, only cheaper.
"""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from wgc import identity, portable
from wgc.server import client, protocol

ROOT = Path(__file__).resolve().parents[1]


def run_bare(code: str, env: dict | None = None) -> subprocess.CompletedProcess[str]:
    """`code` in `python -S` with this checkout first on the path (nothing has imported `os`)."""
    head = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n"
    return subprocess.run([sys.executable, "-S", "-c", head + code], capture_output=True, text=True, timeout=120,
                          env=env)


def test_environ_without_os_is_what_os_environ_decodes():
    """`portable.environ()` before `os` is loaded holds what `os.environ` holds once it is, a value that
    is not UTF-8 included (os.environ decodes with the file-system encoding and surrogateescape)."""
    env = {k.encode(): v.encode() for k, v in os.environ.items()}
    env[b"WGC_TEST_BYTES"] = b"caf\xe9 \xff"
    env[b"WGC_TEST_\xe9"] = b"plain"
    done = run_bare("from wgc import portable\n"
                    "early = dict(portable.environ())\n"
                    "assert 'os' not in sys.modules, 'os was imported'\n"
                    "import os\n"
                    "assert early == dict(os.environ), (early, dict(os.environ))\n"
                    "assert portable.environ() is os.environ\n"
                    "print(ascii(early['WGC_TEST_BYTES']))\n", env=env)   # type: ignore[arg-type]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "'caf\\udce9 \\udcff'\n"


def test_environ_once_os_is_loaded_follows_its_changes(monkeypatch):
    """In a process that loaded `os` (a test, the server's child), a variable set since the start is seen."""
    monkeypatch.setenv("WGC_TEST_LATER", "yes")
    assert portable.environ().get("WGC_TEST_LATER") == "yes"
    monkeypatch.setenv("WGC_SERVER", "on")
    assert protocol.switched_on()


PATHS = ["/a/b", "/a//b", "/a/./b", "/a/../b", "/a/b/", "/a/b/.", "/", "//a", "rel", "rel/x", "", ".", "..",
         "/home/u/.cache/wgc", "/a/.b/..c/...", "/a/b//"]


@pytest.mark.parametrize("path", PATHS)
def test_absolute_is_os_path_abspath(path):
    assert portable.absolute(path) == os.path.abspath(path)


@pytest.mark.parametrize("folder", ["/a", "/a/", "/", "", "rel", "rel/", "/a//"])
@pytest.mark.parametrize("name", ["x", ".cache", "", "server-0"])
def test_join_is_os_path_join(folder, name):
    assert portable.join(folder, name) == os.path.join(folder, name)


@pytest.mark.parametrize("path", PATHS + ["/x.py", "/a/wgc/identity.py", "/a/wgc/"])
def test_the_fingerprints_folder_of_a_path_is_os_path_dirname(path):
    assert identity._folder_of(path) == os.path.dirname(path)


def parts_by_hand(package: str) -> list[object]:
    """The fingerprint's parts as read before the thin client did without `os` (scandir, sorted by name)."""
    parts: list[object] = [sys.version]
    folders = [package]
    while folders:
        folder = folders.pop()
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
        for entry in entries:
            if entry.name == "__pycache__" or entry.name == "samples" and folder == package:
                continue
            if entry.is_dir():
                folders.append(entry.path)
            else:
                info = entry.stat()
                parts.append((entry.path, info.st_size, info.st_mtime_ns))
    grammar = os.path.join(os.path.dirname(package), "grammar", "hlsl.lark")
    if os.path.exists(grammar):
        info = os.stat(grammar)
        parts.append((grammar, info.st_size, info.st_mtime_ns))
    for folder in sys.path:
        if os.path.basename(folder) in ("site-packages", "dist-packages") and os.path.isdir(folder):
            names = sorted(n for n in os.listdir(folder) if n.endswith((".dist-info", ".egg-info")))
            parts.append((folder, names))
    return parts


def fingerprint_parts(monkeypatch, package: str | None = None) -> list[object]:
    """What `identity.compute_fingerprint(package)` digests (the marshalled parts, read back)."""
    seen = []
    digest = identity.digest
    monkeypatch.setattr(identity, "digest", lambda data: seen.append(marshal.loads(data)) or digest(data))
    identity.compute_fingerprint(package)
    monkeypatch.setattr(identity, "digest", digest)
    return seen[0]


def test_the_fingerprint_reads_what_it_read_before(tmp_path, monkeypatch):
    """The same parts as before: every file of the package (path, size, mtime), folders walked in the
    same order, the grammar, the distributions; `samples` left out at the top only."""
    assert fingerprint_parts(monkeypatch) == parts_by_hand(os.path.dirname(identity.__file__))
    package = tmp_path / "pkg" / "wgc"
    (package / "sub" / "deeper").mkdir(parents=True)
    (package / "samples").mkdir()
    (package / "sub" / "samples").mkdir()
    for name in ("a.py", "sub/b.py", "sub/deeper/c.txt", "samples/s.hlsl", "sub/samples/t.hlsl", "Z.py"):
        (package / name).write_text(name)
    (tmp_path / "pkg" / "grammar").mkdir()
    (tmp_path / "pkg" / "grammar" / "hlsl.lark").write_text("start: x")
    assert fingerprint_parts(monkeypatch, str(package)) == parts_by_hand(str(package))
    before = identity.compute_fingerprint(str(package))
    (package / "sub" / "samples" / "t.hlsl").write_text("changed")        # not the top `samples`: it counts
    assert identity.compute_fingerprint(str(package)) != before


def test_a_digest_of_equal_values_is_the_same_however_they_are_held():
    """The fingerprint, the server's key and the cache's keys digest values: equal values give the
    same digest whether a string is held twice or once each, interned or not (a process that
    interned a search-path entry, or a command line naming one word twice, is not another wgc)."""
    word = "".join(["compile", "-o"])
    twice = [word, word, sys.intern("".join(["/usr", "/lib"]))]
    once_each = ["".join(["compile", "-o"]), "".join(["compile", "-o"]), "".join(["/usr", "/lib"])]
    assert marshal.dumps(twice) != marshal.dumps(once_each)         # (marshal's default format differs)
    assert identity.digest_of(twice) == identity.digest_of(once_each)
    assert identity.digest_of(twice) != identity.digest_of(once_each[:2])


WORDS = ["/dev/fd/3", "/dev/fd/0", "/dev/fd/2/x", "x", "/dev/./fd/3", "/dev/x/../fd/5", "fd/3", "../fd/4",
         "/proc/self/fd/0", "/proc/thread-self/x", "self/fd/1", "out/a.spv", "-o/dev/fd/4", "--x=/dev/fd/7",
         "/dev/fd/", "/dev/fd/abc", "./fd", "selfish.hlsl", "/tmp/w/fdx/../y"]
CWDS = ["/tmp/w", "/dev", "/proc", "/proc/self", "/home/selfish", "/dev/fd"]


def descriptor_named_by_hand(word: str, cwd: str) -> bool:
    """What `names_own_descriptor` answers, said another way: the normal absolute path holds
    /proc/self/, /proc/thread-self/ or /dev/fd/ followed by anything but 0, 1 or 2."""
    text = os.path.normpath(os.path.join(cwd, word)) + "/"
    return re.search(r"/proc/(thread-)?self/|/dev/fd/(?!0*[0-2]/)", text) is not None


@pytest.mark.parametrize("cwd", CWDS)
def test_words_naming_a_descriptor_are_found(cwd):
    """Normalising a path only removes ".", ".." and empty parts, so a word and folder without "fd" and
    "self" cannot name /dev/fd/N or /proc/self: those skip os.path; every answer is still right."""
    for word in WORDS:
        assert client.names_own_descriptor([word], cwd) is descriptor_named_by_hand(word, cwd), (word, cwd)


def test_the_server_folder_is_made_private_and_checked(tmp_path, monkeypatch):
    """Made with its parents (mode 0700) when missing; taken as it is when private; refused when open
    to others, not a folder, or a link (even to a private folder)."""
    monkeypatch.setenv("WGC_CACHE_DIR", str(tmp_path / "a" / "b"))
    made = protocol.folder()
    assert made == str(tmp_path / "a" / "b" / f"server-{os.getuid()}")
    assert os.stat(made).st_mode & 0o777 == 0o700
    assert protocol.folder() == made
    os.chmod(made, 0o750)
    with pytest.raises(protocol.Unavailable, match=r"open to other users \(mode 0750; 0700 expected\)"):
        protocol.folder()
    os.chmod(made, 0o700)
    os.rename(made, made + "-real")
    os.symlink(made + "-real", made)
    with pytest.raises(protocol.Unavailable, match="is not a folder"):
        protocol.folder()
    os.unlink(made)
    Path(made).write_text("")
    with pytest.raises(protocol.Unavailable, match="is not a folder"):
        protocol.folder()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="long socket paths go through /proc/self/fd")
def test_a_long_socket_path_is_reached_through_its_folder_without_os(tmp_path):
    """A socket path too long for sockaddr_un: /proc/self/fd/N/name, N a descriptor of its folder."""
    folder = tmp_path / ("d" * 60) / ("e" * 60)
    folder.mkdir(parents=True)
    path = str(folder / "k.sock")
    done = run_bare("from wgc.server import protocol\n"
                    f"address = protocol.Address({path!r})\n"
                    "import posix\n"
                    "fd = int(address.address.split('/')[4])\n"
                    "print(address.address.rpartition('/')[2], posix.readlink(f'/proc/self/fd/{fd}'), 'os' in sys.modules)\n"
                    "address.close()\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"k.sock {folder} False\n"


@pytest.mark.parametrize("home", ["/root", "/root/", "/", "", "rel", None])
@pytest.mark.parametrize("xdg", [None, "", "/x/", "rel"])
def test_the_cache_folder_is_found_as_before(monkeypatch, home, xdg):
    """$WGC_CACHE_DIR, else $XDG_CACHE_HOME/wgc, else ~/.cache/wgc, with `~` as os.path.expanduser reads it."""
    monkeypatch.delenv("WGC_CACHE_DIR", raising=False)
    for name, value in (("HOME", home), ("XDG_CACHE_HOME", xdg)):
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    expected = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                            "wgc")
    assert identity.cache_folder() == expected
    monkeypatch.setenv("WGC_CACHE_DIR", "elsewhere")
    assert identity.cache_folder() == "elsewhere"
