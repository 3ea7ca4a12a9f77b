"""Out-kernels of the recurrent op (StaticRNN) and its gradient (meta rules: shapes/control_flow.py; their
kernels by name: control_flow.py's adapters), for any device: the step block runs on
the op's device through the BlockRunner (its context's ``block``); the time slices and the stacked outputs
and gradients are handled on the host, moved with ``to_device``/``to_host`` (the identity on the CPU;
the CUDA module passes its runtime's)."""

import numpy as np

from .runtime.loops import add_same, is_float


def _same(x):
    return x


def _accumulate(total, g):
    """total += g: for large float arrays in chunks on the device's threads (add_same: numpy's bits)."""
    if total.shape == g.shape and is_float(total, g) and total.flags.c_contiguous:
        add_same(total, g, total)
    else:
        total += g


def recurrent_out(ins, outs, attrs, meta, ctx, to_device=_same, to_host=np.asarray):
    block = ctx.block
    env = block.env(ins, ctx.lod)
    xs = [to_host(x) for x in ins.get("inputs") or []]
    steps = len(xs[0]) if xs else 0
    states = list(ins.get("initial_states") or [])
    # the step block's names: the op's own (Fluid's), or those attributes name (pe's older programs)
    step_inputs = attrs.get("step_inputs") or block.op.input("inputs")
    step_outputs = attrs.get("step_outputs") or block.op.output("outputs")
    outputs = [[] for _ in step_outputs]
    scopes = []
    order = range(steps - 1, -1, -1) if attrs["reverse"] else range(steps)
    for t in order:
        scope = block.child(env)
        for name, x in zip(step_inputs, xs):
            scope[name] = to_device(np.ascontiguousarray(x[t]))
        for name, state in zip(attrs["ex_states"], states):
            scope[name] = state
        block.run(scope)
        states = [scope[n] for n in attrs["states"]]
        for out, name in zip(outputs, step_outputs):
            out.append(to_host(scope[name]))
        scopes.append(scope)
    if attrs["reverse"]:
        outputs = [out[::-1] for out in outputs]
    outs["outputs"], outs["step_scopes"] = [to_device(np.stack(out)) for out in outputs], scopes


def recurrent_grad_out(ins, outs, attrs, meta, ctx, to_device=_same, to_host=np.asarray):
    block = ctx.block
    scopes = ins["step_scopes"]
    out_grads = [to_host(g) for g in ins.get("outputs@GRAD") or []]
    xs, params = ins.get("inputs") or [], [to_host(p) for p in ins.get("parameters") or []]
    state_grads = [to_device(np.zeros_like(to_host(s))) for s in ins.get("initial_states") or []]
    x_grads = [np.zeros_like(to_host(x)) for x in xs]
    p_grads = [np.zeros_like(p) for p in params]
    steps = len(scopes)
    for k in range(steps - 1, -1, -1):
        t = steps - 1 - k if attrs["reverse"] else k
        scope = block.child(scopes[k])
        for name, og in zip(attrs["out_grads"], out_grads):
            scope[name] = to_device(np.ascontiguousarray(og[t]))
        for name, sg in zip(attrs["state_grads"], state_grads):
            scope[name] = sg
        block.run(scope)
        state_grads = [scope[n] for n in attrs["ex_state_grads"]]
        for grad, name in zip(x_grads, attrs["input_grads"]):
            grad[t] = to_host(scope[name])
        for j, name in enumerate(attrs["parameter_grads"]):
            if name:
                _accumulate(p_grads[j], to_host(scope[name]))
    outs["inputs@GRAD"] = [to_device(g) for g in x_grads]
    outs["initial_states@GRAD"] = state_grads
    outs["parameters@GRAD"] = [to_device(g) for g in p_grads]


recurrent_out.takes_context = recurrent_grad_out.takes_context = True  # (the block run; the device's copies)
recurrent_out.launches = recurrent_grad_out.launches = None
