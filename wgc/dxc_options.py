"""Command line, before click: dxc's spellings of a command's arguments -> wgc's own spellings.

Stage: the first step of `wgc.cli` (no compile state; imports only the foundation).
Input: the arguments after the command's name, and the command's own options (each name with
the number of values it takes, from click).
Output: a `Translation`: the arguments in wgc's spellings (an option and its values as separate
words, `-` prefix), the dxc options accepted without effect (for warning WG0039, which the command
reports with its other diagnostics), and the usage problems (WG0038 unknown argument, WG0040 refused
dxc option, WG0041 missing value).

Invariants:
- `DXC_OPTIONS` holds every option dxc.exe accepts (HLSLOptions.td: those flagged CoreOption or
  DriverOption), each with what wgc does with it: honoured (translated to wgc's option), ignored
  (no effect on SPIR-V: a warning naming why) or refused (an error naming why).
- An argument is read as dxc reads it (LLVM's OptTable): a word that is exactly one of the
  command's own options is that option; otherwise the longest option name it starts with (after a
  `-`, `--` or `/` prefix that option allows, case-sensitively) whose kind accepts it: a flag only
  when nothing follows the name, a joined option with the rest as its value, a separate one with
  the next words; else one of the command's own one-letter options with its value joined (`-ofile`,
  `-UNAME`, as click reads them). A word starting with `/` that no option accepts is a path
  (`/tmp/x.hlsl`), one starting with `-` is an unknown argument (unless -Qunused-arguments: then a
  warning).
- Values are taken verbatim (a value may start with `-` or `/`); everything after `--` is a path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from wgc.cached_dataclass import dataclass, field

BOTH = ("-", "/")
DASH = ("-",)

FLAG, JOINED, SEPARATE, JOINED_OR_SEPARATE, COMMA_JOINED, MULTI = (
    "flag", "joined", "separate", "joined-or-separate", "comma-joined", "multi")
HONOUR, IGNORE, REFUSE = "honoured", "ignored", "refused"


@dataclass(frozen=True)
class DxcOption:
    """One option of dxc's table and wgc's answer to it."""

    name: str                      # without its prefix, as HLSLOptions.td spells it
    kind: str                      # FLAG, JOINED, SEPARATE, JOINED_OR_SEPARATE, COMMA_JOINED or MULTI
    prefixes: tuple[str, ...]
    action: str                    # HONOUR, IGNORE or REFUSE
    wgc: tuple[str, ...] = ()      # HONOUR: wgc's words; "{}" stands for the option's values in order
    why: str = ""                  # IGNORE / REFUSE: the reason, one clause; HONOUR: a remark for the docs
    nargs: int = 1                 # SEPARATE / MULTI: how many words follow

    @property
    def spelling(self) -> str:
        return self.prefixes[0] + self.name


def _f(name: str, action: str, what: tuple[str, ...] | str = (), prefixes: tuple[str, ...] = BOTH,
       remark: str = "") -> DxcOption:
    return _option(name, FLAG, prefixes, action, what, remark=remark)


def _option(name: str, kind: str, prefixes: tuple[str, ...], action: str, what: tuple[str, ...] | str,
            nargs: int = 1, remark: str = "") -> DxcOption:
    if isinstance(what, str):
        return DxcOption(name, kind, prefixes, action, why=what, nargs=nargs)
    return DxcOption(name, kind, prefixes, action, wgc=what, why=remark, nargs=nargs)


def _js(name: str, action: str, what: tuple[str, ...] | str, prefixes: tuple[str, ...] = BOTH) -> DxcOption:
    return _option(name, JOINED_OR_SEPARATE, prefixes, action, what)


def _s(name: str, action: str, what: tuple[str, ...] | str, nargs: int = 1,
       prefixes: tuple[str, ...] = BOTH, remark: str = "") -> DxcOption:
    return _option(name, SEPARATE if nargs == 1 and prefixes == BOTH else MULTI, prefixes, action, what, nargs,
                   remark)


def _j(name: str, action: str, what: tuple[str, ...] | str, remark: str = "") -> DxcOption:
    return _option(name, JOINED, DASH, action, what, remark=remark)


DXIL = "it shapes DXIL or its container, which SPIR-V does not have"
OPTIMIZER = "it tunes DXC's LLVM optimizer; wgc's optimizer is -O (spirv-opt passes safe for AMDX modules)"
ROOT_SIGNATURE = "root signatures are D3D12 objects; Vulkan has none"
LISTING = "it formats DXIL listings; -Fc writes spirv-dis's disassembly"
PDB = "it concerns a DXIL PDB; SPIR-V has no separate debug file (-Zi puts the source in the module)"
HEAP = "wgc does not compile ResourceDescriptorHeap or SamplerDescriptorHeap (using one is an error)"
NOT_COMPILED = "it is for vertex shaders, which wgc does not compile"
SEMDEF = "it concerns DXC's semantic defines, an optimizer feature"
LIFETIME = "it concerns DXIL lifetime markers"
PAYLOAD = "it concerns ray-tracing payloads; wgc compiles no ray-tracing stages"
SIGNATURE = "it packs DXIL signatures; SPIR-V stage I/O has Locations"
TIMING = "wgc prints no timing report"
VERBOSE = "wgc has no verbose mode"
INCLUDES = "wgc does not print the include process (-M lists the included files)"
OTHER_TOOL = "it asks for another tool's work, not a compile"

DXC_OPTIONS: tuple[DxcOption, ...] = (
    # preprocessor, profile, entry, language
    _js("D", HONOUR, ("-D", "{}")),
    _js("I", HONOUR, ("-I", "{}")),
    _js("T", HONOUR, ("-T", "{}")),
    _js("E", HONOUR, ("-E", "{}")),
    _s("HV", HONOUR, ("-HV", "{}")),
    _f("enable-16bit-types", HONOUR, ("-enable-16bit-types",)),
    _f("Zpr", HONOUR, ("-Zpr",)),
    _f("Zpc", HONOUR, ("-Zpc",)),
    _f("H", IGNORE, INCLUDES, DASH),
    _f("Vi", IGNORE, INCLUDES),
    _f("ignore-line-directives", IGNORE, "wgc's diagnostics follow #line directives"),
    _f("flegacy-macro-expansion", REFUSE, "FXC's token pasting would change what the preprocessor produces; "
       "wgc expands macros as the C standard and DXC's default do"),
    _s("encoding", HONOUR, (), remark="utf8 is wgc's encoding; another is refused"),
    _j("verify", REFUSE, "it is DXC's test mode (expected-diagnostic comments)"),
    # outputs
    _js("Fo", HONOUR, ("-o", "{}")),
    _option("Fc", JOINED_OR_SEPARATE, BOTH, HONOUR, ("-Fc", "{}"), remark="the disassembly (spirv-dis's form), "
            "beside the module or, without -Fo, alone"),
    _js("Fh", HONOUR, ("-Fh", "{}")),
    _js("Vn", HONOUR, ("-Vn", "{}")),
    _js("Fe", HONOUR, ("-Fe", "{}")),
    _s("Fre", HONOUR, ("-Fre", "{}")),
    _f("P", HONOUR, ("-P",), remark="the preprocessed text, to -Fi FILE or INPUT.i"),
    _f("Po", HONOUR, ("-P",), remark="dxc's deprecated spelling of -P"),
    _js("Fi", HONOUR, ("-Fi", "{}")),
    _f("M", HONOUR, ("-M",)),
    _f("MD", HONOUR, ("-MD",)),
    _js("MF", HONOUR, ("-MF", "{}")),
    _f("ast-dump", HONOUR, ("--emit", "ast")),
    _f("ast-dump-implicit", HONOUR, ("--emit", "ast")),
    _js("Fd", IGNORE, PDB),
    _s("Frs", IGNORE, ROOT_SIGNATURE + ": no file is written"),
    _s("Fsh", IGNORE, "it writes the DXIL container's shader hash: no file is written"),
    _f("Cc", IGNORE, LISTING),
    _f("Ni", IGNORE, LISTING),
    _f("No", IGNORE, LISTING),
    _f("Lx", IGNORE, LISTING),
    _f("spirv", HONOUR, ("-spirv",), DASH, remark="the program is written for Vulkan, whose pipeline names the nodes: a self-target by name is warning WG0535"),
    _f("fcgl", REFUSE, "it writes DXC's high-level LLVM IR (--emit=ir writes wgc's IR)"),
    # optimization
    _f("O0", HONOUR, ("-O0",), remark="no optimization (wgc's default)"),
    _f("O1", HONOUR, ("-O",)),
    _f("O2", HONOUR, ("-O",)),
    _f("O3", HONOUR, ("-O",)),
    _f("Od", HONOUR, ("-O0",), remark="no optimization (wgc's default)"),
    _f("Odump", IGNORE, OPTIMIZER),
    _s("memdep-block-scan-limit", IGNORE, OPTIMIZER),
    _s("opt-disable", IGNORE, OPTIMIZER),
    _s("opt-enable", IGNORE, OPTIMIZER),
    _s("opt-select", IGNORE, OPTIMIZER, nargs=2),
    _f("fnew-inlining-behavior", IGNORE, OPTIMIZER, DASH),
    _f("ffinite-math-only", IGNORE, "wgc keeps IEEE NaN and infinity semantics", DASH),
    _f("fno-finite-math-only", HONOUR, (), DASH, "wgc's behaviour"),
    _f("print-before-all", IGNORE, OPTIMIZER),
    _s("print-before", IGNORE, OPTIMIZER),
    _f("print-after-all", IGNORE, OPTIMIZER),
    _s("print-after", IGNORE, OPTIMIZER),
    _f("ignore-opt-semdefs", IGNORE, SEMDEF),
    _s("ignore-semdef", IGNORE, SEMDEF),
    _s("override-semdef", IGNORE, SEMDEF),
    _f("force-zero-store-lifetimes", IGNORE, LIFETIME),
    _f("enable-lifetime-markers", IGNORE, LIFETIME),
    _f("disable-lifetime-markers", IGNORE, LIFETIME),
    _f("preserve-intermediate-values", IGNORE, DXIL),
    _f("fdisable-loc-tracking", IGNORE, DXIL, DASH),
    _js("denorm", IGNORE, "wgc sets no denormal execution mode: the device's default applies"),
    _f("Gfa", IGNORE, "it is an FXC flow-control hint"),
    _f("Gfp", IGNORE, "it is an FXC flow-control hint"),
    _f("Gec", IGNORE, "FXC's backward-compatibility mode does not apply to SPIR-V"),
    _f("Ges", IGNORE, "FXC's strict mode does not apply to SPIR-V"),
    _f("Gis", IGNORE, "wgc's SPIR-V already keeps IEEE semantics (no fast-math flags)"),
    _f("res-may-alias", IGNORE, DXIL),
    _f("res_may_alias", IGNORE, DXIL),
    _f("all-resources-bound", IGNORE, DXIL),
    _f("all_resources_bound", IGNORE, DXIL),
    # validation and debug information
    _f("Vd", HONOUR, ("-Vd",)),
    _f("Zi", HONOUR, ("-Zi",)),
    _f("Zs", IGNORE, PDB),
    _f("Zss", IGNORE, "it concerns the DXIL container's shader hash"),
    _f("Zsb", IGNORE, "it concerns the DXIL container's shader hash"),
    _f("Qstrip_debug", IGNORE, "it strips a DXIL container's debug part; wgc adds debug information only with -Zi"),
    _f("Qstrip_reflect", IGNORE, "it strips a DXIL container's reflection; SPIR-V carries none"),
    _f("Qembed_debug", IGNORE, PDB),
    _f("Qstrip_priv", IGNORE, DXIL),
    _f("Qsource_in_debug_module", IGNORE, PDB),
    _f("Qpdb_in_private", IGNORE, PDB),
    _f("Qstrip_rootsignature", IGNORE, ROOT_SIGNATURE),
    _f("Qkeep_reflect_in_dxil", IGNORE, DXIL),
    _f("Qstrip_reflect_from_dxil", IGNORE, DXIL),
    _s("validator-version", IGNORE, "it concerns the DXIL validator; wgc validates with spirv-val"),
    # warnings and diagnostics
    _j("W", HONOUR, ("-W", "{}")),
    _f("Wall", HONOUR, ("-W", "all"), DASH),
    _f("all-warnings", HONOUR, ("-W", "all"), ("--",)),
    _f("Wdeprecated", IGNORE, "wgc has no deprecation warnings", DASH),
    _f("WX", HONOUR, ("-WX",)),
    _f("no-warnings", HONOUR, ("-w",)),
    _j("Wno-vk-ignored-features", HONOUR, ("-W", "no-vk-ignored-features")),
    _j("Wno-vk-emulated-features", IGNORE, "wgc has no emulated-feature warnings"),
    _j("ferror-limit=", HONOUR, ("-ferror-limit", "{}")),
    _j("fdiagnostics-format=", HONOUR, ("-fdiagnostics-format", "{}")),
    _f("fdiagnostics-color", HONOUR, ("-fcolor-diagnostics",), DASH),
    _f("fdiagnostics-show-option", HONOUR, (), DASH, "wgc always names a warning's group"),
    _f("fno-diagnostics-show-option", IGNORE, "wgc always names a warning's group", DASH),
    _f("Qunused-arguments", HONOUR, (), DASH, "unknown arguments become warnings (WG0039), as dxc ignores them"),
    _f("ftime-report", IGNORE, TIMING, DASH),
    _f("ftime-trace", IGNORE, TIMING, DASH),
    _j("ftime-trace=", IGNORE, TIMING),
    _j("ftime-trace-granularity=", IGNORE, TIMING),
    _f("verbose", IGNORE, VERBOSE, DASH),
    _f("v", IGNORE, VERBOSE, DASH),
    _f("disable-exception-handling", IGNORE, "it concerns DXC's crash handling"),
    _f("skip-serialization", IGNORE, "it is an IDxcCompiler API mode"),
    _f("nologo", HONOUR, (), remark="wgc prints no banner"),
    # help and version
    _f("help", HONOUR, ("--help",), ("-", "--", "/")),
    _f("?", HONOUR, ("--help",)),
    _f("help-hidden", HONOUR, ("--help",), ("--",)),
    _f("version", HONOUR, ("--version",), ("--",), "the whole command is then wgc --version"),
    # libraries, bindings and root signatures
    _s("auto-binding-space", IGNORE, "it sets DXIL's automatic binding space; SPIR-V bindings come from "
       "register(), [[vk::binding]] and -fvk-*-shift"),
    _js("import-binding-table", IGNORE, "it is a DXIL binding table; SPIR-V bindings come from register(), "
        "[[vk::binding]] and -fvk-*-shift"),
    _s("binding-table-define", IGNORE, "it is a DXIL binding table; SPIR-V bindings come from register(), "
       "[[vk::binding]] and -fvk-*-shift"),
    _f("flegacy-resource-reservation", IGNORE, DXIL),
    _f("no-legacy-cbuf-layout", IGNORE, DXIL),
    _f("not_use_legacy_cbuf_load", IGNORE, DXIL),
    _f("pack-prefix-stable", IGNORE, SIGNATURE),
    _f("pack_prefix_stable", IGNORE, SIGNATURE),
    _f("pack-optimized", IGNORE, SIGNATURE),
    _f("pack_optimized", IGNORE, SIGNATURE),
    _s("precise-output", IGNORE, "it marks DXIL output signature elements precise"),
    _s("exports", IGNORE, "it renames DXIL library exports; -E NAME compiles one node or entry point"),
    _f("export-shaders-only", HONOUR, (), remark="a SPIR-V module exports its entry points only"),
    _s("default-linkage", IGNORE, "it sets DXIL library linkage; Vulkan SPIR-V links nothing"),
    _s("rootsig-define", IGNORE, ROOT_SIGNATURE),
    _js("setrootsignature", IGNORE, ROOT_SIGNATURE),
    _js("force-rootsig-ver", IGNORE, ROOT_SIGNATURE),
    _js("force_rootsig_ver", IGNORE, ROOT_SIGNATURE),
    _f("enable-payload-qualifiers", IGNORE, PAYLOAD),
    _f("disable-payload-qualifiers", IGNORE, PAYLOAD),
    _js("setprivate", IGNORE, "it adds private data to a DXIL container"),
    # other tools' work
    _f("dumpbin", REFUSE, OTHER_TOOL + " (it disassembles a DXIL container; spirv-dis reads SPIR-V)"),
    _f("link", REFUSE, OTHER_TOOL + " (it links DXIL libraries; Vulkan SPIR-V links nothing)"),
    _f("recompile", REFUSE, OTHER_TOOL + " (it recompiles a DXIL container)"),
    _f("extractrootsignature", REFUSE, OTHER_TOOL + " (it reads a DXIL container)"),
    _js("verifyrootsignature", REFUSE, OTHER_TOOL + " (it reads a DXIL container)"),
    _js("getprivate", REFUSE, OTHER_TOOL + " (it reads a DXIL container)"),
    _s("external", REFUSE, OTHER_TOOL + " (it loads a library into DXC)"),
    _s("external-fn", REFUSE, OTHER_TOOL + " (it loads a library into DXC)"),
    _f("metal", REFUSE, "wgc generates SPIR-V, not Metal", DASH),
    # SPIR-V code generation
    _j("fspv-target-env=", HONOUR, ("-fspv-target-env", "{}")),
    *(_s(f"fvk-{c}-shift", HONOUR, (f"-fvk-{c}-shift", "{}", "{}"), nargs=2, prefixes=DASH) for c in "btsu"),
    _f("fvk-use-dx-layout", HONOUR, ("-fvk-use-dx-layout",), DASH),
    _f("fvk-use-scalar-layout", HONOUR, ("-fvk-use-scalar-layout",), DASH),
    _f("fvk-use-gl-layout", REFUSE, "wgc lays buffers out by Vulkan's relaxed rules, DirectX's (-fvk-use-dx-layout) "
       "or scalar ones (-fvk-use-scalar-layout); strict GLSL offsets would differ", DASH),
    _s("fvk-bind-register", HONOUR, ("-fvk-bind-register", "{}", "{}", "{}", "{}"), nargs=4, prefixes=DASH),
    _s("vkbr", HONOUR, ("-fvk-bind-register", "{}", "{}", "{}", "{}"), nargs=4, prefixes=DASH,
       remark="dxc's short spelling of -fvk-bind-register"),
    _s("fvk-bind-globals", REFUSE, "wgc does not implement it: the $Globals block keeps its automatic binding",
       nargs=2, prefixes=DASH),
    _f("fvk-auto-shift-bindings", REFUSE, "wgc does not implement it: -fvk-*-shift moves register()s only, "
       "and the bindings of the other resources would differ", DASH),
    _j("fvk-stage-io-order=", HONOUR, (), "decl is wgc's order of stage I/O Locations; alpha is refused"),
    _f("fvk-invert-y", IGNORE, "wgc does not negate SV_Position.y: mesh outputs keep DirectX's y direction", DASH),
    _f("fvk-use-dx-position-w", IGNORE, "wgc does not reciprocate SV_Position.w in pixel shaders", DASH),
    _f("fvk-support-nonzero-base-instance", IGNORE, NOT_COMPILED, DASH),
    _f("fvk-support-nonzero-base-vertex", IGNORE, NOT_COMPILED, DASH),
    _f("fspv-use-legacy-buffer-matrix-order", REFUSE, "wgc does not implement it: matrices read from raw buffers "
       "would be laid out differently", DASH),
    _f("fspv-reflect", IGNORE, "wgc adds no reflection decorations; it writes the reflection as JSON "
       "(-Fre FILE)", DASH),
    _j("fspv-debug=", HONOUR, ("-Zi",), "file and source are -Zi; other categories add nothing more (the warning "
       "says so)"),
    _j("fspv-extension=", IGNORE, "wgc uses the extensions the program needs (SPV_AMDX_shader_enqueue, ...)"),
    _f("fspv-flatten-resource-arrays", REFUSE, "wgc does not implement it: resource arrays keep one binding each, "
       "so the bindings would differ", DASH),
    _f("fspv-reduce-load-size", IGNORE, OPTIMIZER, DASH),
    _f("fspv-fix-func-call-arguments", IGNORE, "it is a DXC legalization workaround wgc does not need", DASH),
    _j("fspv-entrypoint-name=", REFUSE, "wgc does not implement it: an entry point is named after its function "
       "(a node's producers target that name)"),
    _f("fspv-enable-maximal-reconvergence", REFUSE, "wgc does not implement it: the program would lose the "
       "reconvergence it asks for", DASH),
    _f("fspv-use-vulkan-memory-model", IGNORE, "wgc uses the Vulkan memory model where a module needs it, GLSL450 "
       "otherwise", DASH),
    _f("fspv-use-unknown-image-format", REFUSE, "wgc does not implement it: write [[vk::image_format(\"unknown\")]] "
       "on the images", DASH),
    _f("fspv-print-all", IGNORE, "it prints DXC's SPIR-V passes", DASH),
    _f("fspv-use-emulated-heap", IGNORE, HEAP, DASH),
    _f("fspv-use-descriptor-heap", IGNORE, HEAP, DASH),
    *(_s(f"fvk-bind-{heap}-heap", IGNORE, HEAP, nargs=2, prefixes=DASH) for heap in ("resource", "sampler", "counter")),
    _option("Oconfig=", COMMA_JOINED, DASH, IGNORE, "it lists spirv-opt passes; wgc's -O runs its own list, safe "
            "for SPV_AMDX_shader_enqueue modules"),
    _f("fspv-preserve-bindings", IGNORE, "wgc does not implement it: resources no entry point uses are left out "
       "of the module (-Fre lists those kept)", DASH),
    _f("fspv-preserve-interface", IGNORE, "wgc does not implement it: stage inputs and outputs are declared as "
       "wgc lowers them", DASH),
    _s("fspv-max-id", IGNORE, "wgc does not check an id limit (the module's header holds its id bound)",
       prefixes=DASH),
)
"""dxc's options (DirectXShaderCompiler include/dxc/Support/HLSLOptions.td) and what wgc does with each."""


def _special(option: DxcOption, values: list[str]) -> tuple[list[str], str | None, str | None]:
    """The options whose answer depends on their value: (wgc's words, an ignored-warning reason,
    a refusal reason)."""
    value = values[0] if values else ""
    if option.name == "encoding":
        if value.lower() == "utf8":
            return [], None, None
        return [], None, f"wgc reads and writes UTF-8 only, not '{value}'"
    if option.name == "fvk-stage-io-order=":
        if value == "decl":
            return [], None, None
        return [], None, f"wgc assigns stage I/O Locations in declaration order ('decl'), not '{value}'"
    if option.name == "fspv-debug=":
        if value in ("file", "source"):
            return ["-Zi"], None, None
        return ["-Zi"], f"wgc's debug information is the source (OpSource, as -Zi): '{value}' adds nothing more", None
    raise AssertionError(option.name)


SPECIAL = frozenset({"encoding", "fvk-stage-io-order=", "fspv-debug="})


@dataclass
class Problem:
    """A usage problem: `kind` is "unknown", "refused" or "missing"."""

    kind: str
    message: str
    note: str | None = None


@dataclass
class Translation:
    args: list[str] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    """(the option as written, why it has no effect) for each ignored dxc option."""
    problems: list[Problem] = field(default_factory=list)


def _candidates(word: str) -> list[tuple[int, DxcOption]]:
    """The options whose prefix and name start `word`, longest name first: (prefix + name length, option)."""
    found = []
    for option in DXC_OPTIONS:
        for prefix in option.prefixes:
            if word.startswith(prefix) and word[len(prefix):].startswith(option.name):
                found.append((len(prefix) + len(option.name), option))
                break
    found.sort(key=lambda item: -len(item[1].name))
    return found


def translate(args: Sequence[str], own: Mapping[str, int], command: str,
              other_commands: Mapping[str, str] | None = None) -> Translation:
    """`args` in wgc's spellings. `own`: the command's option names and the values each takes (0 for
    a flag); `other_commands`: wgc's options of other commands, with the command that has each."""
    out = Translation()
    unused_allowed = any(a == "-Qunused-arguments" for a in args)
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            out.args.extend(args[i:])
            break
        if word == "-" or not word.startswith(("-", "/")):
            out.args.append(word)
            i += 1
            continue
        name, eq, value = word.partition("=")
        if word in own or (eq and len(name) > 2 and own.get(name, 0) == 1):
            count = own.get(word, 0) if word in own else 0
            if i + count >= len(args):
                out.problems.append(Problem("missing", f"argument to '{word}' is missing (expected {count} "
                                            f"value{'s' if count > 1 else ''})"))
                return out
            out.args.extend([name, value] if eq and word not in own else args[i:i + 1 + count])
            i += 1 + count
            continue
        taken = _take(word, args, i, out, own, command, other_commands or {})
        if taken is None:
            return out
        if taken:
            i += taken
            continue
        if own.get(word[:2]) == 1 and word[1] != "-":    # wgc's own short option, its value joined: -ofile
            out.args.extend([word[:2], word[2:]])
        elif word.startswith("/"):               # no option: a path, as dxc decides
            out.args.append(word)
        elif unused_allowed:
            out.ignored.append((word, "it is no option of wgc or dxc (ignored under -Qunused-arguments)"))
        else:
            choices = [*own, *(o.spelling for o in DXC_OPTIONS)]
            out.problems.append(Problem("unknown", f"unknown argument: '{word}'", _suggestion(word, choices)))
            return out
        i += 1
    return out


def _take(word: str, args: Sequence[str], i: int, out: Translation, own: Mapping[str, int], command: str,
          others: Mapping[str, str]) -> int | None:
    """Read the dxc option at `args[i]` into `out`: the words it took, 0 if no option accepts it,
    None after a problem (an honoured option whose wgc option this command lacks, -Fc under 'wgc
    inspect', is refused)."""
    for size, option in _candidates(word):
        rest = word[size:]
        values: list[str]
        if option.kind == FLAG:
            if rest:
                continue
            values, taken = [], 1
        elif option.kind == JOINED:
            values, taken = [rest], 1
        elif option.kind == COMMA_JOINED:
            values, taken = rest.split(","), 1
        elif option.kind == JOINED_OR_SEPARATE and rest:
            values, taken = [rest], 1
        else:                                         # separate, multi, joined-or-separate without a joined value
            if rest:
                continue
            count = option.nargs
            if i + count >= len(args):
                out.problems.append(Problem("missing", f"argument to '{word}' is missing (expected {count} "
                                            f"value{'s' if count > 1 else ''})"))
                return None
            values, taken = list(args[i + 1:i + 1 + count]), 1 + count
        written = " ".join([word, *args[i + 1:i + taken]])
        if option.name in SPECIAL:
            words, ignored, refused = _special(option, values)
        elif option.action == HONOUR:
            pending = iter(values)
            words = [next(pending) if w == "{}" else w for w in option.wgc]
            ignored = refused = None
        elif option.action == IGNORE:
            words, ignored, refused = [], option.why, None
        else:
            words, ignored, refused = [], None, option.why
        if refused is not None:
            out.problems.append(Problem("refused", f"dxc option '{written}' is not supported: {refused}"))
            return None
        if words and words[0].startswith("-") and words[0] not in own and words[0] in others:
            out.problems.append(Problem("refused", f"'{word}' is an option of 'wgc {others[words[0]]}', not of "
                                        f"'wgc {command}'"))
            return None
        out.args.extend(words)
        if ignored is not None:
            out.ignored.append((written, ignored))
        return taken
    return 0


def _suggestion(word: str, choices: Sequence[str]) -> str | None:
    from wgc.suggest import closest

    near = closest(word, choices)
    if not near:
        name = word.partition("=")[0]
        near = closest(name, choices) if name != word else []
    return "did you mean " + " or ".join(f"'{n}'" for n in near[:3]) + "?" if near else None


def table_rows() -> list[tuple[str, str, str]]:
    """(spellings, what wgc does, why) for each dxc option, for the reference's table."""
    rows = []
    for option in DXC_OPTIONS:
        spelled = ", ".join(f"`{p}{option.name}`" for p in option.prefixes)
        if option.action == HONOUR:
            words = " ".join("ARG" if w == "{}" else w for w in option.wgc)
            what = "honoured" + (f": `{words}`" if words else "")
        else:
            what = option.action
        rows.append((spelled, what, option.why))
    return rows

