"""Where oneDNN's time goes in a model's training step: its convolutions by direction, and the
reorders between pe's NCHW/OIHW arrays and the blocked layouts oneDNN chose (kernels/cpu/runtime/onednn.py),
activations apart from weights, as oneDNN's own verbose mode times them.

    .venv/bin/python benchmarks/onednn_time.py [--model resnet] [--steps 4] [--fused]

The model runs in a child process with ``ONEDNN_VERBOSE=1`` (oneDNN reads it when it loads); after
warm-up steps, every primitive the next ``--steps`` steps execute is summed by kind and printed as
ms per step. The reorders are what keeping activations in oneDNN's layout between ops would save.
Verbose mode adds its own cost to each call (a line printed), so compare the rows with each other,
not the total with bench_cpu.py's step times.
"""

import argparse
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MARK = "=== timed steps ==="


def child(model, steps, fused):
    sys.path.insert(0, HERE)
    from onednn_ab import warmed

    m = warmed(model, fused)
    print(MARK, flush=True)
    for _ in range(steps):
        m.step()
    sys.stdout.flush()


def kind_of(fields):
    """The row a verbose ``exec`` line counts under: a convolution's direction, or a reorder of an
    activation (4-D, batch first) or of a weight, named by its direction."""
    primitive, prop = fields[3], fields[5]
    if primitive == "convolution":
        return f"convolution {prop}"
    if primitive != "reorder":
        return primitive
    src, dst = (f.split(":")[3] if f.count(":") >= 3 else f for f in fields[6].split()[:2])
    what = "weights" if "16a" in src + dst or "Bcda" in src + dst else "activations"
    way = "to pe's layout" if dst == "abcd" else "to oneDNN's layout"
    return f"reorder, {what}, {way}"


def summarize(lines, steps):
    """{row: (calls a step, ms a step)} of the ``exec`` lines after the mark."""
    after = lines[lines.index(MARK) + 1 :] if MARK in lines else []
    calls, ms = collections.Counter(), collections.Counter()
    for line in after:
        fields = line.split(",")
        if len(fields) > 6 and fields[0].endswith("_verbose") and fields[1] == "exec":
            kind = kind_of(fields)
            calls[kind] += 1
            ms[kind] += float(fields[-1])
    return {k: (calls[k] / steps, ms[k] / steps) for k in sorted(ms)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--fused", action="store_true", help="the bench's fused BuildStrategy")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.model, args.steps, args.fused)
    cmd = [sys.executable, __file__, "--child", "--model", args.model, "--steps", str(args.steps)]
    out = subprocess.run(
        cmd + (["--fused"] if args.fused else []),
        env=dict(os.environ, ONEDNN_VERBOSE="1"),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    rows = summarize(out.splitlines(), args.steps)
    if not rows:
        sys.exit("onednn_time: oneDNN ran nothing (not installed, PE_ONEDNN=0, or no convolution it takes)")
    print(
        f"{args.model}{', fused' if args.fused else ''}: oneDNN's primitives, calls and ms a step "
        f"(its verbose timings, {args.steps} steps)"
    )
    for kind, (n, ms) in rows.items():
        print(f"  {kind:<44} {n:6.1f} {ms:9.2f}")
    reorders = sum(ms for kind, (_, ms) in rows.items() if kind.startswith("reorder"))
    print(f"  {'all reorders':<44} {'':6} {reorders:9.2f}")
    print(f"  {'all':<44} {'':6} {sum(ms for _, ms in rows.values()):9.2f}")


if __name__ == "__main__":
    sys.exit(main())
