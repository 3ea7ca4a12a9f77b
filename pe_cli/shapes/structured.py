"""Structured kernels (issue 95): an op type's work split in two, as ATen's structured kernels split it.

- ``meta(attrs, ins, facts) -> Meta``: from the op's attributes, its inputs' shapes and dtypes (``ins``:
  slot -> anything with ``shape`` and ``dtype``: an array, whose values it never reads, or a ``Spec``)
  and the op's fixed facts (``facts.paddle2``: the op computes Paddle 2.x's meaning; a kernel context
  carries them), the shapes and dtypes of its outputs, the loop variant that computes them and the
  scratch buffers that variant needs. Device-neutral: it lives in pe_cli/shapes/<family>.py, decided
  once per shape signature where the executor runs the op (kernels/structured.py).
- an out-kernel per device, ``out_kernel(ins, outs, attrs, meta) -> None``: computes into the output
  (and ``outs["@scratch"]``) buffers it is handed, with the variant ``meta`` names. It checks no
  shape, allocates no output and chooses no loop (a ``fresh`` variant, a numpy form, hands over the
  array numpy made instead: ``Meta.fresh``, kernels/structured.fresh_output). An out-kernel that says
  ``takes_context`` (a drawing op's: the call's Generator, which no Meta may keep) is also handed the call's
  context, ``out_kernel(ins, outs, attrs, meta, ctx)``.

An op type registers them together, by object, beside its definition: ``register(...,
structured=Structured(meta=..., cpu=...))`` (ops/define.py)."""

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple


class Spec(NamedTuple):
    """A value's shape and dtype, as a meta rule sees an input it has no array of (a planned step's)."""

    shape: tuple
    dtype: object

    @property
    def ndim(self):
        return len(self.shape)


_NONE = MappingProxyType({})


class Meta(NamedTuple):
    """What an op's meta rule decided for one shape signature (a tuple: made on every call of an op's kernel
    by name, it costs a microsecond less than a dataclass).

    ``outputs``: slot -> (shape, dtype) of each output the out-kernel fills (a list output, a duplicable slot's:
    a list of them, one per variable, and the out-kernel is handed a list of buffers); ``variant``: the loop variant
    that fills them (named by the family: "loop", "array", ...); ``loop``: the compiled loop that variant
    runs, where it runs one, and ``loop_inputs``: the input slots it takes, in order, before its output
    (a planned step launches it with the same arguments); ``inplace``: output slot -> the input slot whose
    buffer it may be, where the executor lets the op write over that input (same shape and dtype);
    ``scratch``: name -> (shape, dtype) of the buffers the variant needs beyond its outputs; ``args``: what
    else the variant takes that the rule decided (a loop's constants, between its inputs and its output, as
    a planned step launches them; a path's window geometry: pool2d's); ``fresh``: the variant is a numpy
    form that makes its result as a new array (no ``out=`` to write it through): nothing is allocated for
    its outputs, and the out-kernel puts the array numpy made in ``outs`` (a copy where it is not a new
    C-contiguous array of the output's shape and dtype): no extra pass over the values; ``aliases``: output
    slot -> the input slot whose value that output is, as it is (of its shape and dtype: a gradient passed
    through, elementwise_add's X@GRAD): nothing is allocated or computed for it, the out-kernel leaves it;
    ``views``: output slot -> the input slot whose values that output is in the output's shape (a reshape's
    Out): the input's memory seen in that shape where it is C-contiguous (numpy's reshape of it: a view, no
    copy), else a C-contiguous copy of it reshaped; nothing is allocated for it, the out-kernel leaves it."""

    outputs: dict
    variant: str
    loop: str = ""
    loop_inputs: tuple = ()
    inplace: Mapping = _NONE
    scratch: Mapping = _NONE
    args: tuple = ()
    fresh: bool = False
    aliases: Mapping = _NONE
    views: Mapping = _NONE


@dataclass(frozen=True)
class Structured:
    """An op type's structured kernel: its ``meta`` rule and its out-kernel on each device kind that has
    one (None: that device runs the op's kernel as before). ``python``: its out-kernel touches Python, the
    scope or files rather than only its buffers (print writes standard output, assert raises, save and load
    write and read files, feed and fetch the run's holders): a planned step runs it between segments, as a
    Python launch, never inside one (executor/step_plan.py)."""

    meta: object
    cpu: object = None
    cuda: object = None
    python: bool = False

    def out_kernel(self, device_kind):
        """The out-kernel of ``device_kind`` ('cpu' or 'cuda'), or None."""
        return getattr(self, device_kind, None)
