"""Fluid's control-flow layers: comparisons, tensor arrays, ``While``, ``cond``, ``Switch`` and
``IfElse``-free branching, built as ops that own a sub-block (pe_cli/ops/control_flow.py).
``StaticRNN`` is in static_rnn.py, the tensor arrays in tensor_array.py (offered here). docs/CONTROL_FLOW.md
says what works."""

import contextlib
import functools

from ..base.dtypes import VarType, is_float
from ..base.errors import PeError
from ..framework.source import current_source, source_guard
from ..framework.variable import Variable
from ..ops import registry
from .fluid_module import resolver
from .branch_select import select_input, select_output  # noqa: F401 -- Fluid's layers.control_flow has them
from .checks import check_type, check_variable_and_dtype, fluid_checks, optional
from .helper import LayerHelper
from .utils import flatten, is_sequence, pack_sequence_as

# Fluid's layers.control_flow has these (pe's face maps that module here)
from .lod_rank import (
    array_to_lod_tensor as array_to_lod_tensor,
    lod_rank_table as lod_rank_table,
    lod_tensor_to_array as lod_tensor_to_array,
    max_sequence_len as max_sequence_len,
    reorder_lod_tensor_by_rank as reorder_lod_tensor_by_rank,
    shrink_memory as shrink_memory,
)
from .lod_split import merge_lod_tensor, split_lod_tensor  # noqa: F401 -- Fluid's layers.control_flow has them
from .creation import assign, fill_constant
from .manipulation import cast
from .logic import (
    equal,
    greater_equal,
    greater_than,
    less_equal,
    less_than,
    logical_and,  # noqa: F401 -- Fluid's
    logical_not,
    logical_or,
    logical_xor,
    not_equal,
)  # layers.control_flow has them
from .tensor_array import array_length, array_read, array_write, create_array, tensor_array_to_tensor  # noqa: F401 (__all__)

__all__ = [
    "less_than",
    "less_equal",
    "greater_than",
    "greater_equal",
    "equal",
    "not_equal",
    "logical_not",
    "logical_and",
    "logical_or",
    "logical_xor",
    "is_empty",
    "increment",
    "create_array",
    "array_write",
    "array_read",
    "array_length",
    "tensor_array_to_tensor",
    "While",
    "cond",
    "case",
    "switch_case",
    "Switch",
]
# Fluid's layers.control_flow also holds ConditionalBlock, outside its __all__


@fluid_checks("is_empty", x=("float32", "float64", "int32", "int64"), cond=optional(("bool",)))
def is_empty(x, cond=None):
    """A bool [1] variable: whether ``x`` holds no element (``cond=`` writes an existing one)."""
    helper = LayerHelper("is_empty")
    if cond is None:
        cond = helper.create_variable_for_type_inference("bool", stop_gradient=True)
    helper.append_op("is_empty", {"X": [x]}, {"Out": [cond]})
    return cond


@fluid_checks("increment", x=("float32", "float64", "int32", "int64"))
def increment(x, value=1.0, in_place=True):
    """x + value for a one-value x; in place by default, as Fluid's (a loop counter)."""
    if not isinstance(x, Variable):
        raise TypeError(f"increment: x must be a Variable, got {type(x).__name__}")
    helper = LayerHelper("increment")
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("increment", {"X": [x]}, {"Out": [out]}, {"step": float(value)})
    return out


# -- blocks ---------------------------------------------------------------------------------------------


def block_io(block):
    """(what ``block`` and its nested blocks read from enclosing blocks before writing it, what they
    write there): the owning op's input and output lists, as Fluid lists them. An output an op updates
    in place (write_to_array's array) counts as read where it has a value before the block (an
    enclosing block's op wrote it): the block's run starts from that value."""
    reads, writes = [], []
    for op in block.ops:
        updated = [n for s in registry.get(op.type).reads_outputs for n in op.output(s) if _has_value_before(block, n)]
        for name in op.input_arg_names + updated:
            if name not in block.vars and name not in writes and name not in reads:
                reads.append(name)
        for name in op.output_arg_names:
            if name not in block.vars and name not in writes:
                writes.append(name)
    return reads, writes


def _has_value_before(block, name):
    """Whether ``name`` holds a value before ``block`` runs: an op of an enclosing block writes it, or
    it is persistable or fed."""
    var = block._find_var_recursive(name)
    if var is not None and (var.persistable or var.is_data):
        return True
    outer = block.parent_block
    while outer is not None:
        if any(name in op.output_arg_names for op in outer.ops):
            return True
        outer = outer.parent_block
    return False


def _pass_gradients(block, writes):
    """A float variable of an enclosing block that the block writes from something differentiable
    carries a gradient out (a loop's state starting as a constant is trained through the loop)."""
    for op in block.ops:
        if any(not block.var(n).stop_gradient for n in op.input_arg_names):
            for name in op.output_arg_names:
                var = block.var(name)
                if name in writes and var.stop_gradient and is_float(var.dtype):
                    var.stop_gradient = False


@contextlib.contextmanager
def sub_block(program):
    """A new block, current inside the ``with``; yields it."""
    block = program._create_block()
    try:
        yield block
    finally:
        program._rollback()


class While:
    """``While(cond)``: ``with loop.block():`` builds the body, run while ``cond`` (one bool, which
    the body must update) holds; ``max_iterations`` stops a loop that never ends, naming its line."""

    def __init__(self, cond, is_test=False, name=None, *, max_iterations=100000):
        if not isinstance(cond, Variable) or cond.dtype != "bool" or list(cond.shape or [1]) != [1]:
            raise TypeError(f"While: the condition must be one bool (a [1] variable from less_than(...)), got {cond!r}")
        self.cond, self.is_test, self.max_iterations = cond, is_test, max_iterations
        self.helper = LayerHelper("while", name=name)
        self.source = current_source()

    @contextlib.contextmanager
    def block(self):
        program = self.helper.main_program
        with sub_block(program) as body:
            yield
        reads, writes = block_io(body)
        _pass_gradients(body, writes)
        if self.cond.name not in writes:
            raise PeError(
                f"While at {self.source}: the body never writes the condition '{self.cond.name}'; "
                f"update it inside (less_than(i, n, cond=cond))"
            )
        scopes = self.helper.create_variable(
            name=f"{self.helper.name}.step_scopes", stop_gradient=True, type=VarType.STEP_SCOPES
        )
        with source_guard(self.source):
            self.helper.append_op(
                "while",
                {"X": reads, "Condition": [self.cond]},
                {"Out": writes, "StepScopes": [scopes]},
                {"sub_block": body.idx, "is_test": self.is_test, "max_iterations": self.max_iterations},
            )


@contextlib.contextmanager
def conditional(helper, conds, scalar=True, before_append=None):
    """Appends a conditional_block running what the ``with`` body appends when every one of
    ``conds`` holds (one bool each; ``scalar=False``: is not empty). ``before_append()`` runs in the
    enclosing block once the body is built (IfElse sets its conditions and empty outputs there)."""
    with sub_block(helper.main_program) as body:
        yield
    if before_append is not None:
        before_append()
    reads, writes = block_io(body)
    _pass_gradients(body, writes)
    scope = helper.create_variable(name=f"{helper.name}.scope_{body.idx}", stop_gradient=True, type=VarType.STEP_SCOPES)
    helper.append_op(
        "conditional_block",
        {"Cond": conds, "Input": reads},
        {"Out": writes, "Scope": [scope]},
        {"sub_block": body.idx, "is_scalar_condition": scalar},
    )


class ConditionalBlock:
    """Fluid's ``ConditionalBlock(inputs, is_scalar_condition=False)``: ``with cb.block():`` builds a
    block that runs once when every one of ``inputs`` holds (``is_scalar_condition``: their one bool
    value each; else: they are not empty). What it reads and writes outside becomes the op's
    Input and Out, as Fluid finds them."""

    def __init__(self, inputs, is_scalar_condition=False, name=None):
        for each in inputs:
            if not isinstance(each, Variable):
                raise AssertionError(f"ConditionalBlock: each input must be a Variable, got {type(each).__name__}")
        self.inputs = list(inputs)
        self.is_scalar_condition = is_scalar_condition
        self.helper = LayerHelper("conditional_block", name=name)

    def block(self):
        return conditional(self.helper, self.inputs, self.is_scalar_condition)


def _branch_fn(fn, what):
    if fn is not None and not callable(fn):
        raise TypeError(f"The {what} in cond must be callable, but received {type(fn).__name__}")
    return fn


def _incompatible(true_out, false_out):
    """Fluid's ValueError for branches returning different structures, else None."""
    why = None
    if (true_out is None) != (false_out is None):
        why = (
            "true_fn returns None while false_fn returns non-None"
            if true_out is None
            else "true_fn returns non-None while false_fn returns None"
        )
    elif len(flatten(true_out)) != len(flatten(false_out)):  # (Paddle 2.6's words after the colon)
        why = (
            f"true fn returns {len(flatten(true_out))} vars, but false fn returns {len(flatten(false_out))} "
            f"vars, which is not equals"
        )
    elif is_sequence(true_out) != is_sequence(false_out) or (is_sequence(true_out) and len(true_out) != len(false_out)):
        why = "The two structures don't have the same number of elements"
    if why is not None:
        raise ValueError(f"Incompatible return values of true_fn and false_fn in cond: {why}")


def cond(pred, true_fn=None, false_fn=None, name=None):
    """Fluid 1.8's ``cond``: the result of ``true_fn()`` when ``pred`` (one bool) holds, else of
    ``false_fn()``; both branches return variables of one structure (or both nothing). Built as
    Fluid builds it: each branch a conditional_block copying its results into variables of its own,
    each pair picked by select_input on ``cast(pred, int32)``. Bad arguments raise Fluid's
    TypeError; branches of different structures its ValueError."""
    check_variable_and_dtype(pred, "pred", ("bool",), "fluid.layers.cond")
    check_type(name, "name", (str, type(None)), "fluid.layers.cond")
    true_fn, false_fn = _branch_fn(true_fn, "true_fn"), _branch_fn(false_fn, "false_fn")
    helper = LayerHelper("cond", name=name)
    results, copies = {True: None, False: None}, {True: None, False: None}

    def branch(fn, key, conds):
        with conditional(helper, conds):
            results[key] = fn()
            if results[key] is not None:  # Paddle 2.x's branches may return nested lists, tuples, dicts
                copies[key] = [_copy_to_parent(helper, r) for r in flatten(results[key])]

    if true_fn is not None:
        branch(true_fn, True, [pred])
    if false_fn is not None:
        branch(false_fn, False, [logical_not(pred)])
    _incompatible(results[True], results[False])
    if copies[True] is None:
        return None
    if len(copies[True]) != len(copies[False]):
        _incompatible(results[True], results[False])
    mask = cast(pred, "int32")
    merged = [_select(helper, f, t, mask) for f, t in zip(copies[False], copies[True])]
    return pack_sequence_as(results[True], merged) if is_sequence(results[True]) else merged[0]


def _copy_to_parent(helper, var):
    """Fluid's copy_var_to_parent_block: a new variable of the enclosing block assigned ``var``."""
    program = helper.main_program
    parent = program.current_block().parent_block
    copy = parent.create_var(dtype=var.dtype, shape=var.shape, type=var.type)
    assign(var, copy)
    return copy


def _select(helper, false_var, true_var, mask):
    """select_input([false_var, true_var], mask); the dims where the branches differ are unknown
    (Paddle 2.6's cond; Fluid 1.8.5 declares the false branch's)."""
    out = select_input([false_var, true_var], mask)
    if false_var.shape is not None and true_var.shape is not None:
        out.shape = _merged_shape(false_var.shape, true_var.shape)
    return out


def case(pred_fn_pairs, default=None, name=None):
    """Fluid 1.8's ``case``: the result of the fn of the first (pred, fn) pair whose pred holds, else
    of ``default`` (None: the last pair's fn), as nested ``cond``s."""
    pairs = list(pred_fn_pairs)
    if not pairs or any(not isinstance(p, (list, tuple)) or len(p) != 2 or not callable(p[1]) for p in pairs):
        raise TypeError("case: pred_fn_pairs must be a non-empty list of (bool variable, callable) pairs")
    if default is None:
        pairs, default = pairs[:-1], pairs[-1][1]
    if not pairs:
        return default()
    (pred, fn), rest = pairs[0], pairs[1:]
    return cond(pred, fn, (lambda: case(rest, default)) if rest else default, name=name)


def _switch_pairs(branch_fns):
    """(index, fn) pairs of switch_case's ``branch_fns``, checked as Fluid checks them."""
    check_type(branch_fns, "branch_fns", (list, tuple, dict), "switch_case")
    pairs = list(branch_fns.items()) if isinstance(branch_fns, dict) else list(branch_fns)
    if all(callable(fn) for fn in pairs):
        pairs = list(enumerate(pairs))
    keys = []
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"switch_case: each element of branch_fns must be an (int, callable) tuple, got {pair!r}")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError(f"switch_case: the key of branch_fns must be int, got {type(key).__name__}")
        if key in keys:
            raise ValueError(f"The key in 'branch_fns' must be unique, but '{key}' appears more than once.")
        keys.append(key)
        if not callable(fn):
            raise TypeError(f"switch_case: the function for key {key} of branch_fns must be callable")
    return pairs


def switch_case(branch_index, branch_fns, default=None, name=None):
    """Fluid 1.8's ``switch_case``: the result of the fn whose index equals ``branch_index`` (an
    int32/int64/uint8 [1] Variable) in ``branch_fns`` (a dict index -> fn, a list of fns, or of
    (index, fn) tuples), else of ``default`` (None: the fn of the largest index)."""
    check_variable_and_dtype(branch_index, "branch_index", ("uint8", "int32", "int64"), "switch_case")
    if branch_index.dtype != "int64":
        branch_index = cast(branch_index, "int64")
    pairs = _switch_pairs(branch_fns)
    if default is None:
        ordered = sorted(pairs, key=lambda p: p[0])
        default, pairs = ordered[-1][1], ordered[:-1]
    elif not callable(default):
        raise TypeError("The default in Op(case) must be callable.")
    false_fn = default
    for index, fn in pairs:  # as Fluid nests them: the last pair's cond is the outermost
        pred = equal(branch_index, fill_constant([1], "int64", index))
        false_fn = functools.partial(cond, pred, fn, false_fn, name)
    return false_fn()


def _merged_shape(a, b):
    """The shape of a value that is ``a``'s or ``b``'s: -1 where they differ (Paddle 2.x's cond)."""
    return tuple(x if x == y else -1 for x, y in zip(a, b)) if len(a) == len(b) else None


class Switch:
    """``with Switch() as switch: with switch.case(c1): ... with switch.default(): ...``: runs the
    first case whose condition holds, else the default. Built as Fluid 1.8.5 builds it: the first
    case's block runs on its condition, a later one's on ``logical_and(none before held, its
    condition)``, the default's on "none held" (Fluid's piecewise_decay is built with it)."""

    def __init__(self, name=None):
        self.helper = LayerHelper("switch", name=name)
        self.inside_scope = False
        self.pre_not_conditions = []  # after each case: "no case so far held"

    def __enter__(self):
        self.inside_scope = True
        return self

    def __exit__(self, *exc):
        self.inside_scope = False
        return False

    def case(self, condition):
        if not self.inside_scope:
            raise ValueError("case should be called inside with")
        check_variable_and_dtype(condition, "condition", ("bool",), "the member function case of fluid.layers.Switch")
        if not self.pre_not_conditions:
            conds = [condition]
            self.pre_not_conditions.append(logical_not(condition))
        else:
            before = self.pre_not_conditions[-1]
            self.pre_not_conditions.append(logical_and(before, logical_not(condition)))
            conds = [logical_and(before, condition)]
        return conditional(self.helper, conds)

    def default(self):
        if not self.pre_not_conditions:
            raise ValueError("there should be at least one condition")
        return conditional(self.helper, [self.pre_not_conditions[-1]])


# Fluid's layers.control_flow also holds these, which pe defines in modules of their own.
__getattr__ = resolver(__name__, ["DynamicRNN", "IfElse", "StaticRNN", "while_loop", "Print"])
