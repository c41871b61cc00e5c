"""Statements, control flow and calls of one function body (SPIR-V back end).

Input: `ir.Stmt`s and `ir.Call`s of the function a `lower.FunctionLowering` lowers; expressions
are evaluated by that FunctionLowering (`fl.value`, `fl.place`).
Output: structured SPIR-V control flow in the open function: OpSelectionMerge, OpLoopMerge,
OpSwitch; calls as OpFunctionCall, or the callee's body inlined.

Invariants and decisions:
- Structured control flow only; statements after a terminator are not lowered.
- Functions marked `must_inline` (they take node objects or records, or unsized array parameters),
  functions taking resources or RayQuery objects, and, when loops are unrolled in index space,
  functions reading GetCurrentLoopIterationIndex() (its value depends on the node) are inlined; a `return` inside them leaves a
  `do {} while (false)` wrapper loop (with a flag when it sits inside a loop of the inlined body,
  re-checked after each enclosing construct). An unsized array parameter (`float a[]`) is a local
  of its argument's array type; a RayQuery parameter is bound to the caller's variable (DXC passes
  it by reference); node-object parameters are bound to the caller's handles, and `out` ones copied
  back to the caller's variables.
- Out/inout arguments of a real call go through Function temporaries copied back after the call.
- A call passing (part of) a mesh shader's outputs (`out vertices/indices/primitives`, an element
  or field of them) to an out/inout parameter of the same type is inlined with the parameter bound
  to the caller's output place (DXC writes the stage variables): a copy of the whole array written
  back would overwrite the other threads' vertices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wgc import ir
from wgc import types as t
from wgc.cached_dataclass import dataclass

from .places import NULL_HANDLE, Place, fresh_ray_query, is_object, is_ray_query, takes_objects
from . import stageio

if TYPE_CHECKING:
    from .lower import FunctionLowering


@dataclass
class _Breakable:
    merge: int
    continue_target: int | None          # None for a switch
    frame: _InlineFrame | None
    returns_inside: bool = False


@dataclass
class _InlineFrame:
    function: ir.Function
    return_place: Place | None
    exit: int | None                      # the wrapper loop's merge block
    flag: Place | None
    depth: int                            # len(breakables) at the wrapper
    result: object = None                 # a node-object handle returned by the function


class ControlFlow:
    """The statements and calls of one FunctionLowering: its loops, switches and inlined frames."""

    def __init__(self, fl: FunctionLowering) -> None:
        self.fl = fl
        self.ml = fl.ml
        self.b = fl.b
        self.types = fl.types
        self.breakables: list[_Breakable] = []
        self.frames: list[_InlineFrame] = []


    def block(self, block: ir.Block) -> None:
        for stmt in block.stmts:
            if not self.b.in_block:
                return                      # unreachable code after a terminator
            self.statement(stmt)

    def statement(self, stmt: ir.Stmt) -> None:
        if self.ml.options.debug_info and stmt.span is not None:
            line, column = stmt.span.line_col
            self.b.emit("OpLine", self.ml.file_string(stmt.span.file.path), line, column)
        method = getattr(self, "stmt_" + type(stmt).__name__)
        outer, self.fl.current_span = self.fl.current_span, stmt.span
        method(stmt)
        self.fl.current_span = outer

    def stmt_Block(self, stmt: ir.Block) -> None:
        self.block(stmt)

    def stmt_VarDecl(self, stmt: ir.VarDecl) -> None:
        variable = stmt.variable
        if is_object(variable.type):
            self.fl.bindings[variable] = self.fl.handle(stmt.init) if stmt.init is not None else NULL_HANDLE
            return
        if variable.storage is ir.Storage.STATIC:
            static = self.ml.global_binding(variable)
            assert isinstance(static, Place)
            self.fl.bindings[variable] = static
            self.fl.use_global(static.pointer)
            return
        place = self.fl.local(variable.type, variable.name)
        self.fl.bindings[variable] = place
        if stmt.init is not None and not fresh_ray_query(stmt.init):
            self.fl.store(place, self.fl.value(stmt.init))

    def stmt_ExprStmt(self, stmt: ir.ExprStmt) -> None:
        self.fl.evaluate(stmt.expr)

    def stmt_If(self, stmt: ir.If) -> None:
        cond = self.fl.value(stmt.cond)
        then_label, merge = self.b.new_id(), self.b.new_id()
        else_label = self.b.new_id() if stmt.else_ is not None else merge
        self.b.emit("OpSelectionMerge", merge, _selection_control(stmt.attributes))
        self.b.emit("OpBranchConditional", cond, then_label, else_label)
        self.fl.new_block(then_label)
        self.block(stmt.then)
        self.fl.branch(merge)
        if stmt.else_ is not None:
            self.fl.new_block(else_label)
            self.block(stmt.else_)
            self.fl.branch(merge)
        self.fl.new_block(merge)

    def stmt_Loop(self, stmt: ir.Loop) -> None:
        for init in stmt.init:
            self.statement(init)
        header, body, continue_target, merge = (self.b.new_id() for _ in range(4))
        self.fl.branch(header)
        self.fl.new_block(header)
        self.b.emit("OpLoopMerge", merge, continue_target, _loop_control(stmt.attributes))
        breakable = _Breakable(merge, continue_target, self.frames[-1] if self.frames else None)
        self.breakables.append(breakable)
        if stmt.kind is ir.LoopKind.DO_WHILE or stmt.cond is None:
            self.b.emit("OpBranch", body)
            self.fl.new_block(body)
            self.fl.ml.nodes.loop_iteration(self.fl, stmt)
        else:
            check = self.b.new_id()
            self.b.emit("OpBranch", check)
            self.fl.new_block(check)
            self.fl.ml.nodes.loop_iteration(self.fl, stmt)
            self.b.emit("OpBranchConditional", self.fl.value(stmt.cond), body, merge)
            self.fl.new_block(body)
        self.block(stmt.body)
        self.fl.branch(continue_target)
        self.fl.new_block(continue_target)
        if stmt.step is not None:
            self.fl.evaluate(stmt.step)
        if stmt.kind is ir.LoopKind.DO_WHILE and stmt.cond is not None:
            self.b.emit("OpBranchConditional", self.fl.value(stmt.cond), header, merge)
        else:
            self.b.emit("OpBranch", header)
        self.breakables.pop()
        self.fl.new_block(merge)
        self.fl.ml.nodes.loop_exit(self.fl, stmt)
        if breakable.returns_inside:
            self._propagate_return()

    def stmt_Switch(self, stmt: ir.Switch) -> None:
        selector = self.fl.value(stmt.selector)
        merge = self.b.new_id()
        labels = [self.b.new_id() for _ in stmt.cases]
        default = next((label for case, label in zip(stmt.cases, labels) if case.is_default), merge)
        targets: list = []
        width = getattr(self.types.shape(stmt.selector.type), "bits", 32)
        for case, label in zip(stmt.cases, labels):
            for value in case.values:
                targets += [_switch_literal(value, width), label]
        self.b.emit("OpSelectionMerge", merge, "None")
        self.b.emit("OpSwitch", selector, default, *targets)
        self.breakables.append(_Breakable(merge, None, self.frames[-1] if self.frames else None))
        for i, (case, label) in enumerate(zip(stmt.cases, labels)):
            self.fl.new_block(label)
            self.block(case.body)
            self.fl.branch(labels[i + 1] if i + 1 < len(labels) else merge)
        breakable = self.breakables.pop()
        self.fl.new_block(merge)
        if breakable.returns_inside:
            self._propagate_return()

    def stmt_Break(self, stmt: ir.Break) -> None:
        self.b.emit("OpBranch", self.breakables[-1].merge)

    def stmt_Continue(self, stmt: ir.Continue) -> None:
        target = next(b.continue_target for b in reversed(self.breakables) if b.continue_target is not None)
        self.b.emit("OpBranch", target)

    def stmt_Return(self, stmt: ir.Return) -> None:
        if not self.frames and self.ml.options.checks:     # wgc run --check: allocations not completed
            from . import emulated_checks

            emulated_checks.before_return(self.fl)
        if not self.frames:
            if stmt.value is not None and self.fl.entry_result is not None:   # a pixel shader's result
                self.fl.store(self.fl.entry_result, self.fl.value(stmt.value))
                self.b.emit("OpReturn")
            elif stmt.value is None:
                self.b.emit("OpReturn")
            else:
                self.b.emit("OpReturnValue", self.fl.value(stmt.value))
            return
        frame = self.frames[-1]
        if stmt.value is not None:
            if is_object(stmt.value.type):
                frame.result = self.fl.handle(stmt.value)
            else:
                assert frame.return_place is not None
                self.fl.store(frame.return_place, self.fl.value(stmt.value))
        if frame.exit is None:               # a return at the very end of the inlined body
            return
        self._leave_frame(frame)

    def _leave_frame(self, frame: _InlineFrame) -> None:
        """Branch out of the inlined body: to the wrapper's merge, or out of the innermost loop."""
        inner = self.breakables[frame.depth:]
        loops = [b for b in inner if b.continue_target is not None]
        if not loops:
            assert frame.exit is not None
            self.b.emit("OpBranch", frame.exit)
            return
        assert frame.flag is not None
        self.b.emit("OpStore", frame.flag.pointer, self.b.constant_bool(True))
        innermost = loops[-1]
        innermost.returns_inside = True
        for b in inner[inner.index(innermost) + 1:]:
            b.returns_inside = True          # switches inside that loop re-check after their merge
        self.b.emit("OpBranch", innermost.merge)

    def _propagate_return(self) -> None:
        """After a construct some inlined `return` left: leave further if the flag is set."""
        frame = self.frames[-1]
        assert frame.flag is not None
        leave, stay = self.b.new_id(), self.b.new_id()
        flag = self.b.emit("OpLoad", self.b.type_bool(), frame.flag.pointer)
        self.b.emit("OpSelectionMerge", stay, "None")
        self.b.emit("OpBranchConditional", flag, leave, stay)
        self.fl.new_block(leave)
        inner = self.breakables[frame.depth:]
        if inner and inner[-1].continue_target is None:
            inner[-1].returns_inside = True
            self.b.emit("OpBranch", inner[-1].merge)
        else:
            self._leave_frame(frame)
        self.fl.new_block(stay)

    def stmt_Discard(self, stmt: ir.Discard) -> None:
        assert self.fl.function.shader_kind == "pixel" or self.frames, \
            "sema rejects 'discard' in code a node reaches (WG0440)"
        stageio.discard(self.fl)

    # ------------------------------------------------------------ calls

    def call(self, expr: ir.Call) -> object:
        """A call: a SPIR-V function call, or the callee inlined (node objects, resources, RayQuery)."""
        function = expr.function
        if function.must_inline or takes_objects(function) or function in self.fl.ml.reads_loop_iteration \
                or any(self._mesh_output_reference(param, arg) for param, arg in zip(function.params, expr.args)):
            return self._inline(expr)
        fn = self.ml.function_id(function)
        self.ml.function_calls.setdefault(self.fl.spirv_function, set()).add(fn)
        args, copy_back = [], []
        for param, arg in zip(function.params, expr.args):
            if param.direction is ir.Direction.IN:
                args.append(self.fl.value(arg))
                continue
            temp, back = self._out_argument(param, arg)
            args.append(temp.pointer)
            copy_back.append(back)
        result = self.b.emit("OpFunctionCall", self.types.id(function.return_type), fn, *args)
        for back in copy_back:
            back()
        return result

    def _out_argument(self, param: ir.Variable, arg: ir.Expr,
                      param_type: t.Type | None = None) -> tuple[Place, Callable[[], None]]:
        """A temporary of the parameter's type (`param_type` when it differs from the declared one,
        for an unsized array) for an out/inout argument (copied in for inout), and the function that
        copies it back to the caller's l-value after the call. A derived struct passed as its base
        (`derived.baseMethod()`) gets the base's fields written back."""
        param_type = param_type or param.type
        temp = self.fl.local(param_type, param.name)
        target, target_type = self.fl.place(arg), arg.type
        base_cast = (target is None and isinstance(arg, ir.Convert)
                     and isinstance(arg.type, t.StructType) and isinstance(arg.operand.type, t.StructType))
        if base_cast:
            assert isinstance(arg, ir.Convert)
            target, target_type = self.fl.place(arg.operand), arg.operand.type
        if target is None:
            raise AssertionError("an out argument must be a variable or a location")
        if param.direction is ir.Direction.INOUT:
            self.fl.store(temp, self.fl.convert(self.fl.load(target), target_type, param_type))

        def copy_back() -> None:
            value = self.fl.convert(self.fl.load(temp), param_type, arg.type)
            if not base_cast:
                self.fl.store(target, self.fl.convert(value, arg.type, target_type))
                return
            assert isinstance(target, Place) and isinstance(arg.type, t.StructType)
            for i, f in enumerate(arg.type.all_fields()):
                part = self.b.emit("OpCompositeExtract", self.types.id(f.type), value, i)
                self.fl.store(self.fl.field_place(target, i), part)
        return temp, copy_back

    def _mesh_output_reference(self, param: ir.Variable, arg: ir.Expr) -> bool:
        """Whether an out/inout argument is (part of) the mesh outputs of the entry point, of the
        parameter's own type: the callee is inlined and writes them in place, since copying a whole
        output array back would overwrite the other threads' vertices."""
        if param.direction is ir.Direction.IN or arg.type != param.type:
            return False
        root = arg
        while isinstance(root, (ir.FieldAccess, ir.Index, ir.Swizzle)):
            root = root.base
        return isinstance(root, ir.VarRef) and root.variable in self.fl.mesh_outputs

    def _inline(self, expr: ir.Call) -> object:
        function = expr.function
        assert function.body is not None
        copy_back = []
        objects_back: list[tuple[ir.Variable, ir.Variable]] = []
        for param, arg in zip(function.params, expr.args):
            if is_object(param.type):
                if param.direction is ir.Direction.OUT:
                    self.fl.bindings[param] = NULL_HANDLE
                else:
                    self.fl.bindings[param] = self.fl.handle(arg)
                if param.direction is not ir.Direction.IN:
                    assert isinstance(arg, ir.VarRef), "sema passes node variables to out node-object parameters"
                    objects_back.append((param, arg.variable))
                continue
            if is_ray_query(param.type):       # the caller's query itself (DXC passes it by reference)
                place = self.fl.place(arg)
                if not isinstance(place, Place):
                    place = self.fl.local(param.type, param.name)
                    self.fl.store(place, self.fl.value(arg))
                self.fl.bindings[param] = place
                continue
            if self._mesh_output_reference(param, arg):   # the group's output itself (DXC: by reference)
                self.fl.bindings[param] = self.fl.place(arg)
                self.fl.mesh_outputs.add(param)
                continue
            param_type = param.type
            if isinstance(param_type, t.ArrayType) and param_type.length is None:
                param_type = arg.type                   # `float a[]`: the argument's array type
            if param.direction is ir.Direction.IN:
                self.fl.bindings[param] = temp = self.fl.local(param_type, param.name)
                self.fl.store(temp, self.fl.value(arg))
                continue
            self.fl.bindings[param], back = self._out_argument(param, arg, param_type)
            copy_back.append(back)
        returns_value = function.return_type is not t.VOID and not is_object(function.return_type)
        return_place = self.fl.local(function.return_type) if returns_value else None
        needs_exit = _returns_early(function.body)
        frame = _InlineFrame(function, return_place, None, None, len(self.breakables))
        if needs_exit:
            header, body, continue_target, merge = (self.b.new_id() for _ in range(4))
            if _returns_in_loop(function.body):
                frame.flag = self.fl.local(t.BOOL)
                self.b.emit("OpStore", frame.flag.pointer, self.b.constant_bool(False))
            self.b.emit("OpBranch", header)
            self.fl.new_block(header)
            self.b.emit("OpLoopMerge", merge, continue_target, "None")
            self.b.emit("OpBranch", body)
            self.fl.new_block(body)
            frame.exit = merge
            frame.depth = len(self.breakables)
            self.frames.append(frame)
            self.block(function.body)
            self.frames.pop()
            self.fl.branch(merge)
            self.fl.new_block(continue_target)
            self.b.emit("OpBranch", header)
            self.fl.new_block(merge)
        else:
            self.frames.append(frame)
            self.block(function.body)
            self.frames.pop()
        for back in copy_back:
            back()
        for param, variable in objects_back:
            self.fl.bindings[variable] = self.fl.bindings[param]
        if frame.result is not None:
            return frame.result
        if return_place is not None:
            return self.fl.load(return_place)
        return None


# ---------------------------------------------------------------- helpers


def _selection_control(attributes: tuple[ir.Attribute, ...]) -> str:
    keys = {a.key for a in attributes}
    if "flatten" in keys:
        return "Flatten"
    if "branch" in keys:
        return "DontFlatten"
    return "None"


def _loop_control(attributes: tuple[ir.Attribute, ...]) -> str:
    keys = {a.key for a in attributes}
    if "unroll" in keys:
        return "Unroll"
    if "loop" in keys:
        return "DontUnroll"
    return "None"


def _switch_literal(value: int, width: int) -> object:
    if width == 64:
        bits = value & 0xFFFFFFFFFFFFFFFF
        return (bits & 0xFFFFFFFF, bits >> 32)
    return value


def _returns_early(body: ir.Block) -> bool:
    """Whether a body has a `return` anywhere but as its last top-level statement."""
    def walk(stmt: ir.Stmt, top_last: bool) -> bool:
        if isinstance(stmt, ir.Return):
            return not top_last
        return any(walk(s, False) for s in _children(stmt))
    stmts = body.stmts
    return any(walk(s, i == len(stmts) - 1) for i, s in enumerate(stmts))


def _returns_in_loop(body: ir.Block) -> bool:
    def walk(stmt: ir.Stmt, in_loop: bool) -> bool:
        if isinstance(stmt, ir.Return):
            return in_loop
        inside = in_loop or isinstance(stmt, ir.Loop)
        return any(walk(s, inside) for s in _children(stmt))
    return walk(body, False)


def _children(stmt: ir.Stmt) -> list[ir.Stmt]:
    if isinstance(stmt, ir.Block):
        return list(stmt.stmts)
    if isinstance(stmt, ir.If):
        return [stmt.then, *([stmt.else_] if stmt.else_ is not None else [])]
    if isinstance(stmt, ir.Loop):
        return [*stmt.init, stmt.body]
    if isinstance(stmt, ir.Switch):
        return [case.body for case in stmt.cases]
    return []
