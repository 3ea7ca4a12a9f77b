"""One helper for every op: forward against a numpy reference, gradient against float64 central
finite differences, on any device kind. Op tests are data (``OpCase`` lists in ``tests/ops/``),
so the same cases run on the CPU, on CUDA (the simulator in CI) and in the coverage check."""

from dataclasses import dataclass, field

import numpy as np

from pe_cli.base.dtypes import VarType
from pe_cli.executor import Executor, Scope
from pe_cli.framework import Program, program_release
from pe_cli.framework.lod_tensor import LoDTensor
from pe_cli.base.places import CPUPlace, CUDAPlace
from pe_cli.base.selected_rows import SelectedRows

try:  # numpy 2
    from numpy.lib.array_utils import byte_bounds
except ImportError:  # numpy 1
    byte_bounds = np.byte_bounds


@dataclass
class OpCase:
    op: str
    inputs: dict  # slot -> array, or list of arrays for a duplicable slot
    ref: object = None  # ref(inputs, attrs) -> {slot: array}; None: check(outs) below
    attrs: dict = field(default_factory=dict)
    grad: tuple = ()  # input slots whose gradient is checked
    outputs: tuple = None  # output slots to compute (default: every slot ref returns)
    loss_outputs: tuple = None  # outputs that feed the gradient check (default: float outputs)
    check: object = None  # check(outs, inputs) for ops without a reference (random ops)
    rtol: float = 1e-6
    atol: float = 1e-8
    grad_rtol: float = 1e-5
    grad_atol: float = 1e-7
    name: str = ""
    num_outputs: dict = None  # duplicable output slot -> how many variables (ref gives a list)
    # built as a paddle.* call of a Paddle 2.x program builds it: a reduction to one value is 0-D
    # (Operator.zero_dim, framework/program_release.reductions_0d)
    zero_dim: bool = False
    # built as a Paddle 2.x program builds it: it computes Paddle 2.x's meaning where that differs, and so
    # do its grad ops (Operator.paddle2, framework/program_release.paddle2_meanings)
    paddle2: bool = False

    @property
    def id(self):
        return self.name or self.op


def _feed_names(case):
    names = {}
    for slot, value in case.inputs.items():
        if isinstance(value, list):
            names[slot] = [f"{slot}_{i}" for i in range(len(value))]
        else:
            names[slot] = [f"{slot}_0"]
    return names


def _out_vars(case, slot):
    """An output slot's variables, named by suffix: [slot], or [slot_0, slot_1, ...] for a
    duplicable slot listed in ``num_outputs``."""
    n = (case.num_outputs or {}).get(slot)
    return [slot] if n is None else [f"{slot}_{i}" for i in range(n)]


def _feeds(case, names, inputs=None):
    inputs = case.inputs if inputs is None else inputs
    feed = {}
    for slot, value in inputs.items():
        values = value if isinstance(value, list) else [value]
        feed.update(zip(names[slot], values))
    return feed


def _declare_uninferred(case, block, outputs):
    """Outputs an op leaves without a shape (py_func has no shape inference: its user declares them)
    get the reference's shapes and dtypes, as a user would declare them."""
    missing = [(slot, n) for slot, names in outputs.items() for n in names if block.var(n).shape is None]
    if not missing or case.ref is None:
        return
    ref = case.ref(case.inputs, _attrs_with_defaults(case))
    for slot, n in missing:
        values = ref[slot] if isinstance(ref[slot], list) else [ref[slot]]
        value = np.asarray(values[outputs[slot].index(n)])
        block.var(n).shape, block.var(n).dtype = tuple(value.shape), value.dtype.name


def build_program(case, out_slots, with_loss):
    """A program with data variables for every input, the op, and optionally a scalar loss
    (sum of each float output times fixed random weights) with its backward ops."""
    from pe_cli.training.backward import append_backward

    program = Program()
    block = program.global_block()
    names = _feed_names(case)
    for slot, value in case.inputs.items():
        for name, array in zip(names[slot], value if isinstance(value, list) else [value]):
            lod_level = len(array.lod()) if isinstance(array, LoDTensor) else 0
            array = array if isinstance(array, SelectedRows) else np.asarray(array)
            block.create_var(
                name=name,
                shape=array.shape,
                dtype=array.dtype.name,
                is_data=True,
                stop_gradient=slot not in case.grad,
                lod_level=lod_level,
                type=VarType.SELECTED_ROWS if isinstance(array, SelectedRows) else None,
            )
    outputs = {slot: [f"out_{v}" for v in _out_vars(case, slot)] for slot in out_slots}
    for names_ in outputs.values():
        for n in names_:
            block.create_var(name=n)
    with program_release.reductions_0d(case.zero_dim), program_release.paddle2_meanings(case.paddle2):
        block.append_op(case.op, {s: n for s, n in names.items()}, outputs, dict(case.attrs))
    _declare_uninferred(case, block, outputs)
    if not with_loss:
        return program, names, None, {}
    terms, weights = [], {}
    rng = np.random.default_rng(7)
    for s, i, slot in [(s, i, v) for s in case.loss_outputs or out_slots for i, v in enumerate(_out_vars(case, s))]:
        var = block.var(f"out_{slot}")
        if var.dtype not in ("float32", "float64"):
            continue
        shape = var.shape
        if any(d < 0 for d in shape):  # dims known at run time only (sequence ops): the reference's
            ref = case.ref(case.inputs, _attrs_with_defaults(case))[s]
            shape = np.shape(ref[i] if slot != s else ref)
        w = rng.uniform(0.5, 1.5, size=shape).astype(var.dtype)
        weights[f"w_{slot}"] = w
        block.create_var(name=f"w_{slot}", shape=w.shape, dtype=w.dtype.name, is_data=True, stop_gradient=True)
        block.create_var(name=f"prod_{slot}")
        block.append_op("elementwise_mul", {"X": [f"out_{slot}"], "Y": [f"w_{slot}"]}, {"Out": [f"prod_{slot}"]})
        block.create_var(name=f"term_{slot}")
        block.append_op("reduce_sum", {"X": [f"prod_{slot}"]}, {"Out": [f"term_{slot}"]}, {"reduce_all": True})
        terms.append(f"term_{slot}")
    loss = block.create_var(name="loss")
    block.append_op("sum", {"X": terms}, {"Out": ["loss"]})
    append_backward(loss, parameter_list=[])
    return program, names, loss, weights


def place_for(device):
    return CPUPlace() if device == "cpu" else CUDAPlace(0)


def run_forward(case, device="cpu", return_numpy=True):
    """The case's outputs: fetched arrays (a row-sparse output densified), or with
    ``return_numpy=False`` what the executor holds (LoDTensor, SelectedRows)."""
    program, feed, fetch_list = case_program(case)
    exe = Executor(place_for(device))
    fetched = exe.run(program, feed=feed(), fetch_list=fetch_list, scope=Scope(), return_numpy=return_numpy)
    return {name[len("out_") :]: value for name, value in zip(fetch_list, fetched)}


def case_program(case, grads=False):
    """(program, feed, fetch list) of the case: its op, fetching its outputs; with ``grads``, the loss's
    program (build_program) fetching the gradients of ``case.grad`` too. ``feed()`` makes the feed
    anew (its arrays copies of the case's: a run that writes one in place leaves the next its inputs)."""
    out_slots = case.outputs or tuple(case.ref(case.inputs, _attrs_with_defaults(case)).keys())
    program, names, _, weights = build_program(case, out_slots, with_loss=grads)
    fetch_list = [f"out_{v}" for s in out_slots for v in _out_vars(case, s)]
    if grads:
        fetch_list += [f"{n}@GRAD" for slot in case.grad for n in names[slot]]

    def feed():
        return {name: _copied(value) for name, value in {**_feeds(case, names), **weights}.items()}

    return program, feed, fetch_list


def _copied(value):
    """A copy of a fed value, an array laid out as the original (its strides: a column of a matrix stays one)."""
    if isinstance(value, LoDTensor):
        return LoDTensor(np.array(value, copy=True), value.lod())
    if isinstance(value, SelectedRows):
        return value.with_arrays(*(np.array(a, copy=True) for a in value.numpy()))
    if not isinstance(value, np.ndarray):
        return value
    low, high = byte_bounds(value)
    copy = np.ndarray(value.shape, value.dtype, np.empty(high - low, np.uint8), value.ctypes.data - low, value.strides)
    copy[...] = value
    return copy


def _check_selected_rows(case, slot, got, want, rtol, atol):
    """A row-sparse output: the same height and rows (in order, duplicates kept) and close values."""
    assert isinstance(got, SelectedRows), f"{case.id}: {slot} is {type(got).__name__}, not SelectedRows"
    assert got.height == want.height, f"{case.id}: {slot} height {got.height} != reference {want.height}"
    np.testing.assert_array_equal(got.rows, want.rows, err_msg=f"{case.id}: {slot} rows differ")
    np.testing.assert_allclose(
        got.values,
        want.values,
        rtol=rtol,
        atol=atol,
        err_msg=f"{case.id}: {slot} values differ from the numpy reference",
    )


def _attrs_with_defaults(case):
    from pe_cli.ops import registry

    opdef = registry.get(case.op)
    attrs = opdef.default_attrs()
    attrs.update(case.attrs)
    return attrs


def check_forward(case, device="cpu", rtol=None, atol=None):
    outs = run_forward(case, device)
    if case.check is not None:
        case.check(outs, case.inputs)
        return outs
    expected = case.ref(case.inputs, _attrs_with_defaults(case))
    listed = {
        slot: [(v, w) for v, w in zip(_out_vars(case, slot), want if slot in (case.num_outputs or {}) else [want])]
        for slot, want in expected.items()
    }
    if any(isinstance(w, SelectedRows) for pairs in listed.values() for _, w in pairs):
        raw = run_forward(case, device, return_numpy=False)
        for var, want in [pair for pairs in listed.values() for pair in pairs]:
            if isinstance(want, SelectedRows):
                _check_selected_rows(case, var, raw[var], want, rtol or case.rtol, atol or case.atol)
    for slot_, want_ in expected.items():
        wants = want_ if slot_ in (case.num_outputs or {}) else [want_]
        for slot, want in zip(_out_vars(case, slot_), wants):
            got = outs[slot]
            want = want.to_dense() if isinstance(want, SelectedRows) else want
            if got is None:  # Fluid's fetch of a tensor with no element (executor.py's _fluid_empty)
                assert np.size(want) == 0, f"{case.id}: {slot} fetched empty, the reference has {np.shape(want)}"
                continue
            assert got.shape == np.shape(want), f"{case.id}: {slot} shape {got.shape} != reference {np.shape(want)}"
            np.testing.assert_allclose(
                got,
                want,
                rtol=rtol or case.rtol,
                atol=atol or case.atol,
                err_msg=f"{case.id}: output {slot} differs from the numpy reference",
            )
    return outs


def analytic_grads(case, device="cpu"):
    out_slots = case.outputs or tuple(case.ref(case.inputs, _attrs_with_defaults(case)).keys())
    program, names, loss, weights = build_program(case, out_slots, with_loss=True)
    exe = Executor(place_for(device))
    feed = {**_feeds(case, names), **weights}
    fetch = [f"{n}@GRAD" for slot in case.grad for n in names[slot]]
    values = exe.run(program, feed=feed, fetch_list=fetch, scope=Scope())
    return dict(zip(fetch, values)), program, names, weights, out_slots


def numeric_grads(case, names, weights, out_slots, eps=1e-6, max_elems=64):
    """Central differences of the loss in float64, at up to ``max_elems`` elements per input."""
    forward, fnames, _, _ = build_program(case, out_slots, with_loss=False)
    block = forward.global_block()
    terms = []
    for slot, w in weights.items():
        block.create_var(name=slot, shape=w.shape, dtype=w.dtype.name, is_data=True)
        prod = f"p_{slot}"
        block.create_var(name=prod)
        block.append_op("elementwise_mul", {"X": [f"out_{slot[2:]}"], "Y": [slot]}, {"Out": [prod]})
        term = f"t_{slot}"
        block.create_var(name=term)
        block.append_op("reduce_sum", {"X": [prod]}, {"Out": [term]}, {"reduce_all": True})
        terms.append(term)
    block.create_var(name="loss")
    block.append_op("sum", {"X": terms}, {"Out": ["loss"]})
    exe = Executor(CPUPlace())
    scope = Scope()

    def loss_at(inputs):
        return float(
            exe.run(forward, feed={**_feeds(case, fnames, inputs), **weights}, fetch_list=["loss"], scope=scope)[
                0
            ].sum()
        )

    rng = np.random.default_rng(3)
    grads = {}
    for slot in case.grad:
        values = case.inputs[slot] if isinstance(case.inputs[slot], list) else [case.inputs[slot]]
        for i, base in enumerate(values):
            base = np.asarray(base, dtype=np.float64)
            grad = np.full(base.shape, np.nan)
            flat_idx = np.arange(base.size)
            if base.size > max_elems:
                flat_idx = rng.choice(base.size, max_elems, replace=False)
            for j in flat_idx:
                idx = np.unravel_index(j, base.shape)
                plus, minus = base.copy(), base.copy()
                plus[idx] += eps
                minus[idx] -= eps
                grad[idx] = (loss_at(_replace(case, slot, i, plus)) - loss_at(_replace(case, slot, i, minus))) / (
                    2 * eps
                )
            grads[f"{names[slot][i]}@GRAD"] = grad
    return grads


def _replace(case, slot, i, value):
    """The case's inputs with input ``slot`` (#i) replaced by ``value``, keeping its LoD."""
    inputs = dict(case.inputs)
    old = inputs[slot][i] if isinstance(inputs[slot], list) else inputs[slot]
    if isinstance(old, LoDTensor):
        value = LoDTensor(value, old.lod())
    if isinstance(inputs[slot], list):
        inputs[slot] = list(inputs[slot])
        inputs[slot][i] = value
    else:
        inputs[slot] = value
    return inputs


def check_grad(case, device="cpu"):
    """Analytic gradients (the registered grad maker's ops) against float64 finite differences."""
    for slot in case.grad:
        values = case.inputs[slot] if isinstance(case.inputs[slot], list) else [case.inputs[slot]]
        assert all(np.asarray(v).dtype == np.float64 for v in values), (
            f"{case.id}: gradient checks run in float64; make input {slot} float64"
        )
    analytic, _, names, weights, out_slots = analytic_grads(case, device)
    numeric = numeric_grads(case, names, weights, out_slots)
    for key, num in numeric.items():
        got = analytic[key]
        assert got.shape == num.shape, f"{case.id}: {key} shape {got.shape} != {num.shape}"
        mask = ~np.isnan(num)
        np.testing.assert_allclose(
            got[mask],
            num[mask],
            rtol=case.grad_rtol,
            atol=case.grad_atol,
            err_msg=f"{case.id}: analytic gradient {key} differs from finite differences",
        )
