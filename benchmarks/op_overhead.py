"""The host cost of one op run op by op: microseconds per ``plan.run_step`` of a unary op (X -> Out) on a
tiny input, where the kernel's arithmetic is nothing and what is left is pe's per-op Python (gathering,
the kernel context, a structured op's meta lookup and allocation, the kernel's own dispatch) and the
loop's call. Issue 95 asks for at most 2 us an op.

    .venv/bin/python benchmarks/op_overhead.py [--op relu] [--size 16] [--dtype float32]
    .venv/bin/python benchmarks/op_overhead.py --op pool2d --shape 2,3,8,8 \
        --attrs '{"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}'

``--shape`` (X's, comma-separated; default [size]) and ``--attrs`` (the op's attributes, JSON) for an op of
images (pool2d).

Best of 5 repeats of 200,000 calls after 2,000 warm-up calls (the loop compiled); run it on two trees
(PYTHONPATH) one after the other, alternating, on a machine nothing else runs on: a shared host's noise
is of the order of the differences.
"""

import argparse
import json
import timeit

import numpy as np

from pe_cli.base.places import CPUPlace
from pe_cli.executor.plan import OpStep, Values, run_step
from pe_cli.framework import Program


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", default="relu")
    parser.add_argument("--size", type=int, default=16)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--shape", default=None, help="X's shape, comma-separated (default: [size])")
    parser.add_argument("--attrs", default="{}", help="the op's attributes, JSON")
    parser.add_argument("--calls", type=int, default=200_000)
    args = parser.parse_args()
    shape = tuple(int(d) for d in args.shape.split(",")) if args.shape else (args.size,)
    program = Program()
    block = program.global_block()
    block.create_var(name="x", shape=shape, dtype=args.dtype, is_data=True)
    block.create_var(name="y")
    block.append_op(args.op, {"X": ["x"]}, {"Out": ["y"]}, json.loads(args.attrs))
    step = OpStep(block.ops[0], CPUPlace())
    values = Values({"x": np.linspace(-1, 1, int(np.prod(shape))).astype(args.dtype).reshape(shape)})
    for _ in range(2000):
        run_step(step, values)
    best = min(timeit.repeat(lambda: run_step(step, values), number=args.calls, repeat=5))
    print(f"{args.op} forward, {list(shape)} {args.dtype}, plan.run_step: {best / args.calls * 1e6:.2f} us per call")


if __name__ == "__main__":
    main()
