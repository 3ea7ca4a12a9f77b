"""Fluid 1.8.5 as the oracle for layers and ops whose values Fluid computes its own way (its layers'
and kernels' quirks, which ``fluid.*`` follows: docs/COMPAT.md, "Fluid 1.8.5's leniency"): runs
small programs on Fluid and writes their values to tests/data/fluid_oracle/ops.json;
tests/fluid/test_fluid_oracle_ops.py replays them on pe (the same functions, given pe's ``fluid``)
with the same weights and batches and compares. tools/fluid_oracle.py is the pattern.

    /work/fluid185/bin/python tools/fluid_oracle_ops.py      # Python 3.8 with paddlepaddle==1.8.5

Nothing here imports paddle or pe at load time: every program takes the ``fluid`` module to build with.
"""

import importlib
import json
import os
import sys
import warnings

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle")


def _rounded(values, digits=6):
    return [np.round(np.array(v).astype("float64"), digits).tolist() for v in values]


def run_auc(fluid):
    """fluid.layers.auc with slide_steps=0 and 2 over four batches (negative labels among them):
    [global AUC, batch AUC] per op and step, and the shapes of the state variables."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [2], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="int64")
        whole = fluid.layers.auc(x, y, num_thresholds=15, slide_steps=0)
        window = fluid.layers.auc(x, y, num_thresholds=15, slide_steps=2)
    shapes = [list(v.shape) for v in whole[2] + window[2]]
    exe, scope, rng = fluid.Executor(fluid.CPUPlace()), fluid.Scope(), np.random.RandomState(1)
    steps = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(4):
            p = rng.rand(8, 1).astype("float32")
            label = (rng.rand(8, 1) > 0.5).astype("int64")
            label[0] = -1
            got = exe.run(
                main,
                feed={"x": np.hstack([1 - p, p]), "y": label},
                fetch_list=[whole[0], whole[1], window[0], window[1]],
            )
            steps.append([float(np.asarray(g).reshape(-1)[0]) for g in got])
    return {"state_shapes": shapes, "steps": steps}


def run_swish(fluid):
    """fluid.layers.swish(x, beta=2.0) and (x, beta=1.0) on the same x."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = fluid.layers.data("x", [3], dtype="float32")
        outs = [fluid.layers.swish(x, beta=2.0), fluid.layers.swish(x)]
    xv = np.array([[-2.0, -0.5, 0.0], [0.5, 1.0, 3.0]], "float32")
    return _rounded(fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": xv}, fetch_list=outs, scope=fluid.Scope()))


def run_sparse_adam(fluid, sparse, lazy):
    """An embedding table (is_sparse) trained three steps by Adam (lazy_mode) toward 0.5: the table."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64")
        emb = fluid.layers.embedding(ids, size=[6, 3], is_sparse=sparse, param_attr="emb")
        loss = fluid.layers.mean(fluid.layers.square(emb - 0.5))
        fluid.optimizer.Adam(0.1, lazy_mode=lazy).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        table = np.arange(18, dtype="float32").reshape(6, 3) / 10
        scope.find_var("emb").get_tensor().set(table, fluid.CPUPlace())
        for batch in ([[0], [1], [1]], [[2], [0]], [[4]]):
            exe.run(main, feed={"ids": np.array(batch, "int64")}, fetch_list=[loss])
        return _rounded([scope.find_var("emb").get_tensor()])[0]


def run_lazy_adam_op(fluid):
    """One adam op (lazy_mode) run alone on a scope, as Paddle's test_adam_op.py runs it: ParamOut
    and the moments' outputs are variables of their own holding zeros; a row-sparse Grad of rows 0
    and 3. The outputs: its rows change, the others keep the zeros."""
    operator = importlib.import_module(fluid.__name__ + ".op").Operator
    core = fluid.core
    scope, place = core.Scope(), fluid.CPUPlace()
    inputs = {
        "Param": np.full((5, 2), 5.0),
        "Moment1": np.full((5, 2), 0.5),
        "Moment2": np.full((5, 2), 0.25),
        "Beta1Pow": np.array([0.9**3]),
        "Beta2Pow": np.array([0.999**3]),
        "LearningRate": np.array([0.1]),
    }
    args = {"lazy_mode": True, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "Grad": "Grad"}
    for name, value in inputs.items():
        scope.var(name).get_tensor().set(value.astype("float32"), place)
        args[name] = name
    outputs = {"ParamOut": (5, 2), "Moment1Out": (5, 2), "Moment2Out": (5, 2), "Beta1PowOut": (1,), "Beta2PowOut": (1,)}
    for name, shape in outputs.items():
        scope.var(name).get_tensor().set(np.zeros(shape, "float32"), place)
        args[name] = name
    grad = scope.var("Grad").get_selected_rows()
    grad.set_height(5)
    grad.set_rows([0, 3])
    grad.get_tensor().set(np.array([[1.0, -2.0], [0.5, 3.0]], "float32"), place)
    operator("adam", **args).run(scope, place)
    return {name: _rounded([scope.find_var(name).get_tensor()])[0] for name in sorted(outputs)}


def run_beam_decode(fluid, parameters=None):
    """A GRUCell BeamSearchDecoder (vocab 6, beam 3) under fluid.layers.dynamic_decode, with the
    parameters drawn here (or ``parameters``, name -> array): the decoded ids, the lengths."""
    layers = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        enc = fluid.data("enc", [None, 4], "float32")
        cell = layers.GRUCell(4, param_attr=fluid.ParamAttr(name="gw"), bias_attr=fluid.ParamAttr(name="gb"))
        decoder = layers.BeamSearchDecoder(
            cell,
            start_token=0,
            end_token=1,
            beam_size=3,
            embedding_fn=lambda ids: fluid.embedding(ids, [6, 4], param_attr=fluid.ParamAttr(name="emb")),
            output_fn=lambda x: layers.fc(
                x,
                6,
                num_flatten_dims=len(x.shape) - 1,
                param_attr=fluid.ParamAttr(name="ow"),
                bias_attr=fluid.ParamAttr(name="ob"),
            ),
        )
        ids, _, lengths = layers.dynamic_decode(
            decoder, inits=cell.get_initial_states(enc), max_step_num=6, return_length=True, is_test=True
        )
    exe, scope, rng = fluid.Executor(fluid.CPUPlace()), fluid.Scope(), np.random.RandomState(4)
    with fluid.scope_guard(scope):
        exe.run(startup)
        for p in sorted(main.global_block().all_parameters(), key=lambda p: p.name):
            value = rng.uniform(-1.5, 1.5, p.shape).astype("float32")
            value[1] += 1.2 if p.name == "ob" else 0.0  # the end token: likely, so beams end early
            scope.find_var(p.name).get_tensor().set(value, fluid.CPUPlace())
        got = exe.run(main, feed={"enc": np.zeros((2, 4), "float32")}, fetch_list=[ids, lengths])
    return [np.asarray(g).tolist() for g in got]


def record(fluid):
    return {
        "auc": run_auc(fluid),
        "swish": run_swish(fluid),
        "sparse_adam": {
            f"{sparse}-{lazy}": run_sparse_adam(fluid, sparse, lazy)
            for sparse, lazy in ((False, False), (True, False), (True, True))
        },
        "lazy_adam_op": run_lazy_adam_op(fluid),
        "beam_decode": run_beam_decode(fluid),
    }


def main():
    import paddle
    import paddle.fluid as fluid

    os.makedirs(OUT, exist_ok=True)
    data = {
        "engine": f"paddlepaddle {paddle.__version__}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "recorded_by": "tools/fluid_oracle_ops.py",
        "runs": record(fluid),
    }
    path = os.path.join(OUT, "ops.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
