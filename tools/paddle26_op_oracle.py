"""Paddle 2.6.2 as the oracle of the op types pe added from Paddle 2.6's op set (issue 85): each case of
tools/paddle26_op_cases.py is one op appended to a static program as Paddle's saved programs hold it
(``block.append_op`` with the case's slots and attributes), run on Paddle's CPU executor; its outputs and the
gradients of sum(Out * W) (``paddle.static.gradients``) go to tests/data/paddle_oracle/ops26.json with the
inputs. tests/ops/paddle26.py makes pe's op cases of them (cases_<family>.py) and
tests/ops/test_paddle26_grads.py compares pe's gradients with Paddle's. CI never needs Paddle. The cases of
tools/paddle26_semantics_cases.py (issue 96's: semantics pe had wrong) go to semantics26.json beside it. A case
marked ``lower`` (a primitive ``*_p`` op, which has no kernel) runs as Paddle's ``prim2orig`` lowers it.

    /root/.pyenv/versions/3.11.7/bin/python -m venv /tmp/paddle26 && /tmp/paddle26/bin/pip install paddlepaddle==2.6.2
    /tmp/paddle26/bin/python tools/paddle26_op_oracle.py [CASE ...]
"""

import json
import os
import sys

import numpy.random  # noqa: F401  (before paddle, as the guide says)
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paddle26_op_cases import CASES as OP_CASES, weights  # noqa: E402
from paddle26_semantics_cases import CASES as SEMANTICS_CASES  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_oracle")
# each file of recorded cases and the cases it holds
SETS = {os.path.join(DATA, "ops26.json"): OP_CASES, os.path.join(DATA, "semantics26.json"): SEMANTICS_CASES}
CASES = {**OP_CASES, **SEMANTICS_CASES}


# outputs that hold a kernel's workspace, not values (XShape: a shape; Reserve, DropoutState: rnn's)
WORKSPACE = ("XShape", "Reserve", "DropoutState")


def as_json(a):
    a = np.asarray(a)
    if a.dtype.kind == "c":  # complex: [real, imaginary] pairs
        return {
            "dtype": str(a.dtype),
            "shape": list(a.shape),
            "values": [[v.real, v.imag] for v in a.reshape(-1).tolist()],
        }
    return {
        "dtype": str(a.dtype),
        "shape": list(a.shape),
        "values": [None if isinstance(v, float) and np.isnan(v) else v for v in a.reshape(-1).tolist()],
    }


def _out_names(spec):
    for out in spec["outputs"]:
        slot, count = (out, None) if isinstance(out, str) else out
        yield slot, [f"out_{slot}"] if count is None else [f"out_{slot}_{i}" for i in range(count)]


def build(paddle, spec, shapes=None):
    """(program, feed, fetched outputs, gradient variables): the case's op, and with ``shapes`` (output name ->
    its value from a forward run, for its shape and dtype) the gradients of sum(Out * W) over the float outputs."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        block = main.global_block()
        feed, ins = {}, {}
        for slot, value in spec["inputs"].items():
            values = value if isinstance(value, list) else [value]
            ins[slot] = []
            for i, v in enumerate(values):
                var = paddle.static.data(f"{slot}_{i}", list(v.shape), str(v.dtype))
                var.stop_gradient = slot not in spec["grad"] or shapes is None
                ins[slot].append(var)
                feed[var.name] = v
        outs = {
            slot: [
                block.create_var(name=n, **({"dtype": str(shapes[n].dtype)} if shapes and n in shapes else {}))
                for n in names
            ]
            for slot, names in _out_names(spec)
        }
        for slot, src in spec.get("inplace", {}).items():  # an update's outputs are its inputs, as in Paddle's programs
            outs[slot] = ins[src]
        block.append_op(type=spec["op"], inputs=ins, outputs=outs, attrs=dict(spec["attrs"]))
        if spec.get("lower"):  # a primitive *_p op: Paddle runs it as its prim2orig lowering gives it
            from paddle.incubate.autograd import disable_prim, enable_prim, prim2orig

            enable_prim()
            prim2orig(main.global_block())
            disable_prim()
        fetch = [v for vs in outs.values() for v in vs]
        grads = []
        if shapes is not None:
            terms = []
            loss_slots = spec.get("loss", [s for s in outs if s not in WORKSPACE])
            for v in [v for slot, vs in outs.items() if slot in loss_slots for v in vs if v.name in shapes]:
                if shapes[v.name].dtype.kind != "f":  # (the forward run's dtype: set_value infers none)
                    continue
                w = paddle.static.data(f"w_{v.name}", list(shapes[v.name].shape), "float64")  # fed: exact float64
                feed[w.name] = weights(shapes[v.name].shape)
                v.desc.set_shape(list(shapes[v.name].shape))  # the value's (determinant's build-time is wrong)
                terms.append(paddle.sum(v * w))
            loss = paddle.add_n(terms) if len(terms) > 1 else terms[0]
            grads = paddle.static.gradients([loss], [v for s in spec["grad"] for v in ins[s]])
    return main, feed, fetch, grads, ins


def record(paddle, name, spec):
    exe = paddle.static.Executor(paddle.CPUPlace())
    main, feed, fetch, _, _ = build(paddle, spec)
    values = exe.run(main, feed=feed, fetch_list=fetch)
    got = dict(zip([n for _, names in _out_names(spec) for n in names], values))
    result = {
        "op": spec["op"],
        "attrs": spec["attrs"],
        "slots": [s for s, _ in _out_names(spec)],
        "kink": spec["kink"],
        "loss": spec.get("loss"),
        "inputs": {s: [as_json(v) for v in (x if isinstance(x, list) else [x])] for s, x in spec["inputs"].items()},
        "outputs": {
            s: [as_json(got[n]) for n in names]
            for s, names in _out_names(spec)
            if s not in WORKSPACE and all(np.asarray(got[n]).dtype != object for n in names)
        },
        "grads": {},
    }
    if spec["grad"]:
        main, feed, fetch, grads, ins = build(
            paddle,
            spec,
            {
                n: np.asarray(v)
                for n, v in got.items()
                if not any(n.startswith(f"out_{w}") for w in WORKSPACE) and np.asarray(v).dtype != object
            },
        )
        values = exe.run(main, feed=feed, fetch_list=grads)
        for s, g in zip([s for s in spec["grad"] for _ in ins[s]], values):
            result["grads"].setdefault(s, []).append(as_json(g))
    return result


def main(names):
    import paddle

    paddle.enable_static()
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"no such case: {', '.join(unknown)}")
    for out, cases in SETS.items():
        wanted = [n for n in names if n in cases] if names else sorted(cases)
        if names and not wanted:
            continue
        data = {"engine": f"paddlepaddle {paddle.__version__}", "cases": {}}
        if names and os.path.exists(out):
            with open(out, encoding="utf-8") as f:
                data["cases"] = json.load(f)["cases"]
        for name in wanted:
            try:
                data["cases"][name] = record(paddle, name, cases[name])
            except Exception as e:  # noqa: BLE001  (a case Paddle refuses: named, the rest recorded)
                print(f"{name}: FAILED {type(e).__name__}: {str(e).strip().splitlines()[0][:300]}")
        data["cases"] = {n: data["cases"][n] for n in sorted(data["cases"]) if n in cases}
        tmp = out + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv[1:])
