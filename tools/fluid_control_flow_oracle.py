"""Fluid 1.8.5 as the oracle of programs built from its control-flow layers: runs small programs on
Fluid and writes what they computed to tests/data/fluid_oracle/control_flow.json;
tests/fluid/test_control_flow_oracle.py replays the same programs (this module's functions, given
pe's ``fluid``) on pe and compares. CI never needs Fluid.

    /work/fluid185/bin/python tools/fluid_control_flow_oracle.py     # Python 3.8, paddlepaddle==1.8.5

- dynamic_rnn: a DynamicRNN (a step input of sequences 2, 4, 1 long, a static input, a memory
  initialised from a tensor taken in the rank table's order, as ``need_reorder=False`` takes it, and
  one from a shape) trained 4 steps with SGD: the losses, the first step's outputs (with their LoD)
  and gradients.
- lr_schedules: each of fluid.layers' 8 learning-rate schedules (and their staircase, cycle, a
  Variable learning_rate), the rate fetched at each of 12 runs of a program trained with it.

Nothing here imports paddle or pe at load time: every program takes the ``fluid`` module to build
with, so the same code runs on both engines."""

import json
import os
import sys

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "fluid_oracle", "control_flow.json"
)
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
            m = drnn.memory(init=h0)  # rows in the rank table's order
            n = drnn.memory(shape=[H], value=0.1)
            h = fluid.layers.fc(
                [xt, m, n, st],
                H,
                act="tanh",
                param_attr=[fluid.ParamAttr(name=p) for p in DRNN_PARAMS[:4]],
                bias_attr=fluid.ParamAttr(name="b"),
            )
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
    batches = [
        (rng.uniform(-1, 1, (tokens, D)), rng.uniform(-1, 1, (n, 2)), rng.uniform(-1, 1, (n, H)))
        for _ in range(DRNN_STEPS)
    ]
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
            feed = {
                "x": fluid.create_lod_tensor(x.astype("float32"), [LENGTHS], place),
                "s": s.astype("float32"),
                "h0": h0.astype("float32"),
            }
            values = exe.run(
                main, feed=feed, fetch_list=[loss, out] + [p + "@GRAD" for p in DRNN_PARAMS], return_numpy=False
            )
            record["loss"].append(float(np.array(values[0]).reshape(-1)[0]))
            if step == 0:
                record["out"] = np.array(values[1]).tolist()
                record["lod"] = values[1].recursive_sequence_lengths()
                record["grads"] = {p: np.array(v).tolist() for p, v in zip(DRNN_PARAMS, values[2:])}
    return record


LR_RUNS = 12
LR_SCHEDULES = {
    "exponential": lambda L: L.exponential_decay(0.1, 4, 0.5),
    "exponential_staircase": lambda L: L.exponential_decay(0.1, 4, 0.5, staircase=True),
    "natural_exp": lambda L: L.natural_exp_decay(0.2, 3, 0.4),
    "natural_exp_staircase": lambda L: L.natural_exp_decay(0.2, 3, 0.4, True),
    "inverse_time": lambda L: L.inverse_time_decay(0.5, 2, 0.25),
    "inverse_time_staircase": lambda L: L.inverse_time_decay(0.5, 5, 0.5, staircase=True),
    "polynomial": lambda L: L.polynomial_decay(0.1, 8, end_learning_rate=0.01, power=2.0),
    "polynomial_cycle": lambda L: L.polynomial_decay(0.1, 5, cycle=True),
    "piecewise": lambda L: L.piecewise_decay([3, 7], [1.0, 0.5, 0.1]),
    "cosine": lambda L: L.cosine_decay(0.4, 3, 4),
    "noam": lambda L: L.noam_decay(64, 5),
    "noam_learning_rate": lambda L: L.noam_decay(16, 4, learning_rate=2.0),
    "linear_warmup": lambda L: L.linear_lr_warmup(0.3, 5, 0.0, 0.2),
    "warmup_then_exponential": lambda L: L.linear_lr_warmup(L.exponential_decay(0.1, 2, 0.5), 4, 0.01, 0.1),
}


def run_lr_schedule(fluid, name):
    """The rate of each of LR_RUNS runs of a tiny model trained by SGD on schedule ``name``."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3])
        loss = fluid.layers.mean(fluid.layers.fc(x, 1))
        lr = LR_SCHEDULES[name](fluid.layers)
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        feed = {"x": np.ones((2, 3), dtype="float32")}
        return [float(np.array(exe.run(main, feed=feed, fetch_list=[lr])[0]).reshape(-1)[0]) for _ in range(LR_RUNS)]


def main():
    import paddle
    import paddle.fluid as fluid

    source = {
        "engine": f"paddlepaddle {paddle.__version__}",
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "recorded_by": "tools/fluid_control_flow_oracle.py",
    }
    data = dict(
        source,
        dynamic_rnn=run_dynamic_rnn(fluid),
        lr_schedules={name: run_lr_schedule(fluid, name) for name in LR_SCHEDULES},
    )
    with open(OUT + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(OUT + ".tmp", OUT)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
