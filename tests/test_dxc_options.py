"""dxc's command lines work unchanged: every dxc option honoured, ignored with a warning, or refused."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SAMPLES
from wgc import dxc_options
from wgc.dxc_options import DXC_OPTIONS, translate

CHECKLIST = Path(__file__).parent / "data" / "dxc_options.txt"
HELLO = str(SAMPLES / "hello.hlsl")
KINDS = {"Flag": "flag", "Joined": "joined", "Separate": "separate", "JoinedOrSeparate": "joined-or-separate",
         "CommaJoined": "comma-joined"}

# the compile command's own options that the translations use (name: values taken)
OWN = {"-o": 1, "-Fo": 1, "-T": 1, "-D": 1, "-I": 1, "-E": 1, "-HV": 1, "-W": 1, "-WX": 0, "-O": 0, "-O0": 0,
       "-Fc": 1, "-Zi": 0, "-fvk-b-shift": 2, "-ferror-limit": 1, "--emit": 1, "-P": 0, "-Fi": 1, "-w": 0,
       "-spirv": 0, "-U": 1}


def test_every_dxc_option_has_an_answer():
    """HLSLOptions.td: "This file defines the options accepted by HLSL." dxc.exe parses with
    `DxcFlags = CoreOption | DriverOption`; each such option is in wgc's table with dxc's kind and
    prefixes, honoured, ignored with a reason or refused with one."""
    expected = {}
    for line in CHECKLIST.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, kind, prefixes = line.split()
        count = 1
        if kind.startswith("MultiArg"):
            kind, count = "multi", int(kind[len("MultiArg"):])
        expected[name] = (KINDS.get(kind, kind), tuple(prefixes.split(",")), count)
    table = {o.name: o for o in DXC_OPTIONS}
    assert len(table) == len(DXC_OPTIONS), "an option is listed twice"
    assert set(table) == set(expected)
    for name, (kind, prefixes, count) in expected.items():
        option = table[name]
        if kind == "separate" or kind == "multi":
            assert option.kind in ("separate", "multi") and option.nargs == count, name
        else:
            assert option.kind == kind, name
        assert option.prefixes == prefixes, name
        assert option.action in ("honoured", "ignored", "refused"), name
        if option.action != "honoured":
            assert option.why, name


@pytest.mark.parametrize("args,expected", [
    (["-Fofile.spv", "x.hlsl"], ["-o", "file.spv", "x.hlsl"]),
    (["-Fo", "file.spv", "x.hlsl"], ["-Fo", "file.spv", "x.hlsl"]),
    (["-Tlib_6_8"], ["-T", "lib_6_8"]),
    (["-T", "lib_6_8"], ["-T", "lib_6_8"]),
    (["-DX=1", "-D", "Y=2"], ["-D", "X=1", "-D", "Y=2"]),
    (["-Idir", "-I", "other"], ["-I", "dir", "-I", "other"]),
    (["-Emain"], ["-E", "main"]),
    (["/T", "lib_6_8", "/Fo", "x.spv", "/Zi", "/tmp/x.hlsl"], ["-T", "lib_6_8", "-o", "x.spv", "-Zi", "/tmp/x.hlsl"]),
    (["/Tlib_6_9", "/Fox.spv"], ["-T", "lib_6_9", "-o", "x.spv"]),
    # dxc decides by its table: /Deep... is -D with the value "eep/x.hlsl", as dxc reads it
    (["/Deep/x.hlsl"], ["-D", "eep/x.hlsl"]),
    (["-O3"], ["-O"]), (["/O1"], ["-O"]), (["-Od"], ["-O0"]), (["-O0"], ["-O0"]),
    (["-Wall", "-Wno-conversion", "-WX"], ["-W", "all", "-W", "no-conversion", "-WX"]),
    (["-ferror-limit=3"], ["-ferror-limit", "3"]),
    (["-Fcout.asm"], ["-Fc", "out.asm"]),
    (["-fvk-b-shift", "1", "0"], ["-fvk-b-shift", "1", "0"]),
    (["-fspv-debug=source"], ["-Zi"]),
    (["-ast-dump"], ["--emit", "ast"]),
    (["-nologo", "-spirv"], ["-spirv"]),
    (["-D", "-X"], ["-D", "-X"]),    # values are taken verbatim
    (["-ox.spv", "-UNAME"], ["-o", "x.spv", "-U", "NAME"]),     # wgc's own one-letter options, joined as click reads them
    (["--", "-Fx"], ["--", "-Fx"]),
])
def test_joined_separate_and_slash_forms(args, expected):
    """HLSLOptions.td: `def Fo : JoinedOrSeparate<["-", "/"], "Fo">`, `def T : JoinedOrSeparate<["-", "/"], "T">`,
    `def D : JoinedOrSeparate<["-", "/"], "D">`, `def O3 : Flag<["-", "/"], "O3">`; LLVM's OptTable: "If we
    failed to find an option and this arg started with /, then it's probably an input path"."""
    done = translate(args, OWN, "compile")
    assert done.problems == [] and done.ignored == []
    assert done.args == expected


def test_ignored_options_are_recorded_with_their_reason():
    done = translate(["-Qstrip_debug", "-Fd", "x.pdb", "-Zss", "-Oconfig=a,b", "-opt-select", "p", "v", "x.hlsl"],
                     OWN, "compile")
    assert done.problems == [] and done.args == ["x.hlsl"]
    assert [w for w, _ in done.ignored] == ["-Qstrip_debug", "-Fd x.pdb", "-Zss", "-Oconfig=a,b", "-opt-select p v"]
    assert all(why for _, why in done.ignored)


@pytest.mark.parametrize("args,kind,message", [
    (["-Fx"], "unknown", "unknown argument: '-Fx'"),
    (["-O4"], "unknown", "unknown argument: '-O4'"),
    (["-Qstrip-debug"], "unknown", "unknown argument: '-Qstrip-debug'"),
    (["-Fc"], "missing", "argument to '-Fc' is missing (expected 1 value)"),
    (["-fvk-b-shift", "1"], "missing", "argument to '-fvk-b-shift' is missing (expected 2 values)"),
    (["-fvk-use-gl-layout"], "refused", "dxc option '-fvk-use-gl-layout' is not supported: "),
    (["-link"], "refused", "dxc option '-link' is not supported: "),
    (["-encoding", "utf16"], "refused", "wgc reads and writes UTF-8 only, not 'utf16'"),
])
def test_problems(args, kind, message):
    done = translate(args, OWN, "compile")
    assert [p.kind for p in done.problems] == [kind]
    assert message in done.problems[0].message


def test_unknown_argument_suggests_a_close_option():
    """clang: "unknown argument '-foo'; did you mean '-fno'?"; the closest names of wgc and dxc."""
    assert translate(["-Qstrip-debug"], OWN, "compile").problems[0].note == "did you mean '-Qstrip_debug'?"
    assert translate(["-enable-16bit-type"], OWN, "compile").problems[0].note == "did you mean '-enable-16bit-types'?"
    assert translate(["--bogus-option-name"], OWN, "compile").problems[0].note is None


def test_qunused_arguments_turns_unknown_arguments_into_warnings():
    """HLSLOptions.cpp: `if (!Args.hasArg(OPT_Qunused_arguments))` unknown arguments are errors."""
    done = translate(["-Qunused-arguments", "-Fx", "x.hlsl"], OWN, "compile")
    assert done.problems == [] and done.args == ["x.hlsl"] and [w for w, _ in done.ignored] == ["-Fx"]


def test_an_option_of_another_command_is_refused_by_name():
    done = translate(["-Fc", "x.asm"], {"-o": 1}, "inspect", {"-Fc": "compile"})
    assert done.problems[0].message == "'-Fc' is an option of 'wgc compile', not of 'wgc inspect'"


def test_reference_table_lists_every_option():
    """docs/reference.md has one row per dxc option (generated text must stay in step with the table)."""
    reference = (Path(__file__).parents[1] / "docs" / "reference.md").read_text()
    for spelled, what, _why in dxc_options.table_rows():
        assert f"| {spelled} | {what} |" in reference, spelled


# --- the real command ---------------------------------------------------------------------------------


def test_dxc_command_line_with_listing_and_slash_options(run_wgc, tmp_path):
    """HLSLOptions.td: `def Fc : JoinedOrSeparate<["-", "/"], "Fc">, HelpText<"Output assembly code listing file">`."""
    done = run_wgc("/T", "lib_6_8", "/Fo", str(tmp_path / "x.spv"), "-Fc", str(tmp_path / "x.asm"), "-O3",
                   "-nologo", HELLO)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    binary = (tmp_path / "x.spv").read_bytes()
    assert struct.unpack("<I", binary[:4])[0] == 0x07230203            # SPIR-V's magic number
    listing = (tmp_path / "x.asm").read_text()
    assert 'OpExtension "SPV_AMDX_shader_enqueue"' in listing
    dis = subprocess.run([str(Path(sys.executable).parent / "spirv-dis"), str(tmp_path / "x.spv")],
                         capture_output=True, text=True)
    if dis.returncode == 0:      # the listing is the disassembly of the module written beside it
        assert listing.split("\n", 3)[3] == dis.stdout.split("\n", 3)[3]


def test_listing_alone_writes_no_module(run_wgc, tmp_path):
    """dxc writes the object only with -Fo: -Fc alone writes the listing and nothing else."""
    done = run_wgc("-T", "lib_6_8", "-Fcout.asm", HELLO, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.asm"]


def test_preprocess_to_file(run_wgc, tmp_path):
    """HLSLOptions.cpp: "cl.exe-compatible /P: preprocess to <inputname>.i, or use /Fi to override"."""
    source = tmp_path / "graph.hlsl"
    source.write_text("#define SIZE 4\nuint a[SIZE];\n")
    done = run_wgc("-P", str(source))
    assert done.returncode == 0, done.stderr
    assert "uint a[4];" in (tmp_path / "graph.i").read_text()
    done = run_wgc("/P", "/Fi", str(tmp_path / "other.txt"), str(source))
    assert done.returncode == 0 and "uint a[4];" in (tmp_path / "other.txt").read_text()


def test_ignored_option_warns_once_and_follows_the_warning_flags(run_wgc, tmp_path):
    out = tmp_path / "x.spv"
    done = run_wgc("-T", "lib_6_8", "-Qstrip_debug", "-Fo", str(out), HELLO)
    assert done.returncode == 0 and out.exists()
    assert done.stderr.decode() == (
        "warning: dxc option '-Qstrip_debug' ignored: it strips a DXIL container's debug part; wgc adds debug "
        "information only with -Zi [WG0039] [-Wdxc-option-ignored]\n1 warning generated.\n")
    quiet = run_wgc("-T", "lib_6_8", "-Qstrip_debug", "-Wno-dxc-option-ignored", "-Fo", str(out), HELLO)
    assert quiet.returncode == 0 and quiet.stderr == b""
    out.unlink()
    strict = run_wgc("-T", "lib_6_8", "/Zss", "-WX", "-Fo", str(out), HELLO)
    assert strict.returncode == 1 and b"error: dxc option '/Zss' ignored" in strict.stderr
    assert not out.exists()


@pytest.mark.parametrize("args,message", [
    (["-Fx", "o.asm"], "error: unknown argument: '-Fx'; did you mean '-F"),
    (["-Qstrip_debg"], "error: unknown argument: '-Qstrip_debg'; did you mean '-Qstrip_debug'? [WG0038]"),
    (["-fvk-use-gl-layout"], "error: dxc option '-fvk-use-gl-layout' is not supported: wgc lays buffers out by "
     "Vulkan's relaxed rules, DirectX's (-fvk-use-dx-layout) or scalar ones (-fvk-use-scalar-layout); strict GLSL "
     "offsets would differ [WG0040]"),
    (["-Fo"], "error: argument to '-Fo' is missing (expected 1 value) [WG0041]"),
])
def test_usage_problems_are_wgc_diagnostics(run_wgc, args, message):
    done = run_wgc("-T", "lib_6_8", HELLO, *args)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(message), done.stderr


BOUND = """RWStructuredBuffer<uint> Out : register(u2, space1);
Texture2D<float4> Tex : register(t0);
RWStructuredBuffer<uint> Loose;

struct R { uint a; };
[Shader("node")] [NodeLaunch("thread")]
void Leaf(ThreadNodeInputRecord<R> r) { Out[r.Get().a] = (uint)Tex.Load(int3(0, 0, 0)).x + Loose[0]; }
"""


def test_bind_register_places_each_register(run_wgc, tmp_path):
    """DXC's SPIR-V.rst: "-fvk-bind-register xX Y N M (short alias: -vkbr): Binds the resouce at
    register(xX, spaceY) to descriptor set M and binding N. ... It requires all source code resources
    have :register() attribute and all registers have corresponding Vulkan descriptors specified"."""
    import json

    source = tmp_path / "bound.hlsl"
    source.write_text(BOUND.replace("RWStructuredBuffer<uint> Loose;", "RWStructuredBuffer<uint> Loose : register(u0);"))
    done = run_wgc("-T", "lib_6_8", "--emit=reflection", "-vkbr", "u2", "1", "7", "3",
                   "-fvk-bind-register", "t0", "0", "4", "2", "-fvk-bind-register", "u0", "0", "9", "0", str(source))
    assert done.returncode == 0, done.stderr
    resources = {r["name"]: (r["set"], r["binding"]) for r in json.loads(done.stdout)["descriptor_bindings"]}
    assert resources == {"Out": (3, 7), "Tex": (2, 4), "Loose": (0, 9)}


def test_bind_register_needs_every_resource_named(run_wgc, tmp_path):
    source = tmp_path / "bound.hlsl"
    source.write_text(BOUND)
    done = run_wgc("-T", "lib_6_8", "-vkbr", "u2", "1", "7", "3", "-o", str(tmp_path / "x.spv"), str(source))
    assert done.returncode == 1 and not (tmp_path / "x.spv").exists()
    err = done.stderr.decode()
    assert "error: missing -fvk-bind-register for 'Tex' at register(t0, space0) [WG0324]" in err
    assert "error: -fvk-bind-register requires register annotations on all resources: 'Loose' has none" in err
    mixed = run_wgc("-T", "lib_6_8", "-vkbr", "u2", "1", "7", "3", "-fvk-u-shift", "1", "0", str(source))
    assert mixed.returncode == 2 and b"-fvk-*-shift cannot be used together with -fvk-bind-register" in mixed.stderr


def test_every_command_line_code_has_a_rendered_case():
    """WG0038-WG0042 are rendered in full here and in test_cli.py (WG0042)."""
    from wgc import codes

    assert {k.code for k in codes.ALL_KINDS if "WG0038" <= k.code <= "WG0049"} == {
        "WG0038", "WG0039", "WG0040", "WG0041", "WG0042"}


def test_inspect_and_run_take_dxc_options_and_warn_alike(run_wgc, vulkan_device):
    dispatch = str(SAMPLES / "hello.dispatch.json")
    done = run_wgc("run", "-Qstrip_debug", "/Tlib_6_8", "--dispatch", dispatch, HELLO)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().startswith("warning: dxc option '-Qstrip_debug' ignored: ")
    assert b'"u0"' in done.stdout
    inspected = run_wgc("inspect", "-Zss", "-Tlib_6_8", HELLO)
    assert inspected.returncode == 0 and b"warning: dxc option '-Zss' ignored: " in inspected.stderr
    compile_only = run_wgc("inspect", "-O3", HELLO)
    assert compile_only.returncode == 2
    assert compile_only.stderr.decode().startswith(
        "error: '-O3' is an option of 'wgc compile', not of 'wgc inspect' [WG0040]")
