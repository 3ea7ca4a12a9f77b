"""How an op type is defined: ``register(type, kernel_module=..., inputs, outputs, attrs, infer,
grad, ...)``, the slots, attributes and checks it is written with, the traits and LoD rules it may
declare, and the common inference rules (``same_as``, ``grads_like``). Each op family module of
``pe_cli/ops/`` imports this module, never registry.py: the registry loads the families, so
neither imports the other back.

An op type is registered once, in its family's module, with its input and output slots, its
attributes (defaults and checks), a shape/dtype inference rule run when the op is built, a gradient
maker used by autodiff and the forward values that gradient reads (``grad_reads``). Its kernels
live in ``pe_cli/kernels/<device>/<kernel_module>.py`` (the family named at registration) as
functions named after the op type (or the ``kernel`` named at registration, for an op served by
another op's kernel) or named in that module's ``HOST_OPS`` (a CPU kernel run on the host:
``kernels.kernel_of``), found (and imported) only when first run on that device. An op type with a
structured kernel (``register(..., structured=Structured(meta=..., cpu=...))``, pe_cli/shapes/structured.py)
binds it by object instead: its meta rule (pe_cli/shapes/<family>.py) and the out-kernel of each device that
has one; a device without one runs the kernel ``kernel_module`` names.

Slots are written as strings: ``"X"`` one variable, ``"X*"`` a list (duplicable), ``"X?"`` optional,
``"X*?"`` a list that may be absent (Fluid's duplicable and dispensable).
A gradient slot is the forward slot's name + ``GRAD_SUFFIX`` (``"Out@GRAD"``).
"""

from ..base.dims import fmt_shape  # noqa: F401  (re-exported: op modules format shapes with it)
from .paddle2_attrs import PADDLE2_ATTRS
from .attributes import (
    BACKEND_ATTRS as BACKEND_ATTRS,
    LAYOUT_NAME as LAYOUT_NAME,
    Attr,
    as_long as as_long,
    backend_attrs as backend_attrs,
    dtype_code as dtype_code,
    dtype_or_none as dtype_or_none,
    in_range as in_range,
    int_list as int_list,
    is_int as is_int,
    positive as positive,
)  # (re-exported: op families declare attributes with them)
from .op_definition import OpDef, Slot
from ..shapes.structured import Structured as Structured  # (re-exported: op families register with it)
from .op_traits import LOD_RULES, TRAITS

# The suffix that names a variable's (or a slot's) gradient: X -> X@GRAD.
GRAD_SUFFIX = "@GRAD"


def grad_var_name(name):
    """The name of ``name``'s gradient."""
    return name + GRAD_SUFFIX


# type -> OpDef, filled as the family modules are imported (registry.py imports them all)
REGISTRY = {}


def register(
    type,
    *,
    kernel_module,
    inputs,
    outputs,
    attrs=None,
    infer=None,
    grad=None,
    grad_reads=(),
    kernel=None,
    needs_rng=False,
    doc="",
    traits=(),
    lod="keep",
    needs_lod=False,
    inplace=(),
    channels_last=(),
    blocked=None,
    no_need_buffer=(),
    attr_tensors=None,
    last_axis=(),
    first_axis=(),
    reads_outputs=(),
    run_dtypes=None,
    run_lod=None,
    run_infer=False,
    structured=None,
):
    """Registers an op type. Called at import time of the module that defines the op.

    ``kernel_module``: its kernels are in ``pe_cli/kernels/<device>/<kernel_module>.py``; ``kernel``:
    the function there that serves it when that is another op's kernel (``reshape2`` -> "reshape").
    ``grad_reads``: the forward slots whose values its grad ops read (``("Out",)`` for relu), for
    passes that decide how long a forward value must live. ``inplace``: (output slot, input slot),
    when its kernels may write that output into the input's buffer (told ``ctx.inplace``, where the
    enable_inplace pass marked the op and nothing else holds the input: executor/plan.py). ``channels_last``: the
    image slots (inputs and outputs) that ``data_format`` NHWC/NDHWC transposes around the kernel,
    which is written channels first (pe_cli/kernels/layout.py); ``last_axis``: the slots transposed to
    have the dim ``attrs['axis']`` names last around a kernel written for the last axis (``first_axis``:
    first, around one written for the first). ``blocked``: ``blocked(op) -> ((slot, ...),
    ...)``, the groups of image slots whose values the op's kernels in kernels/<device>/blocked.py
    take and give in oneDNN's blocked layout, each group all blocked or none (the
    onednn_blocked_layout pass, pe_cli/compiler/passes/blocked_layout.py). ``no_need_buffer``: the
    input slots whose values its kernels never read, only their shapes (Fluid's
    NoNeedBufferVarsInferer: ``core.infer_no_need_buffer_slots``). ``attr_tensors``: {input slot:
    attribute}, Fluid 1.8's attributes given by tensors at run time (concat's AxisTensor -> axis): the
    kernels get the attribute from the tensor when the slot is given (pe_cli/kernels/tensor_attrs.py).
    ``reads_outputs``: output slots the op updates in place, as Fluid's write_to_array its array: the
    kernel gets the variable's value before the op (when it has one) under the slot's name in its inputs,
    and a block op's inputs list it (layers/control_flow.block_io). ``run_dtypes`` {slot: dtypes} and
    ``run_lod`` {slot: None or the slot that gives lengths instead}: what Fluid checks when the op runs, not
    when it is built (a declared dtype or lod_level is no fact yet): the values' dtypes and LoD, checked
    before the kernel (pe_cli/kernels/run_checks.py; ``run_lod`` needs ``needs_lod``). ``run_infer``: the
    infer rule runs again on the values' shapes before the kernel, ``ctx.is_runtime`` true, for the checks
    Fluid's InferShape makes only under ``ctx->IsRuntime()``. ``structured``: its structured kernel (above)."""
    given = dict(locals())  # register's arguments by name (the first statement: nothing else is local yet)
    _check_registration(**given)
    REGISTRY[type] = opdef = _new_opdef(**given)
    return opdef


def _new_opdef(
    type,
    kernel_module,
    inputs,
    outputs,
    attrs,
    infer,
    grad,
    grad_reads,
    kernel,
    needs_rng,
    doc,
    traits,
    lod,
    needs_lod,
    inplace,
    channels_last,
    blocked,
    no_need_buffer,
    attr_tensors,
    last_axis,
    first_axis,
    reads_outputs,
    run_dtypes,
    run_lod,
    run_infer,
    structured,
):
    """The OpDef of register's arguments: its slots parsed, its attributes as Attr with Paddle 2.6's further
    ones, every list a tuple and every mapping a dict."""
    attrs = {k: v if isinstance(v, Attr) else Attr(v) for k, v in (attrs or {}).items()}
    attrs = dict(PADDLE2_ATTRS.get(type, {}), **attrs)  # Paddle 2.6's further attributes (paddle2_attrs.py)
    return OpDef(
        type,
        tuple(Slot.parse(s) for s in inputs),
        tuple(Slot.parse(s) for s in outputs),
        attrs,
        infer,
        grad,
        kernel_module,
        kernel or type,
        needs_rng,
        doc,
        frozenset(traits),
        tuple(grad_reads),
        lod,
        needs_lod,
        tuple(inplace),
        tuple(channels_last),
        blocked,
        tuple(no_need_buffer),
        dict(attr_tensors or {}),
        tuple(last_axis),
        tuple(first_axis),
        tuple(reads_outputs),
        dict(run_dtypes or {}),
        dict(run_lod or {}),
        run_infer,
        structured,
    )


def _check_registration(
    type,
    inputs,
    outputs,
    attrs,
    traits,
    grad_reads,
    lod,
    inplace,
    no_need_buffer,
    channels_last,
    last_axis,
    first_axis,
    attr_tensors,
    run_dtypes,
    run_lod,
    needs_lod,
    structured,
    **_others,
):
    """register's arguments: an op type not registered yet, naming its own slots and attributes, known
    traits and LoD rules (``_others``: the arguments it does not check)."""
    if type in REGISTRY:
        raise RuntimeError(f"op '{type}' is registered twice")
    unknown = set(traits) - set(TRAITS)
    if unknown:
        raise RuntimeError(f"op '{type}': unknown traits {sorted(unknown)}; known: {sorted(TRAITS)}")
    slots = {Slot.parse(s).name for s in list(inputs) + list(outputs)}
    if set(grad_reads) - slots:
        raise RuntimeError(f"op '{type}': grad_reads {sorted(set(grad_reads) - slots)} are not its slots")
    if not callable(lod) and lod not in LOD_RULES:
        raise RuntimeError(f"op '{type}': lod={lod!r} is not one of {LOD_RULES} or a function")
    if set(inplace) - slots:
        raise RuntimeError(f"op '{type}': inplace {sorted(set(inplace) - slots)} are not its slots")
    if set(no_need_buffer) - slots:
        raise RuntimeError(f"op '{type}': no_need_buffer {sorted(set(no_need_buffer) - slots)} are not its slots")
    if set(channels_last) - slots or set(last_axis) - slots or set(first_axis) - slots:
        raise RuntimeError(
            f"op '{type}': channels_last / last_axis / first_axis "
            f"{sorted(set(channels_last + last_axis + first_axis) - slots)} are not its slots"
        )
    if set(attr_tensors or {}) - slots or set((attr_tensors or {}).values()) - set(attrs or {}):
        raise RuntimeError(f"op '{type}': attr_tensors {attr_tensors} name slots or attributes it lacks")
    if set(run_dtypes or {}) - slots or set(run_lod or {}) - slots or (run_lod and not needs_lod):
        raise RuntimeError(f"op '{type}': run_dtypes / run_lod name slots it lacks (run_lod needs needs_lod)")
    if structured is not None and not (callable(structured.meta) and callable(structured.cpu or structured.cuda)):
        raise RuntimeError(f"op '{type}': structured= binds a meta rule and an out-kernel, by object")


# old op type -> (its op type now, {old slot: new slot}, old slots dropped): names pe's programs had
# before it built Fluid's ops; an op appended (or loaded) under an old name is built as the new one
RENAMED = {}


def renamed(old, new, slots=None, dropped=()):
    """``old`` is now ``new`` (registered by the same family), its slots renamed by ``slots``."""
    if old in REGISTRY or new not in REGISTRY:
        raise RuntimeError(f"renamed('{old}', '{new}'): '{old}' must be unregistered and '{new}' registered")
    RENAMED[old] = (new, dict(slots or {}), tuple(dropped))


def defined(type):
    """The definition of an op type its family registered already: a family that builds on another's
    ops imports that family first (fused_optimizer imports optimizer). Lookups at build time go
    through the registry, which has loaded every family."""
    return REGISTRY[type]


# -- common inference rules ---------------------------------------------------------------------


def same_as(in_slot="X", out_slot="Out"):
    """Output has the input's shape and dtype (activations, scale, dropout, ...)."""

    def infer(ctx):
        ctx.set_output(out_slot, ctx.shape(in_slot), ctx.dtype(in_slot), lod_level=ctx.input_var(in_slot).lod_level)

    return infer


def one_shape_blocked(op):
    """``blocked`` of an op elementwise on values of one shape (sum, a residual add + relu and their
    gradients): all its slots as one group where every value it reads and writes has the same
    static shape; the layout of such values does not change what it computes, element by element."""
    slots = [slot for slot, names in list(op.inputs.items()) + list(op.outputs.items()) if names]
    names = [n for slot in slots for n in (op.inputs.get(slot) or op.outputs.get(slot))]
    shapes = {tuple(op.block.vars[n].shape) if n in op.block.vars else None for n in names}
    return (tuple(slots),) if len(shapes) == 1 and None not in shapes else ()


def grads_like(pairs):
    """For grad ops: each output ``X@GRAD`` has the shape of forward input ``X``.
    ``pairs`` maps output slot -> the input slot whose variable it mirrors."""

    def infer(ctx):
        for out_slot, in_slot in pairs.items():
            for i in range(ctx.num_outputs(out_slot)):
                var = ctx.input_var(in_slot, i)
                ctx.set_output(out_slot, var.shape, var.dtype, i=i)

    return infer


def grad_of(op_type, reads, ins_from_outputs=(), out_grads=("Out",), in_grads=("X",)):
    """A grad maker appending ``op_type`` (Fluid's ``<op>_grad``, its attributes the forward op's) that
    reads forward inputs ``reads``, forward outputs ``ins_from_outputs`` and the gradients of
    ``out_grads``, writing the gradients of ``in_grads``."""

    def grad(g):
        ins = {s: g.input(s) for s in reads}
        ins.update({s: g.output(s) for s in ins_from_outputs})
        ins.update({grad_var_name(s): g.out_grad(s) for s in out_grads})
        g.op(op_type, ins, {grad_var_name(s): g.in_grad(s) for s in in_grads}, g.attrs)

    return grad


def lods_like(pairs):
    """A LoD rule (``register(lod=...)``): each output slot of ``pairs`` has the LoD of its input slot, as
    Fluid's ShareLoD(X, X@GRAD) (a grad op's) or ShareLoD(Input, Hidden) (gru's, whose other outputs get none);
    ``pairs``: output -> input slot."""

    def lod(in_lods, attrs):
        return {out_slot: in_lods.get(in_slot) for out_slot, in_slot in pairs.items()}

    return lod


# -- gradients of gradients (Fluid's *_grad_grad ops), written with the op family's own ops ------


def grad_of_bilinear_grad(forward, x_slot, y_slot, out_slot, grad_types):
    """The grad maker of a grad op of ``forward``, an op bilinear in ``x_slot`` and ``y_slot`` (mul,
    conv2d): its grad ops compute ``x_slot@GRAD`` = grad_types[x_slot](X, Y, dOut) (X read for its shape
    only), linear in Y and dOut, and ``y_slot@GRAD`` alike. Given ddX (the gradient reaching X@GRAD):
    dOut gets forward(ddX, Y) and Y gets grad_types[y_slot](ddX, Y, dOut); ddY likewise (Fluid's
    conv2d_grad_grad and mul_grad_grad compute these sums)."""
    d_out = grad_var_name(out_slot)

    def grad(g):
        for slot, other in ((x_slot, y_slot), (y_slot, x_slot)):
            if not g.fwd.outputs.get(grad_var_name(slot)) or not g.has_out_grad(grad_var_name(slot)):
                continue
            pair = {slot: g.out_grad(grad_var_name(slot)), other: g.input(other)}
            if g.needs(d_out):
                g.op(forward, pair, {out_slot: g.in_grad(d_out)}, g.attrs)
            if g.needs(other):
                g.op(
                    grad_types[other],
                    dict(pair, **{d_out: g.input(d_out)}),
                    {grad_var_name(other): g.in_grad(other)},
                    g.attrs,
                )

    return grad


def grad_of_linear_grad(forward, x_slot, out_slot, extra_inputs=(), extra_outputs=()):
    """The grad maker of the grad op of ``forward``, an op linear in ``x_slot`` (reshape, slice,
    reduce_mean): X@GRAD is linear in dOut alone, so dOut's gradient is ``forward`` of ddX (the gradient
    reaching X@GRAD). ``extra_inputs``: forward input slots the grad op carries too (a shape tensor);
    ``extra_outputs``: forward outputs written to scratch variables (reshape2's XShape)."""
    d_out = grad_var_name(out_slot)

    def grad(g):
        if not g.needs(d_out) or not g.has_out_grad(grad_var_name(x_slot)):
            return
        ins = {x_slot: g.out_grad(grad_var_name(x_slot))}
        ins.update({s: g.input(s) for s in extra_inputs if g.fwd.inputs.get(s)})
        outs = {out_slot: g.in_grad(d_out)}
        outs.update({s: [g.tmp(g.input(d_out)[0], s)] for s in extra_outputs})
        g.op(forward, ins, outs, g.attrs)

    return grad
