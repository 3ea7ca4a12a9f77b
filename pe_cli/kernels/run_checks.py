"""The checks of an op's inputs that Fluid 1.8 makes when the op runs, not when it is built: its compile-time
InferShape skips them (a declared dtype or lod_level is no fact yet: a program may declare an index float64
and feed int64, or declare a sequence input without its lod_level and feed a LoDTensor; and its checks
under ``ctx->IsRuntime()`` compare dims only when the op runs). An op registered with
``run_dtypes={slot: dtypes, or attrs -> dtypes / None}``, ``run_lod={slot: None or a lengths slot}`` or
``run_infer=True`` (ops/define.py) runs its kernel, on every device, after its values' dtypes and LoD are
checked here and (run_infer) its shape inference rule has run again on its values' shapes with
``ctx.is_runtime`` true, as Fluid's run-time InferShape; each refusal one line naming the slot and what it
takes (an EnforceNotMet, as Fluid's core raises)."""

from ..base.dtypes import convert_dtype
from ..base.errors import EnforceNotMet
from ..shapes.reduction import scalar_shape
from .context import NO_CONTEXT, takes_context


_NAMES = {}  # a value's dtype -> its name (numpy's dtype.name takes microseconds)


def _dtype_name(value):
    dtype = getattr(value, "dtype", None)
    name = _NAMES.get(dtype)
    if name is None and dtype is not None:
        name = _NAMES[dtype] = getattr(dtype, "name", str(dtype))
    return name


def _check_dtypes(opdef, ins, attrs, ctx):
    for slot, allowed in opdef.run_dtypes.items():
        allowed = allowed(attrs, ctx) if callable(allowed) else allowed  # (per attributes: soft_label's)
        value = ins.get(slot) if allowed else None
        for v in value if isinstance(value, list) else [value]:
            name = _dtype_name(v)
            if name is not None and name not in allowed:
                raise EnforceNotMet(f"{opdef.type}: {slot} holds {name} values; it takes {' or '.join(allowed)}")


def _check_lod(opdef, ins, lods):
    for slot, lengths in opdef.run_lod.items():
        if ins.get(slot) is None or (lengths and ins.get(lengths) is not None):
            continue
        lod = lods.get(slot)
        if not lod or (isinstance(lod, list) and not all(lod)):
            raise EnforceNotMet(
                f"{opdef.type}: {slot} has no LoD; it takes sequences (feed a LoDTensor"
                + (f", or give {lengths}" if lengths else "")
                + ")"
            )


_DTYPES = {}  # a value's dtype -> pe's name of it


class _Var:
    __slots__ = ("shape", "lod_level", "_value")

    def __init__(self, value, lod):
        self.shape = tuple(getattr(value, "shape", ()))
        self.lod_level = len(lod or ())
        self._value = value

    @property
    def dtype(self):
        dtype = getattr(self._value, "dtype", None)
        if dtype not in _DTYPES:
            name = _dtype_name(self._value)
            _DTYPES[dtype] = convert_dtype(name) if name is not None else None
        return _DTYPES[dtype]


class RunInferContext:
    """What an op's shape inference rule sees when the op runs (``is_runtime``): its values' shapes and
    dtypes, its attributes; outputs are not set (the kernel makes them) and ``fail`` raises EnforceNotMet."""

    is_runtime = True

    def __init__(self, opdef, ins, attrs, lods, ctx=NO_CONTEXT):
        self.opdef, self.attrs, self._ins = opdef, attrs, ins
        self._lods, self._zero_dim, self.paddle2 = lods, ctx.zero_dim, ctx.paddle2

    def _values(self, slot):
        value = self._ins.get(slot)
        return [] if value is None else value if isinstance(value, list) else [value]

    def has_input(self, slot):
        return bool(self._values(slot))

    def has_output(self, slot):
        return True

    def input_var(self, slot, i=0):
        values = self._values(slot)
        if i >= len(values):
            raise EnforceNotMet(f"{self.opdef.type}: input {slot} #{i} is missing")
        return _Var(values[i], self._lods.get(slot) if i == 0 else None)

    def shape(self, slot, i=0):
        return self.input_var(slot, i).shape

    def dtype(self, slot, i=0):
        return self.input_var(slot, i).dtype

    def shapes(self, slot):
        return [self.input_var(slot, i).shape for i in range(len(self._values(slot)))]

    def num_inputs(self, slot):
        return len(self._values(slot))

    def set_output(self, *args, **kwargs):
        pass

    def scalar_shape(self):
        return list(scalar_shape(self._zero_dim))

    def fail(self, message):
        raise EnforceNotMet(f"{self.opdef.type}: {message}")


def dtypes_check(opdef):
    """``check(ins, attrs, ctx)``: ``opdef``'s run_dtypes checks alone (a structured op's step makes them
    once per signature of its inputs' shapes and dtypes, with its meta: kernels/structured.step_kernel)."""

    def check(ins, attrs, ctx):
        _check_dtypes(opdef, ins, attrs, ctx)

    return check


def step_checks(opdef):
    """``check(ins, attrs, ctx)``: ``opdef``'s run_dtypes and run_lod checks (a structured op that reads LoD makes
    them once per signature of its inputs and their LoD, with its meta: kernels/structured.step_kernel)."""

    def check(ins, attrs, ctx):
        _check_dtypes(opdef, ins, attrs, ctx)
        _check_lod(opdef, ins, ctx.lod)

    return check


def checked(kernel, opdef):
    """``kernel`` with ``opdef``'s run-time checks (run_dtypes, run_lod, run_infer) before it."""

    passes = takes_context(kernel)

    def run(ins, attrs, *ctx):
        _check_dtypes(opdef, ins, attrs, ctx[0] if ctx else NO_CONTEXT)
        lods = ctx[0].lod if ctx else {}
        if opdef.run_lod:
            _check_lod(opdef, ins, lods)
        if opdef.run_infer:
            opdef.infer(RunInferContext(opdef, ins, attrs, lods, ctx[0] if ctx else NO_CONTEXT))
        return kernel(ins, attrs, *ctx) if passes else kernel(ins, attrs)

    run.__name__, run.__wrapped__ = getattr(kernel, "__name__", "kernel"), kernel
    # an op whose inputs' LoD is checked here gets a context, whatever its kernel takes
    run.takes_context = passes or (opdef.needs_lod and bool(opdef.run_lod or opdef.run_infer))
    return run
