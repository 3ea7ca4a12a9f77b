"""Which release a program follows where Fluid 1.8 and Paddle 2.6 differ: Fluid 1.8's, or Paddle 2.6's
in a program made after ``paddle.enable_static()``, which Paddle 2.x static programs call and no
Fluid 1.8 program can. Each Program records it when it is made (``Program._follows_paddle2``; a
clone keeps it). What differs: a Variable's operators (``a / b``, ``a + 1.5``:
layers/operator_promotion.py), a fed name the program lacks (dropped with a warning, not refused:
executor/feeding.py), 0-D parameters (allowed) and an op's outputs
stopping gradients when none of its inputs takes one (``pass_stop_gradient``). ``fluid.layers``' and ``paddle.*``'s functions
build the same ops in both, with one difference: a reduction to one value is 0-D when a ``paddle.*``
function of such a program builds it (``paddle.mean``), and [1] when ``fluid.layers`` does
(``fluid.layers.mean`` after ``paddle.enable_static()``), as on every Paddle that runs programs mixing
the two (2.0-2.4): ``mark_zero_dim``, told by the face the call entered (``paddle_face``, ``fluid_face``)."""

import contextlib
import contextvars
import functools

from ..ops import registry
from .source import see_through

_paddle2 = False
_zero_dim = contextvars.ContextVar("pe_zero_dim_reductions", default=None)
_face = contextvars.ContextVar("pe_reduction_face", default=None)
_meanings = contextvars.ContextVar("pe_paddle2_meanings", default=None)


def new_programs_follow_paddle2():
    return _paddle2


def follow_paddle2(flag=True, programs=()):
    """Every Program made from now on, and ``programs`` (the default ones, made at import), follow
    Paddle 2.6 (``flag=False``: Fluid 1.8 again). Returns the previous setting."""
    global _paddle2
    old, _paddle2 = _paddle2, bool(flag)
    for program in programs:
        program._follows_paddle2 = _paddle2
    return old


def pass_stop_gradient(block, attrs, inputs, outputs, role):
    """Paddle 2.6's rule for an op appended to one of its programs: when no input Variable of the op
    takes a gradient (each has ``stop_gradient``, or it has none), its outputs stop gradients too
    (``relu(x)`` of a stop_gradient ``x`` is stop_gradient; ``fc``'s output, reading a parameter, is
    not). Fluid 1.8's programs, control-flow ops (those holding a ``sub_block``, as Paddle 2.6 leaves
    out while, conditional_block, recurrent and pylayer), and the ops pe's backward and optimizers append keep
    the flag each output was made with."""
    program = block.program
    role = program._current_role if role is None else role
    if not program._follows_paddle2 or "sub_block" in (attrs or {}) or role & ~256:  # 256: OpRole.Loss
        return
    if any(getattr(var, "stop_gradient", None) is False for var in _variables(block, inputs)):
        return
    for var in _variables(block, outputs):
        var.stop_gradient = True


def _variables(block, slots):
    for value in (slots or {}).values():
        for item in value if isinstance(value, (list, tuple)) else [value]:
            if isinstance(item, str):
                item = block._find_var_recursive(item)
            if item is not None and hasattr(item, "stop_gradient"):
                yield item


@contextlib.contextmanager
def paddle2_meanings(flag=True):
    """Ops appended inside whose meaning changed (trait ``paddle2_semantics``) compute Paddle 2.x's
    (``flag``; False: Fluid 1.8's) whatever their program: an op run again as the op it stands for
    (fluid.dygraph's eager ops), a test building an op as a Paddle 2.x program would."""
    token = _meanings.set(bool(flag))
    try:
        yield
    finally:
        _meanings.reset(token)


def mark_paddle2(op):
    """An op whose meaning changed between Fluid 1.8 and Paddle 2.x (trait ``paddle2_semantics``: pool2d's
    and pool3d's inclusive average with ceil_mode) computes Paddle 2.x's in a program that follows Paddle
    2.6: ``op.paddle2``, which its shape inference and kernels read (``ctx.paddle2``; docs/COMPAT.md, "Every
    attribute"), unless the program's op_version_map (``Program._op_versions``, a model Paddle 2.x saved)
    gives the op type a version older than the one its meaning changed at (registry.MEANING_CHANGED:
    leaky_relu, hard_shrink); inside ``paddle2_meanings``, as that says. Its grad ops compute as it does
    (training/backward.GradContext.op)."""
    if op.paddle2 or op.type not in registry.with_trait("paddle2_semantics"):
        return
    told = _meanings.get()
    if told is not None:
        op.paddle2 = told
        return
    program = op.block.program
    if not program._follows_paddle2:
        return
    versions = getattr(program, "_op_versions", None)  # a loaded program's op_version_map
    since = registry.MEANING_CHANGED.get(op.type)
    if versions and since is not None and versions.get(op.type, 0) < since:
        return  # saved by a Paddle 2.x before the op's meaning changed: it computes the meaning it had then
    op.paddle2 = True


@contextlib.contextmanager
def reductions_0d(flag=True):
    """Ops appended inside that reduce to one value give 0-D (``flag``; False: [1]) whatever their
    program and caller: an op run again as the op it stands for (fluid.dygraph's eager ops), a test
    building an op as a ``paddle.*`` call of a Paddle 2.x program would."""
    token = _zero_dim.set(bool(flag))
    try:
        yield
    finally:
        _zero_dim.reset(token)


def _face_of(paddle2):
    def decorate(fn):
        @see_through
        @functools.wraps(fn)
        def entered(*args, **kwargs):
            if _face.get() is not None:
                return fn(*args, **kwargs)
            token = _face.set(paddle2)
            try:
                return fn(*args, **kwargs)
            finally:
                _face.reset(token)

        return entered

    return decorate


paddle_face = _face_of(True)
paddle_face.__doc__ = """Decorates a ``paddle.*`` function whose ops may reduce to one value (``paddle.mean``, a
loss with ``reduction='mean'``): in a Paddle 2.x program they give 0-D, as Paddle 2.6's, unless the call
came through a face that already said (an outer ``fluid_face``, whose [1] stands)."""
fluid_face = _face_of(False)
fluid_face.__doc__ = """Decorates a ``fluid.*`` function whose ops may reduce to one value (``fluid.layers.mean``):
they give Fluid's [1] in every program, unless the call came through a face that already said
(``paddle.mean`` building its op with ``fluid.layers.reduce_mean`` gives 0-D)."""


@contextlib.contextmanager
def user_code():
    """pe calls the user's code inside (a function the user handed a face): the faces its calls enter
    say again, as if the user had called them first."""
    token = _face.set(None)
    try:
        yield
    finally:
        _face.reset(token)


def mark_zero_dim(op):
    """An op appended now that reduces to one value (trait ``scalar_0d_in_paddle2``) gives 0-D ([])
    rather than Fluid's [1] (``op.zero_dim``, which its shape inference and kernels read) in a Paddle
    2.x program when the call that built it entered a ``paddle_face`` first (``paddle.mean``) or none (a
    ``block.append_op`` of the user's: Paddle 2.6's mean and l1_norm ops give 0-D), and [1] when it entered a
    ``fluid_face`` first (``fluid.layers.mean``); inside ``reductions_0d``, as that says. An op whose result is
    one value (trait ``result_0d_in_paddle2``: ``x[0, 1]``, numel) gives 0-D in a Paddle 2.x program unless a
    ``fluid_face`` built it. Neither does in a program that built a fluid.layers reduction before (a program
    mixing the two, as 2.0-2.4's, whose ``loss[0]`` was [1]: ``Program._mixes_fluid_layers``). A program
    loaded from its desc declares its output first: 0-D where that variable is."""
    if op.zero_dim:
        return
    result = op.type in registry.with_trait("result_0d_in_paddle2")
    if not result and op.type not in registry.with_trait("scalar_0d_in_paddle2"):
        return
    names = op.outputs.get("Out") or next(iter(op.outputs.values()), None)  # (accuracy's: Accuracy)
    out = op.block._find_var_recursive(names[0]) if names else None
    told = _zero_dim.get()
    if told is not None:
        zero_dim = told
    elif out is not None and out.shape is not None:
        zero_dim = tuple(out.shape) == ()
    else:
        program, face = op.block.program, _face.get()  # (the user's ``x[0]`` enters none)
        if face is False and program._follows_paddle2:
            program._mixes_fluid_layers = True
        unfaced = face is None and not program._mixes_fluid_layers
        zero_dim = bool(program._follows_paddle2 and (face or unfaced))
    op.zero_dim = zero_dim
