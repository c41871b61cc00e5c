"""Semantic analysis, the `[WaveSize]` attribute of every function (node shaders and any other).

Input: the checked `ir.Module` (attribute arguments folded to constants).
Output: diagnostics for `[WaveSize(min)]`, `[WaveSize(min, max)]` and `[WaveSize(min, max,
preferred)]` (the range forms need SM 6.8, which both profiles wgc knows have), in DXC's order of
checks (DxilWaveSize::Validate), at most one error per attribute:
- WG0355: no argument or more than 3; a size that is not a power of two in [4, 128] (0 included:
  DXC stores every unwritten size as 0 and rejects explicit zeros); min > max; a preferred size
  outside [min, max];
- WG0356 (DefaultError, dxc's group `attribute-statement`): min == max, a degenerate range;
- WG0357 (warning, dxc's group `attribute-type`): a negative or non-integer number where an
  unsigned integer is meant; its value (negative, or truncated toward zero) is then checked.
Arguments that are not constants were reported when they were folded (WG0311) and are not
checked again. Repeated `[WaveSize]` attributes are `attributes.py`'s; each one is checked here.

Invariants: pure; never raises.
"""

from __future__ import annotations

import math

from wgc import codes, ir
from wgc.diagnostics import Diagnostic

MIN_WAVE_SIZE, MAX_WAVE_SIZE = 4, 128


def check_wave_sizes(module: ir.Module) -> list[Diagnostic]:
    diagnostics: list[Diagnostic] = []
    for function in module.functions:
        for attribute in function.attributes:
            if attribute.key == "wavesize":
                diagnostics.extend(_check(attribute))
    return diagnostics


def _valid(size: int) -> bool:
    return MIN_WAVE_SIZE <= size <= MAX_WAVE_SIZE and size & (size - 1) == 0


def _check(attribute: ir.Attribute) -> list[Diagnostic]:
    count = len(attribute.args)
    if not 1 <= count <= 3:
        return [codes.INVALID_WAVE_SIZE(attribute.span, f"[{attribute.name}] takes 1 to 3 arguments (minimum, "
                                        f"maximum, preferred wave size), {count} given")]
    diagnostics: list[Diagnostic] = []
    sizes: list[int] = []
    for arg in attribute.args:
        value = arg.value
        if value is None or isinstance(value, str):
            return diagnostics          # not a constant: reported where it was folded
        number = int(value) if isinstance(value, bool) else value
        if isinstance(number, float):
            whole = math.trunc(number) if math.isfinite(number) else 0
            if whole != number or whole < 0:
                diagnostics.append(codes.WAVE_SIZE_NOT_UNSIGNED(
                    arg.span, f"[{attribute.name}] argument {number:g} is not an unsigned integer; "
                    f"{whole} is used"))
            number = whole
        elif not isinstance(number, int):
            return diagnostics
        elif number < 0:
            diagnostics.append(codes.WAVE_SIZE_NOT_UNSIGNED(
                arg.span, f"[{attribute.name}] argument {number} is not an unsigned integer"))
        sizes.append(number)
    spans = [arg.span for arg in attribute.args]
    minimum, maximum, preferred = (sizes + [None, None])[:3]

    def invalid(index: int) -> None:
        diagnostics.append(codes.INVALID_WAVE_SIZE(
            spans[index], f"[{attribute.name}] sizes must be powers of two between {MIN_WAVE_SIZE} and "
            f"{MAX_WAVE_SIZE}, not {sizes[index]}"))

    if not _valid(minimum):  # type: ignore[arg-type]
        invalid(0)
    elif maximum is None:
        pass
    elif not _valid(maximum):
        invalid(1)
    elif maximum == minimum:
        diagnostics.append(codes.WAVE_SIZE_EMPTY_RANGE(
            attribute.span, f"[{attribute.name}] range has equal minimum and maximum ({minimum}); "
            f"write [{attribute.name}({minimum})] for one wave size"))
    elif maximum < minimum:  # type: ignore[operator]
        diagnostics.append(codes.INVALID_WAVE_SIZE(
            attribute.span, f"[{attribute.name}] minimum {minimum} must be less than the maximum {maximum}"))
    elif preferred is not None and not _valid(preferred):
        invalid(2)
    elif preferred is not None and not minimum <= preferred <= maximum:  # type: ignore[operator]
        diagnostics.append(codes.INVALID_WAVE_SIZE(
            spans[2], f"[{attribute.name}] preferred size {preferred} must be between the minimum {minimum} "
            f"and the maximum {maximum}"))
    return diagnostics
