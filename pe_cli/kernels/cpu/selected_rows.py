"""Row-sparse values (pe_cli/base/selected_rows.py) on CPU devices: densifying one for an op whose
kernel reads dense arrays (the executor calls ``densify``), the out-kernels of merge_selected_rows,
get_tensor_from_selected_rows and split_selected_rows (meta rules: shapes/selected_rows.py; fresh), sgd of a row-sparse Param and adam's lazy rows
(the update out-kernels hand a SelectedRows gradient here: optimizer_out.py). Rows and values are host
numpy arrays; every update applies each row once, its duplicates' values summed (Fluid's MergeAdd). (sgd's,
adagrad's and adam's rows over a dense Param: their out-kernels, optimizer_out.py and optimizer_numpy.py, which
write into Param (and its state) where the executor allows it, else into copies.)"""

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows, concat, merge_rows
from .runtime.loops import is_float, lazy, loop_or, parallel_parts, parallel_ready
from ..structured import fresh_outputs
from ..value_checks import split_rows

_loops = lazy("_adam_loops")


def densify(ins, attrs):
    """{"X": SelectedRows} -> {"Out": the dense array}."""
    return {"Out": ins["X"].to_dense()}


def merge_selected_rows_out(ins, outs, attrs, meta):
    """X's rows once each, ascending, a row's values summed: a new SelectedRows (fresh)."""
    x = ins["X"]
    outs["Out"] = x.with_arrays(*x.merged())


def get_tensor_from_selected_rows_out(ins, outs, attrs, meta):
    fresh_outputs({"Out": np.array(ins["X"].values, copy=True)}, ins, outs, meta)


def split_selected_rows_out(ins, outs, attrs, meta):
    """A SelectedRows per run of height_sections (fresh)."""
    outs["Out"] = split_rows(ins["X"], attrs["height_sections"], lambda values, keep: values[keep])


def sgd_of_rows(p, g, lr):
    """sgd of a row-sparse Param (the rows of a table it holds): each row of the row-sparse Grad moves
    the Param row of that id, as Fluid's kernel (an id the Param does not hold is an error)."""
    at = {int(r): i for i, r in enumerate(np.asarray(p.rows).reshape(-1))}
    rows, values = g.merged() if isinstance(g, SelectedRows) else (np.arange(len(g)), np.asarray(g))
    missing = [int(r) for r in rows if int(r) not in at]
    if missing:
        raise PeError(f"sgd: Grad row {missing[0]} is not a row of the row-sparse Param (rows {list(at)[:8]}...)")
    out = np.array(p.values, copy=True)
    index = np.array([at[int(r)] for r in rows], np.int64)
    out[index] = out[index] - lr * values
    return {"ParamOut": p.with_arrays(p.rows, out)}


def lazy_adam(p, g, m1, m2, lr_t, beta1, beta2, eps_c, p_out, m1_out, m2_out):
    """Adam's lazy_mode into ``p_out``, ``m1_out`` and ``m2_out`` (adam's out-kernel hands them over, holding
    what the rows the gradient does not hold keep): the moments and the parameter move only on the rows the
    gradient holds. ``lr_t`` is lr * sqrt(1 - beta2^t) / (1 - beta1^t) and ``eps_c`` epsilon * sqrt(1 - beta2^t).
    float32/float64 arrays of one dtype, rows in range: one numba loop over the touched rows
    (_adam_loops.lazy_adam_rows; the CTR bench's 1,300 rows of a 100,000 x 16 table in its step:
    1.5-1.9 -> 0.6-0.8 ms, the rest the cold rows' memory latency; from LAZY_PARALLEL_MIN_ROWS rows
    its twin over the device's threads), else numpy (``lazy_adam_numpy``, the same bits)."""
    rows, values = g.numpy()
    one = p.dtype.type(1)
    args = (
        rows,
        np.argsort(rows, kind="stable"),
        values,
        p,
        m1,
        m2,
        lr_t,
        beta1,
        beta2,
        one - beta1,
        one - beta2,
        eps_c,
        p_out,
        m1_out,
        m2_out,
    )
    rows2d = _as_rows(args)
    parts = parallel_parts(len(rows), least=LAZY_PARALLEL_MIN_ROWS)
    if rows2d is None:
        lazy_adam_numpy(*args)
    elif parts > 1 and parallel_ready(_loops().lazy_adam_rows_parallel, *rows2d, parts):
        _loops().lazy_adam_rows_parallel(*rows2d, parts)
    else:
        loop_or(lazy_adam_numpy, _loops().lazy_adam_rows, *rows2d)(*rows2d)


# rows of a gradient from which lazy_adam splits them over the device's threads: a cold row costs
# its update about 0.5 us (three cache misses), the threads' start about 10
LAZY_PARALLEL_MIN_ROWS = 256


def _as_rows(args):
    """lazy_adam's arguments with the arrays as [rows, width] views, when the loop takes them: one
    float dtype, C-contiguous tables (a view, so the loop writes the outputs themselves), rows in range;
    else None."""
    rows, order, values, p, m1, m2 = args[:6]
    outs = args[12:]
    if rows.dtype != np.int64 or rows.ndim != 1 or p.ndim < 1 or not is_float(p, m1, m2, values, *outs):
        return None
    if not all(a.flags.c_contiguous and a.shape == p.shape for a in (p, m1, m2, *outs)):
        return None
    if values.shape != (len(rows),) + p.shape[1:]:
        return None
    if len(rows) and (rows.min() < 0 or rows.max() >= p.shape[0]):
        return None  # numpy's path: its IndexError (or negative rows from the end), as before
    height = p.shape[0]
    as2d = [a.reshape(height, -1) for a in (p, m1, m2)]
    outs2d = [a.reshape(height, -1) for a in outs]
    return (rows, order, np.ascontiguousarray(values).reshape(len(rows), -1), *as2d, *args[6:12], *outs2d)


def lazy_adam_numpy(rows, order, values, p, m1, m2, lr_t, beta1, beta2, c1, c2, eps, p_out, m1_out, m2_out):
    """lazy_adam in numpy, _adam_loops.lazy_adam_rows's arguments: the rows merged (``order``: a stable
    argsort of ``rows``), then the update on them (the loop's replica, and the path of other dtypes)."""
    rows, values = merge_rows(rows, values, order)
    a = beta1 * m1[rows] + c1 * values
    b = beta2 * m2[rows] + c2 * values * values
    m2_out[rows], m1_out[rows] = b, a  # the reverse of the order read (see executor/plan.py scope_traffic)
    p_out[rows] = p[rows] - lr_t * (a / (np.sqrt(b) + eps))


def sum_with_sparse(xs):
    """sum's X holding SelectedRows: all sparse -> a SelectedRows of each of their rows once, ascending,
    the values of a row summed (Fluid 1.8's sum of SelectedRows: MergeAdd); mixed -> a dense array
    (Fluid's sum into a LoDTensor: how a regularizer's dense decay term densifies a sparse gradient)."""
    if all(isinstance(x, SelectedRows) for x in xs):
        return xs[0].with_arrays(*concat(xs).merged())
    out = None
    for x in xs:
        dense = x.to_dense() if isinstance(x, SelectedRows) else x
        out = dense.copy() if out is None else out + dense
    return out
