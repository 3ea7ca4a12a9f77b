"""The host cost of one op run op by op: microseconds per ``plan.run_step`` of a unary op (X -> Out) on a
tiny input (or of softmax_with_cross_entropy, forward or gradient, on [--rows, --size] logits and int64
labels), where the kernel's arithmetic is nothing and what is left is pe's per-op Python (gathering,
the kernel context, a structured op's meta lookup and allocation, the kernel's own dispatch) and the
loop's call. Issue 95 asks for at most 2 us an op.

    .venv/bin/python benchmarks/op_overhead.py [--op relu] [--size 16] [--dtype float32]
    .venv/bin/python benchmarks/op_overhead.py --op softmax_with_cross_entropy[_grad] --rows 8 --size 10
    .venv/bin/python benchmarks/op_overhead.py --op pool2d --shape 2,3,8,8 \
        --attrs '{"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}'

``--shape`` (X's, comma-separated; default [size]) and ``--attrs`` (the op's attributes, JSON) for an op of
images (pool2d) or a slice (its first input slot takes X: slice's Input, --attrs '{"axes": [1], "starts": [2],
"ends": [10]}'); ``--y-shape`` for a binary op (X, Y -> Out: elementwise_add, mul; elementwise_add_grad: X, Y,
Out@GRAD of X's shape -> X@GRAD, Y@GRAD); ``--op sgd`` / ``--op momentum``: the update over Param, Grad
(Velocity) of that shape:

    .venv/bin/python benchmarks/op_overhead.py --op elementwise_add[_grad] --shape 8,10 --y-shape 10
    .venv/bin/python benchmarks/op_overhead.py --op mul --shape 4,6 --y-shape 6,3

``--op lookup_table`` (lookup_table_v2, their grad ops): W [100, --size] of --dtype, int64 Ids [--rows, 1]
(the grad ops: Out@GRAD too; --attrs '{"is_sparse": true}': the row-sparse gradient):

    .venv/bin/python benchmarks/op_overhead.py --op lookup_table[_grad] --rows 8 --size 16

``--filter-shape``: a convolution (conv2d, depthwise_conv2d; their grad ops: Output@GRAD too -> Input@GRAD,
Filter@GRAD) over Input [--shape] and Filter of that shape; its arithmetic is not nothing, so fewer --calls:

    .venv/bin/python benchmarks/op_overhead.py --op conv2d[_grad] --shape 8,1,28,28 --filter-shape 6,1,5,5 --calls 2000

``--op cross_entropy`` (cross_entropy2, sigmoid_cross_entropy_with_logits): X [--rows, --size], Label int64
[--rows, 1] (the sigmoid's: X's shape, --dtype).

``--op nll_loss``: X [--rows, --size], int64 Label [--rows] (--attrs: its reduction); ``--op bpr_loss``: X and
int64 Label [--rows, 1]; ``--op bce_loss``: X and Label [--rows, --size] of probabilities.

``--op gather`` (gather_grad: Out@GRAD too): X [--shape] of --dtype, int64 Index [--rows] in X's rows; ``--op
one_hot_v2`` (one_hot: --shape ending in 1): int64 ids [--shape] in [0, --size), depth --size:

    .venv/bin/python benchmarks/op_overhead.py --op gather[_grad] --shape 100,16 --rows 8
    .venv/bin/python benchmarks/op_overhead.py --op one_hot_v2 --shape 8 --size 10

``--lod``: X's sequence lengths (a sequence op, X's LoD of one level):

    .venv/bin/python benchmarks/op_overhead.py --op sequence_pool --shape 12,16 --lod 3,4,5 --attrs '{"pooltype": "SUM"}'

``--inputs N``: concat, sum or stack over N values of X [--shape] (concat_grad: and Out@GRAD), split of X [--shape]
into N parts (--attrs: their num or sections, the axis):

    .venv/bin/python benchmarks/op_overhead.py --op concat --inputs 3 --shape 8,16 --attrs '{"axis": 1}'
    .venv/bin/python benchmarks/op_overhead.py --op split --inputs 4 --shape 8,16 --attrs '{"num": 4, "axis": 1}'

``--op batch_norm`` (batch_norm_grad, batch_norm_grad_param): X [--shape] of --dtype (NCHW; --attrs
'{"data_layout": "NHWC"}' puts C last), Scale, Bias, Mean and Variance [C], MeanOut and VarianceOut the
Mean and Variance variables (as a program's); --attrs '{"is_test": true}': inference by the running statistics
(the grad ops: SavedMean, SavedVariance [C] and Y@GRAD of X's shape):

    .venv/bin/python benchmarks/op_overhead.py --op batch_norm --shape 2,3,4,4 [--attrs '{"is_test": true}']
    .venv/bin/python benchmarks/op_overhead.py --op batch_norm_grad --shape 8,16,16,16

Best of 5 repeats of 200,000 calls (--calls) after 2,000 warm-up calls (the loop compiled); run it on two trees
(PYTHONPATH) one after the other, alternating, on a machine nothing else runs on: a shared host's noise
is of the order of the differences. ``--cpu-time`` times the process's CPU time (time.process_time) instead
of the wall clock: the time other processes take the CPU from it is not counted, which steadies the figures
on a shared host (batch_norm_grad on [2, 3, 4, 4]: 22.1-22.8 us in three runs, against 34-52 by the wall
clock, a 2-core VM shared by four jobs).
"""

import argparse
import json
import time
import timeit

import numpy as np

from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program
from pe_cli.ops import registry


def _softmax_ce(block, args):
    """softmax_with_cross_entropy (or its grad op) over [rows, size] logits and int64 labels [rows, 1]."""
    rng = np.random.default_rng(0)
    logits = rng.uniform(-2, 2, (args.rows, args.size)).astype(args.dtype)
    label = rng.integers(0, args.size, (args.rows, 1)).astype(np.int64)
    e = np.exp(logits - logits.max(-1, keepdims=True))
    feeds = {"logits": logits, "label": label, "softmax": e / e.sum(-1, keepdims=True)}
    feeds["dloss"] = np.ones((args.rows, 1), args.dtype)
    for name, value in feeds.items():
        block.create_var(name=name, shape=value.shape, dtype=str(value.dtype), is_data=True)
    for name in ("loss", "dlogits"):
        block.create_var(name=name)
    if args.op.endswith("_grad"):
        inputs = {"Label": ["label"], "Softmax": ["softmax"], "Loss@GRAD": ["dloss"]}
        block.append_op(args.op, inputs, {"Logits@GRAD": ["dlogits"]}, {})
    else:
        block.append_op(args.op, {"Logits": ["logits"], "Label": ["label"]}, {"Softmax": ["y"], "Loss": ["loss"]}, {})
    return feeds


def _update(block, args, shape):
    """sgd or momentum over Param, Grad (and Velocity) of ``shape`` and a one-value LearningRate, writing the
    variables they update (as an optimizer's op does; no scope: a new ParamOut each call, not in place)."""
    rng = np.random.default_rng(0)
    feeds = {n: rng.uniform(-1, 1, shape).astype(args.dtype) for n in ("param", "grad", "velocity")}
    feeds["lr"] = np.array([0.1], args.dtype)
    for name, value in feeds.items():
        block.create_var(name=name, shape=value.shape, dtype=str(value.dtype), is_data=True)
    ins, outs = {"Param": ["param"], "Grad": ["grad"], "LearningRate": ["lr"]}, {"ParamOut": ["param"]}
    if args.op == "momentum":
        ins["Velocity"], outs["VelocityOut"] = ["velocity"], ["velocity"]
    block.append_op(args.op, ins, outs, json.loads(args.attrs))
    return feeds


def _lookup(block, args):
    """lookup_table(_v2) over W [100, --size] and int64 Ids [--rows, 1] (the grad op: and Out@GRAD)."""
    rng = np.random.default_rng(0)
    feeds = {"w": rng.uniform(-1, 1, (100, args.size)).astype(args.dtype), "ids": rng.integers(0, 100, (args.rows, 1))}
    v2 = args.op.startswith("lookup_table_v2")
    feeds["dout"] = np.ones((args.rows, 1, args.size) if v2 else (args.rows, args.size), args.dtype)
    for name in [*feeds, "dw"]:
        block.create_var(name=name)
    ins = {"W": ["w"], "Ids": ["ids"]}
    if args.op.endswith("_grad"):
        block.append_op(args.op, dict(ins, **{"Out@GRAD": ["dout"]}), {"W@GRAD": ["dw"]}, json.loads(args.attrs))
    else:
        block.append_op(args.op, ins, {"Out": ["y"]}, json.loads(args.attrs))
    return feeds


def _by_index(block, args, shape):
    """gather (its grad op: and Out@GRAD) over X [shape] of --dtype and int64 Index [--rows] in X's rows, or
    one_hot / one_hot_v2 over int64 ids [shape] in [0, --size), depth --size."""
    rng = np.random.default_rng(0)
    if args.op.startswith("one_hot"):
        feeds = {"x": rng.integers(0, args.size, shape)}
        block.create_var(name="x")
        block.append_op(args.op, {"X": ["x"]}, {"Out": ["y"]}, dict(depth=args.size, **json.loads(args.attrs)))
        return feeds
    feeds = {"x": rng.uniform(-1, 1, shape).astype(args.dtype), "index": rng.integers(0, shape[0], args.rows)}
    feeds["dout"] = np.ones((args.rows,) + shape[1:], args.dtype)
    for name in [*feeds, "dx"]:
        block.create_var(name=name)
    ins = {"X": ["x"], "Index": ["index"]}
    if args.op.endswith("_grad"):
        block.append_op(args.op, dict(ins, **{"Out@GRAD": ["dout"]}), {"X@GRAD": ["dx"]}, json.loads(args.attrs))
    else:
        block.append_op(args.op, ins, {"Out": ["y"]}, json.loads(args.attrs))
    return feeds


def _cross_entropy(block, args):
    """cross_entropy(2) over X [rows, size] of probabilities and int64 Label [rows, 1], or
    sigmoid_cross_entropy_with_logits over X and Label of [rows, size]."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 1, (args.rows, args.size)).astype(args.dtype)
    if args.op.startswith("sigmoid"):
        label, outs = rng.uniform(0, 1, x.shape).astype(args.dtype), {"Out": ["y"]}
    else:
        label, outs = rng.integers(0, args.size, (args.rows, 1)), {"Y": ["y"]}
        if args.op == "cross_entropy2":
            outs.update(MatchX=["match"], XShape=["xshape"])
    feeds = {"x": x, "label": label}
    for name in [*feeds, "match", "xshape"]:
        block.create_var(name=name)
    block.append_op(args.op, {"X": ["x"], "Label": ["label"]}, outs, json.loads(args.attrs))
    return feeds


def _conv(block, args, shape):
    """A convolution over Input [shape] and Filter [--filter-shape] (its grad op: and Output@GRAD)."""
    from pe_cli.shapes.conv_plans import ConvGeometry

    rng = np.random.default_rng(0)
    w_shape = tuple(int(d) for d in args.filter_shape.split(","))
    feeds = {"x": rng.uniform(-1, 1, shape).astype(args.dtype), "w": rng.uniform(-1, 1, w_shape).astype(args.dtype)}
    attrs = json.loads(args.attrs)
    ins, outs = {"Input": ["x"], "Filter": ["w"]}, {"Output": ["y"]}
    if args.op.endswith("_grad"):
        full = dict(strides=[1, 1], paddings=[0, 0], dilations=[1, 1], groups=1, padding_algorithm="EXPLICIT")
        geo = ConvGeometry(shape, w_shape, dict(full, **attrs))
        feeds["dy"] = rng.uniform(-1, 1, (shape[0], w_shape[0], geo.ho, geo.wo)).astype(args.dtype)
        ins["Output@GRAD"], outs = ["dy"], {"Input@GRAD": ["dx"], "Filter@GRAD": ["dw"]}
    for name in [*feeds, "dx", "dw"]:
        block.create_var(name=name)
    block.append_op(args.op, ins, outs, attrs)
    return feeds


def _batch_norm(block, args, shape):
    """batch_norm (or its grad ops) over X [shape] and its per-channel values (see the module's docstring)."""
    rng = np.random.default_rng(0)
    attrs = json.loads(args.attrs)
    c = shape[-1] if attrs.get("data_layout") == "NHWC" else shape[1]
    feeds = {"x": rng.uniform(-1, 1, shape).astype(args.dtype), "dy": rng.uniform(-1, 1, shape).astype(args.dtype)}
    for name in ("scale", "bias", "mean", "variance", "saved_mean", "saved_variance"):
        feeds[name] = rng.uniform(0.5, 1.5, c).astype(args.dtype)
    for name in [*feeds, "dx", "dscale", "dbias"]:
        block.create_var(name=name)
    ins = {"X": ["x"], "Scale": ["scale"], "Bias": ["bias"]}
    if args.op.startswith("batch_norm_grad"):
        ins.update(SavedMean=["saved_mean"], SavedVariance=["saved_variance"], **{"Y@GRAD": ["dy"]})
        outs = {"Scale@GRAD": ["dscale"], "Bias@GRAD": ["dbias"]}
        if args.op == "batch_norm_grad":
            outs["X@GRAD"] = ["dx"]
    else:
        ins.update(Mean=["mean"], Variance=["variance"])
        outs = {"Y": ["y"], "MeanOut": ["mean"], "VarianceOut": ["variance"]}
        outs.update(SavedMean=["saved_mean"], SavedVariance=["saved_variance"])
    block.append_op(args.op, ins, outs, attrs)
    return feeds


def _binary(block, args, shape):
    """A binary op over X [shape] and Y [--y-shape] (its grad op: and Out@GRAD of X's shape)."""
    y_shape = tuple(int(d) for d in args.y_shape.split(",") if d)
    feeds = {
        n: np.linspace(-1, 1, int(np.prod(s))).astype(args.dtype).reshape(s) for n, s in (("x", shape), ("b", y_shape))
    }
    ins = {"X": ["x"], "Y": ["b"]}
    outs = {"Out": ["y"]}
    if args.op.endswith("_grad"):
        feeds["dy"] = np.ones(shape, args.dtype)
        ins["Out@GRAD"], outs = ["dy"], {"X@GRAD": ["dx"], "Y@GRAD": ["db"]}
    for name in [*feeds, "dx", "db"]:
        block.create_var(name=name)
    block.append_op(args.op, ins, outs, json.loads(args.attrs))
    return feeds


def _loss(block, args):
    """nll_loss over X [--rows, --size] of --dtype and int64 Label [--rows] (Out, Total_weight; --attrs: its
    reduction), bpr_loss over X and int64 Label [--rows, 1], or bce_loss over X and Label [--rows, --size] of
    probabilities."""
    rng = np.random.default_rng(0)
    feeds = {"x": rng.uniform(0.1, 0.9, (args.rows, args.size)).astype(args.dtype)}
    if args.op == "nll_loss":
        feeds["label"] = rng.integers(0, args.size, (args.rows,)).astype(np.int64)
        outs = {"Out": ["y"], "Total_weight": ["w"]}
    elif args.op == "bpr_loss":
        feeds["label"] = rng.integers(0, args.size, (args.rows, 1)).astype(np.int64)
        outs = {"Y": ["y"]}
    else:
        feeds["label"] = rng.uniform(0, 1, (args.rows, args.size)).astype(args.dtype)
        outs = {"Out": ["y"]}
    for name in [*feeds, "w"]:
        block.create_var(name=name)
    block.append_op(args.op, {"X": ["x"], "Label": ["label"]}, outs, json.loads(args.attrs))
    return feeds


_JOINED = {"concat": "Out", "sum": "Out", "stack": "Y", "concat_grad": "X@GRAD", "split": "Out"}


def _joined(block, args, shape):
    """concat, sum or stack over --inputs values of X [shape] (concat_grad: and Out@GRAD of concat's Out, X@GRAD
    a value each), or split of X [shape] into --inputs parts (its attributes: --attrs)."""
    n, attrs = args.inputs, json.loads(args.attrs)
    xs = {f"x{i}": np.linspace(-1, 1, int(np.prod(shape))).astype(args.dtype).reshape(shape) for i in range(n)}
    outs = {_JOINED[args.op]: ["y"]}
    if args.op == "split":
        xs, outs = {"x0": xs["x0"]}, {"Out": [f"y{i}" for i in range(n)]}
    elif args.op == "concat_grad":
        xs["dy"] = np.concatenate(list(xs.values()), axis=attrs.get("axis", 0))
        outs = {"X@GRAD": [f"y{i}" for i in range(n)]}
    for name in [*xs, *outs[next(iter(outs))]]:
        block.create_var(name=name)
    ins = {"X": [name for name in xs if name != "dy"]}
    if args.op == "concat_grad":
        ins["Out@GRAD"] = ["dy"]
    block.append_op(args.op, ins, outs, attrs)
    return xs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", default="relu")
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--rows", type=int, default=8)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--shape", default=None, help="X's shape, comma-separated (default: [size])")
    parser.add_argument("--attrs", default="{}", help="the op's attributes, JSON")
    parser.add_argument("--y-shape", default=None, help="Y's shape, comma-separated: a binary op (X, Y -> Out)")
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--filter-shape", default=None, help="Filter's shape, comma-separated: a convolution")
    parser.add_argument(
        "--inputs", type=int, default=0, help="concat, sum, stack (concat_grad): X's values; split: parts"
    )
    parser.add_argument("--cpu-time", action="store_true", help="time the process's CPU time, not the wall clock")
    parser.add_argument("--lod", default=None, help="X's sequence lengths, comma-separated: a sequence op's LoD")
    args = parser.parse_args()
    shape = tuple(int(d) for d in args.shape.split(",")) if args.shape else (args.size,)
    program = Program()
    block = program.global_block()
    block.create_var(name="y")
    if args.op.startswith("softmax_with_cross_entropy"):
        feeds = _softmax_ce(block, args)
        what = f"[{args.rows}, {args.size}]"
    elif args.op in ("cross_entropy", "cross_entropy2", "sigmoid_cross_entropy_with_logits"):
        feeds, what = _cross_entropy(block, args), f"[{args.rows}, {args.size}]"
    elif args.op in ("nll_loss", "bce_loss", "bpr_loss"):
        feeds, what = _loss(block, args), f"[{args.rows}, {args.size}]"
    elif args.op.startswith("lookup_table"):
        feeds, what = _lookup(block, args), f"W [100, {args.size}], Ids [{args.rows}, 1]"
    elif args.op.startswith("batch_norm"):
        feeds, what = _batch_norm(block, args, shape), list(shape)
    elif args.op in ("gather", "gather_grad", "one_hot", "one_hot_v2"):
        feeds = _by_index(block, args, shape)
        what = (
            f"ids {list(shape)}, depth {args.size}"
            if args.op.startswith("one_hot")
            else f"{list(shape)}, Index [{args.rows}]"
        )
    elif args.op in ("sgd", "momentum"):
        feeds, what = _update(block, args, shape), list(shape)
    elif args.inputs:
        feeds, what = _joined(block, args, shape), f"{args.inputs} x {list(shape)}"
    elif args.filter_shape:
        feeds, what = _conv(block, args, shape), f"{list(shape)} by {args.filter_shape.split(',')}"
    elif args.y_shape:
        feeds = _binary(block, args, shape)
        what = f"{list(shape)} and {args.y_shape.split(',')}"
    else:
        block.create_var(name="x", shape=shape, dtype=args.dtype, is_data=True, lod_level=1 if args.lod else 0)
        slot = registry.get(args.op).inputs[0].name  # (X, or slice's Input)
        block.append_op(args.op, {slot: ["x"]}, {"Out": ["y"]}, json.loads(args.attrs))
        feeds = {"x": np.linspace(-1, 1, int(np.prod(shape))).astype(args.dtype).reshape(shape)}
        what = list(shape)
    step = OpStep(block.ops[0], CPUPlace())
    lods = None
    if args.lod:  # (a sequence op: X's one LoD level, the offsets of these lengths)
        lods = {"x": [np.concatenate([[0], np.cumsum([int(n) for n in args.lod.split(",")])]).tolist()]}
    values = Values(feeds, lods)
    for _ in range(2000):
        run_step(step, values)
    timer = time.process_time if args.cpu_time else time.perf_counter
    best = min(timeit.Timer(lambda: run_step(step, values), timer=timer).repeat(number=args.calls, repeat=5))
    print(f"{args.op}, {what} {args.dtype}, plan.run_step: {best / args.calls * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
