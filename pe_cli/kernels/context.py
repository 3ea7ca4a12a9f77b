"""What the executor tells a kernel beyond its inputs and its op's attributes: a ``KernelContext``.

A kernel that needs it names a third parameter ``ctx`` (``def kernel(ins, attrs, ctx)``); the executor
finds that once, when it binds the op's step (``takes_context``), and then hands each call a context of
its own. A kernel that needs nothing keeps ``kernel(ins, attrs)``, and ``attrs`` is always the op's own
attributes. A wrapper around kernels (a layout, the CUDA runtime's device binding, a host fallback)
takes ``(ins, attrs, *ctx)``, passes ``*ctx`` on, and says ``takes_context`` as the kernel it wraps."""

import functools
import inspect


class KernelContext:
    """One call's facts from the executor:

    - ``rng``: the numpy Generator of an op that draws (``needs_rng``), seeded as ``plan.rng_seed`` says;
    - ``lod``: the inputs' LoD for an op that reads it (``needs_lod``): slot -> offsets per level (a list
      of them, one per variable, for a duplicable slot), or None;
    - ``outputs``: the output slots the op has (trait ``optional_outputs``), or None: all of them;
    - ``output_counts``: slot -> how many variables a duplicable output has (trait ``output_counts``);
    - ``block``: the ``BlockRunner`` of the block a control-flow op runs (executor/sub_block.py);
    - ``inplace``: the kernel may write its output over its in-place input (the enable_inplace pass);
    - ``update_in_place``: an update may write its outputs over the inputs they update;
    - ``blocked``: the slots holding blocked (nChw16c) values (kernels/cpu/blocked.py);
    - ``input_names``: input slot -> the op's variable names (print names what it prints,
      read_from_array the array it cannot read), or None: not said;
    - ``op_state``: the dict the op keeps from run to run (``Operator.run_state``: print's count of
      prints, per op as Fluid's op object keeps it), or None;
    - ``zero_dim``: a reduction's result with no dim left is 0-D, not [1] (``Operator.zero_dim``);
    - ``paddle2``: the op computes Paddle 2.x's meaning where it differs from Fluid 1.8's (``Operator.paddle2``);
    - ``row_sparse``: the output slots whose variables are declared SELECTED_ROWS (trait ``row_sparse_outputs``),
      or None: not said.

    A kernel hands back a LoD only it knows (computed from values) with ``set_lod(slot, lod)`` (or
    ``set_lod_map``), and a duplicable output's LoD per variable with ``set_lods(slot, lods)``: the
    executor reads them after the call (``out_lod``, ``out_lods``)."""

    __slots__ = (
        "rng",
        "lod",
        "outputs",
        "output_counts",
        "block",
        "inplace",
        "update_in_place",
        "blocked",
        "input_names",
        "op_state",
        "zero_dim",
        "paddle2",
        "row_sparse",
        "out_lod",
        "out_lods",
    )

    def __init__(
        self,
        rng=None,
        lod=None,
        outputs=None,
        output_counts=None,
        block=None,
        inplace=False,
        update_in_place=False,
        blocked=frozenset(),
        input_names=None,
        op_state=None,
        zero_dim=False,
        paddle2=False,
        row_sparse=None,
    ):
        self.rng = rng
        self.lod = {} if lod is None else lod
        self.outputs = outputs
        self.output_counts = output_counts
        self.block = block
        self.inplace = inplace
        self.update_in_place = update_in_place
        self.blocked = blocked
        self.input_names = input_names
        self.op_state = op_state
        self.zero_dim = zero_dim
        self.paddle2 = paddle2
        self.row_sparse = row_sparse
        self.out_lod = None
        self.out_lods = None

    def for_call(self, lod=None, rng=None, inplace=False, update_in_place=False):
        """A context for one call of the kernel: this one's fixed facts (outputs, counts, block, blocked
        slots, input names, the op's state, zero_dim, paddle2, row_sparse), the call's own LoD, Generator (None: this
        one's) and permissions, no output LoD yet."""
        rng = self.rng if rng is None else rng
        return KernelContext(
            rng,
            lod,
            self.outputs,
            self.output_counts,
            self.block,
            inplace,
            update_in_place,
            self.blocked,
            self.input_names,
            self.op_state,
            self.zero_dim,
            self.paddle2,
            self.row_sparse,
        )

    def replace(self, lod):
        """A copy told another LoD (a kernel running a part of its work with the LoD another input gives)."""
        return self.for_call(lod, None, self.inplace, self.update_in_place)

    def wanted(self, default):
        """The output slots the op has, or ``default`` where the executor did not say (a direct call)."""
        return default if self.outputs is None else self.outputs

    def count(self, slot, default=None):
        """How many variables the duplicable output ``slot`` has, or ``default`` where not said."""
        counts = self.output_counts
        return default if counts is None else counts.get(slot, default)

    def set_lod(self, slot, lod):
        """Output ``slot`` gets ``lod`` (offsets per level; None or empty: none), whatever the op's rule says."""
        if self.out_lod is None:
            self.out_lod = {}
        self.out_lod[slot] = lod

    def set_lod_map(self, lods):
        """``set_lod`` for each slot -> LoD of ``lods``."""
        if self.out_lod is None:
            self.out_lod = {}
        self.out_lod.update(lods)

    def set_lods(self, slot, lods):
        """The duplicable output ``slot``'s variables get ``lods``, one each (None: none)."""
        if self.out_lods is None:
            self.out_lods = {}
        self.out_lods[slot] = lods


NO_CONTEXT = KernelContext()
"""The default of a kernel that can run untold (a direct call, a kernel calling another): every output
wanted, nothing written in place. Read only: a kernel that hands back a LoD takes a context of its own."""


@functools.lru_cache(maxsize=None)
def takes_context(kernel):
    """Whether ``kernel`` takes a ``KernelContext``: a wrapper says so (attribute ``takes_context``),
    a function by a parameter named ``ctx``."""
    said = getattr(kernel, "takes_context", None)
    if said is not None:
        return bool(said)
    try:
        return "ctx" in inspect.signature(kernel, follow_wrapped=False).parameters
    except (TypeError, ValueError):
        return False


def call(kernel, ins, attrs, ctx):
    """``kernel`` run on ``ins`` and ``attrs``, told ``ctx`` where it takes a context (a kernel running
    another for its op)."""
    return kernel(ins, attrs, ctx) if takes_context(kernel) else kernel(ins, attrs)


def wraps(kernel, wrapper):
    """``wrapper`` (taking ``(ins, attrs, *ctx)``) as a kernel standing for ``kernel``: its name, whether it
    takes a context, and the kernel it wraps (``__wrapped__``)."""
    wrapper.__name__ = getattr(kernel, "__name__", "kernel")
    wrapper.takes_context = takes_context(kernel)
    wrapper.__wrapped__ = kernel  # (inspect.unwrap finds the kernel it runs)
    return wrapper
