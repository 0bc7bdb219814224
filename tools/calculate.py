"""Arithmetic for the model, evaluated over a whitelist of syntax nodes, never with eval().

Numbers, + - * / // % **, unary signs and parentheses; nothing else parses. Every intermediate
result is bounded, so no expression can exhaust memory or time (`9**9**9`, `10**10**10`).
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from tools.context import ToolContext
from tools.errors import CalculationError, ToolError

MAX_CHARS = 200
MAX_EXPONENT = 100
MAX_ABS = 10**100  # every intermediate and final result
MAX_NODES = 100

BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}


class CalculateArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    expression: str = Field(
        description="Arithmetic only: numbers, + - * / // % **, parentheses. E.g. '(2+4+8) * 1250'."
    )


def calculate(args: CalculateArgs, ctx: ToolContext) -> str | ToolError:
    """Evaluate an arithmetic expression exactly: numbers, + - * / // % ** and parentheses, no names or functions. Use
    it for any arithmetic in an answer (totals, rates, capacity, retry delays) instead of computing in your head. Not
    for unit conversions or dates."""
    try:
        value = evaluate(args.expression)
    except CalculationError as exc:
        return ToolError(str(exc), "Send only numbers, + - * / // % **, and parentheses, e.g. '1840 * 2.7 / 60'.")
    return f"{' '.join(args.expression.split())} = {format_number(value)}"


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression; CalculationError for anything else or out of bounds."""
    if len(expression) > MAX_CHARS:
        raise CalculationError(f"The expression is {len(expression)} characters; the limit is {MAX_CHARS}.")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise CalculationError("The expression is not valid arithmetic.") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculationError(f"The expression has more than {MAX_NODES} parts; split it into steps.")
    try:
        return _value(tree.body)
    except ZeroDivisionError:
        raise CalculationError("Division by zero.") from None
    except (OverflowError, MemoryError, RecursionError):
        raise CalculationError("The result is too large.") from None


def format_number(value: int | float) -> str:
    """Integers exactly; floats to 12 significant digits (so 1840*2.7/60 reads 82.8)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value) if isinstance(value, int) else format(value, ".12g")


def _value(node: ast.AST) -> int | float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _bounded(float(node.value) if type(node.value) is float else int(node.value))  # type: ignore[arg-type]  # int or float, checked above
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return _bounded(UNARY[type(node.op)](_value(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _value(node.left), _value(node.right)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _bounded(BINARY[type(node.op)](left, right))
    raise CalculationError(f"'{_describe(node)}' is not allowed: only numbers and + - * / // % ** ( ).")


def _check_power(base: int | float, exponent: int | float) -> None:
    if abs(exponent) > MAX_EXPONENT:
        raise CalculationError(f"Exponents are limited to ±{MAX_EXPONENT}.")
    if base == 0 and exponent < 0:
        raise ZeroDivisionError
    if base < 0 and not float(exponent).is_integer():
        raise CalculationError("A negative number to a fractional power is not a real number.")
    if base != 0 and exponent * math.log10(abs(base)) > 100:  # the result would exceed 10**100
        raise CalculationError("The result is too large.")


def _bounded(value: int | float) -> int | float:
    if isinstance(value, complex) or (isinstance(value, float) and not math.isfinite(value)):
        raise CalculationError("The result is not a finite real number.")
    if abs(value) > MAX_ABS:
        raise CalculationError("The result is too large.")
    return value


def _describe(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        text = type(node).__name__
    return text if len(text) <= 40 else text[:37] + "..."
