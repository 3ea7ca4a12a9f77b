"""The row of the activation table (pe_cli/base/activations.py): what an activation is and how to
compute it (``Activation``), its attributes (``Param``), and the helpers every family of rows calls:
``_c`` (a constant in an array's dtype) and ``_erf`` (bound by the devices). A leaf, as the table."""

import numbers
import types
from dataclasses import dataclass

FLOATS = ("float16", "float32", "float64")


def real_number(v):
    """check: a number (inf and NaN too: Fluid's float attributes check nothing more)."""
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


@dataclass(frozen=True)
class Param:
    """An attribute: its default and check, as pe_cli.ops.define.Attr takes them."""

    name: str
    default: object
    check: object = None
    expect: str = ""
    choices: tuple = ()
    keyword: str = ""  # the layer's keyword where Fluid names it otherwise (softshrink)

    @property
    def layer_keyword(self):
        return self.keyword or self.name


def _number(name, default):
    return Param(name, default, real_number, "a number")


@dataclass(frozen=True)
class Activation:
    name: str
    doc: str
    forward: object  # forward(x, *params) on arrays -> Out
    derivative: object = None  # derivative(a, dout, *params) -> X@GRAD; None: no gradient
    reads: str = "X"  # what the gradient reads besides Out@GRAD: "X", "Out" or "" (nothing)
    params: tuple = ()  # Param per attribute, in the order the functions take them
    dtypes: tuple = FLOATS  # input dtypes accepted; None: any
    scalar_forward: object = None  # forward on one scalar (device code); None: ``forward`` is
    scalar_derivative: object = None
    cpu_loop: str = ""  # a numba loop in kernels/cpu/_activation_row_loops.py for float32/64
    grad_loop: bool = False  # the CPU's gradient of float32/64: one numba pass compiled from ``derivative``
    forward_loop: bool = False  # the CPU's forward of float32/64: one numba pass compiled from ``forward``
    float32_loop: bool = False  # the CPU's float32 forward: kernels/cpu/_activation_loops.py's loop of the row's name
    # and in a Paddle 2.x program its loop <name>_paddle2 (Paddle 2.6's float32 tanh is not Fluid 1.8's: Eigen 3.4's)
    float32_loop_paddle2: bool = False

    @property
    def device_forward(self):
        return self.scalar_forward or self.forward

    @property
    def device_derivative(self):
        return self.scalar_derivative or self.derivative

    def defaults(self):
        return {p.name: p.default for p in self.params}


def bind(fn, **helpers):
    """``fn`` with the helpers it calls by name replaced by a device's own (compiled) versions."""
    code = getattr(fn, "__code__", None)  # numpy ufuncs call no helper
    used = {name: h for name, h in helpers.items() if code is not None and name in code.co_names}
    if not used:
        return fn
    return types.FunctionType(fn.__code__, {**fn.__globals__, **used}, fn.__name__, fn.__defaults__, fn.__closure__)


def c(a, value):
    """A constant in a's dtype, so float32 arrays stay float32 whatever numpy's casting rules."""
    return a.dtype.type(value)


def _erf(x):
    """erf of an array: numpy has none and this table imports no numba; the CPU kernels bind theirs."""
    raise NotImplementedError("_erf is bound by the device kernels (pe_cli/kernels/cpu/activation.py)")


def device_constant(a, value):
    """``_c`` in device code: the constant as numba types it (the scalar forms' arithmetic is numba's)."""
    return value
