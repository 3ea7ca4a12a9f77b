"""Fluid 1.8.5 as the oracle of programs built from its control-flow layers: runs small programs on
Fluid and writes what they computed to tests/data/fluid_oracle/control_flow.json;
tests/fluid/test_control_flow_oracle.py replays the same programs (this module's functions, given
pe's ``fluid``) on pe and compares. CI never needs Fluid.

    /work/fluid185/bin/python tools/fluid_control_flow_oracle.py     # Python 3.8, paddlepaddle==1.8.5

- dynamic_rnn: a DynamicRNN (a step input of sequences 2, 4, 1 long, a static input, a memory
  initialised from a tensor taken in the rank table's order, as ``need_reorder=False`` takes it, and
  one from a shape) trained 4 steps with SGD: the losses, the first step's outputs (with their LoD)
  and gradients.

Nothing here imports paddle or pe at load time: every program takes the ``fluid`` module to build
with, so the same code runs on both engines."""
import json
import os
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle",
                   "control_flow.json")
DRNN_STEPS, LENGTHS, D, H = 4, [2, 4, 1], 3, 4
DRNN_PARAMS = ("wx", "wm", "wn", "ws", "b")


def dynamic_rnn_program(fluid):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [D], lod_level=1)
        s = fluid.layers.data("s", [2])
        h0 = fluid.layers.data("h0", [H])
        drnn = fluid.layers.DynamicRNN()
        with drnn.block():
            xt = drnn.step_input(x)
            st = drnn.static_input(s)
            m = drnn.memory(init=h0)                       # rows in the rank table's order
            n = drnn.memory(shape=[H], value=0.1)
            h = fluid.layers.fc([xt, m, n, st], H, act="tanh",
                                param_attr=[fluid.ParamAttr(name=p) for p in DRNN_PARAMS[:4]],
                                bias_attr=fluid.ParamAttr(name="b"))
            drnn.update_memory(m, h)
            drnn.update_memory(n, fluid.layers.scale(h, 0.5))
            drnn.output(h)
        out = drnn()
        loss = fluid.layers.mean(fluid.layers.sequence_pool(out, "sum"))
        fluid.optimizer.SGD(0.5).minimize(loss)
    return main, startup, out, loss


def dynamic_rnn_data(seed=5):
    rng = np.random.RandomState(seed)
    shapes = {"wx": (D, H), "wm": (H, H), "wn": (H, H), "ws": (2, H), "b": (H,)}
    weights = {name: rng.uniform(-0.5, 0.5, shape) for name, shape in shapes.items()}
    n, tokens = len(LENGTHS), sum(LENGTHS)
    batches = [(rng.uniform(-1, 1, (tokens, D)), rng.uniform(-1, 1, (n, 2)), rng.uniform(-1, 1, (n, H)))
               for _ in range(DRNN_STEPS)]
    return weights, batches


def run_dynamic_rnn(fluid):
    """{"loss": [per step], "out": first step's output, "lod": its LoD, "grads": first step's}."""
    main, startup, out, loss = dynamic_rnn_program(fluid)
    weights, batches = dynamic_rnn_data()
    exe, scope, place = fluid.Executor(fluid.CPUPlace()), fluid.Scope(), fluid.CPUPlace()
    record = {"loss": []}
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name, value in weights.items():
            scope.find_var(name).get_tensor().set(np.asarray(value, "float32"), place)
        for step, (x, s, h0) in enumerate(batches):
            feed = {"x": fluid.create_lod_tensor(x.astype("float32"), [LENGTHS], place), "s": s.astype("float32"),
                    "h0": h0.astype("float32")}
            values = exe.run(main, feed=feed, fetch_list=[loss, out] + [p + "@GRAD" for p in DRNN_PARAMS],
                             return_numpy=False)
            record["loss"].append(float(np.array(values[0]).reshape(-1)[0]))
            if step == 0:
                record["out"] = np.array(values[1]).tolist()
                record["lod"] = values[1].recursive_sequence_lengths()
                record["grads"] = {p: np.array(v).tolist() for p, v in zip(DRNN_PARAMS, values[2:])}
    return record


def main():
    import paddle
    import paddle.fluid as fluid
    source = {"engine": f"paddlepaddle {paddle.__version__}", "python": sys.version.split()[0],
              "numpy": np.__version__, "recorded_by": "tools/fluid_control_flow_oracle.py"}
    data = dict(source, dynamic_rnn=run_dynamic_rnn(fluid))
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
