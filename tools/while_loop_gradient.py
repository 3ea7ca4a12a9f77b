"""The gradient a ``while_loop`` passes to the loop's initial values, against finite differences of the same
engine's own forward pass: the evidence docs/COMPAT.md gives ("Fluid's file formats", while_loop).

    /work/fluid185/bin/python tools/while_loop_gradient.py      # Fluid 1.8.5
    .venv/bin/python tools/while_loop_gradient.py               # pe

The model is tools/fluid_saved_families.py's while_loop: h = tanh(fc_0(x)) before the loop, then three
steps of h = tanh(loop_fc(h)), softmax and cross entropy. It prints, for fc_0.b_0 (a parameter the loop's
initial value depends on) and loop_b (one inside the loop), the gradient backward gives (fetched as
NAME@GRAD after append_backward) and the central finite difference (1e-3 steps, float64 sums of the
engine's own float32 forward pass) of the mean loss, element by element."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fluid_saved_families import FAMILIES, feed_dict  # noqa: E402


def _fluid():
    try:
        import paddle.fluid as fluid
    except ImportError:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        import pe_cli.fluid as fluid
    return fluid


def main():
    fluid = _fluid()
    main_prog, startup = fluid.Program(), fluid.Program()
    main_prog.random_seed = startup.random_seed = 1
    with fluid.program_guard(main_prog, startup), fluid.unique_name.guard():
        spec = FAMILIES["while_loop"](fluid)
        test = main_prog.clone(for_test=True)
        fluid.backward.append_backward(spec["loss"])
    place, scope = fluid.CPUPlace(), fluid.core.Scope()
    exe = fluid.Executor(place)
    feed = feed_dict(fluid, place, spec["data"]["train0"])
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name in ("fc_0.b_0", "loop_b"):
            grad = np.array(exe.run(main_prog, feed=feed, fetch_list=[name + "@GRAD"])[0])
            tensor = scope.find_var(name).get_tensor()
            base = np.array(tensor)
            numeric = np.zeros_like(base, dtype="float64")
            for i in range(base.size):
                losses = []
                for step in (1e-3, -1e-3):
                    moved = base.copy()
                    moved.flat[i] += step
                    tensor.set(moved, place)
                    out = exe.run(test, feed=feed, fetch_list=[spec["loss"].name])[0]
                    losses.append(float(np.array(out, dtype="float64").reshape(-1)[0]))
                numeric.flat[i] = (losses[0] - losses[1]) / 2e-3
            tensor.set(base, place)
            print(f"{name}: backward {np.round(grad.astype('float64'), 4).tolist()}")
            print(f"{name}: finite differences {np.round(numeric, 4).tolist()}")


if __name__ == "__main__":
    main()
