"""Kernels of the control-flow ops (pe_cli/ops/control_flow.py). The block ops run their block
through ``attrs["_block"]`` (a BlockRunner: ``env``, ``child``, ``run``); they compute nothing
themselves, so the CUDA module serves them too (values are read on the host only for a condition).
A tensor array's value is a Python list of tensors."""
import numpy as np

from ...errors import PeError


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def _compare(fn):
    def kernel(ins, attrs):
        x, y = ins["X"], ins["Y"]
        axis = attrs.get("axis", -1)
        if y.ndim and y.ndim < x.ndim and axis not in (-1, x.ndim - y.ndim):
            y = y.reshape(y.shape + (1,) * (x.ndim - axis - y.ndim))
        return {"Out": fn(x, y)}
    return kernel


less_than = _compare(np.less)
less_equal = _compare(np.less_equal)
greater_than = _compare(np.greater)
greater_equal = _compare(np.greater_equal)
equal = _compare(np.equal)
not_equal = _compare(np.not_equal)


def logical_not(ins, attrs):
    return {"Out": np.logical_not(ins["X"])}


def logical_and(ins, attrs):
    return {"Out": np.logical_and(ins["X"], ins["Y"])}


def logical_or(ins, attrs):
    return {"Out": np.logical_or(ins["X"], ins["Y"])}


def logical_xor(ins, attrs):
    return {"Out": np.logical_xor(ins["X"], ins["Y"])}


# -- tensor arrays ------------------------------------------------------------------------------------

def _index(i, what):
    flat = _host(i).reshape(-1)
    if flat.size != 1:
        raise PeError(f"{what}: the index must hold one value, it holds {flat.size}")
    return int(flat[0])


def create_array(ins, attrs):
    return {"Out": []}


def array_write(ins, attrs):
    array = list(ins.get("Array") or [])
    i = _index(ins["I"], "array_write")
    if i < 0:
        raise PeError(f"array_write: index {i} is negative")
    array.extend([None] * (i + 1 - len(array)))
    array[i] = ins["X"]
    return {"Out": array}


def array_read(ins, attrs):
    array, i = ins["Array"], _index(ins["I"], "array_read")
    if not 0 <= i < len(array) or array[i] is None:
        raise PeError(f"array_read: index {i} is out of range of array '{attrs.get('_array_name', 'Array')}' "
                      f"({len(array)} slots{'' if not 0 <= i < len(array) else ', that slot never written'})")
    return {"Out": array[i]}


def array_length(ins, attrs):
    return {"Out": np.array([len(ins["Array"])], dtype=np.int64)}


# -- ops that own a block -------------------------------------------------------------------------------

def _holds(cond, scalar=True):
    value = _host(cond)
    if not scalar:
        return value.size > 0
    if value.size != 1:
        raise PeError(f"the condition must hold one value, it holds {value.size}")
    return bool(value.reshape(-1)[0])


def while_loop(ins, attrs):
    block = attrs["_block"]
    env = block.env(ins, attrs)
    cond = block.op.input("Condition")[0]
    limit, count = attrs["max_iterations"], 0
    while _holds(env[cond]):
        count += 1
        if count > limit:
            where = f" built at {block.op.source}" if block.op.source else ""
            raise PeError(f"while loop{where} ran {limit} iterations and its condition '{cond}' still holds; "
                          f"does the loop update it? (raise the op's max_iterations if it must run longer)")
        block.run(block.child(env))
    return {"Out": [env[n] for n in block.op.output("Out")]}


def conditional_block(ins, attrs):
    block = attrs["_block"]
    conds = ins["Cond"]
    if not all(_holds(c, attrs["is_scalar_condition"]) for c in conds):
        return {}
    env = block.env(ins, attrs)
    block.run(block.child(env))
    return {"Out": [env[n] for n in block.op.output("Out")]}


def recurrent(ins, attrs):
    block = attrs["_block"]
    env = block.env(ins, attrs)
    xs = ins.get("inputs") or []
    steps = len(xs[0]) if xs else 0
    states = list(ins.get("initial_states") or [])
    outputs = [[] for _ in attrs["step_outputs"]]
    scopes = []
    order = range(steps - 1, -1, -1) if attrs["reverse"] else range(steps)
    for t in order:
        scope = block.child(env)
        for name, x in zip(attrs["step_inputs"], xs):
            scope[name] = x[t]
        for name, state in zip(attrs["ex_states"], states):
            scope[name] = state
        block.run(scope)
        states = [scope[n] for n in attrs["states"]]
        for out, name in zip(outputs, attrs["step_outputs"]):
            out.append(scope[name])
        scopes.append(scope)
    if attrs["reverse"]:
        outputs = [out[::-1] for out in outputs]
    return {"outputs": [np.stack(out) for out in outputs], "step_scopes": scopes}


def recurrent_grad(ins, attrs):
    block = attrs["_block"]
    scopes, out_grads = ins["step_scopes"], ins.get("outputs@GRAD") or []
    xs, params = ins.get("inputs") or [], ins.get("parameters") or []
    state_grads = [np.zeros_like(s) for s in ins.get("initial_states") or []]
    x_grads = [np.zeros_like(x) for x in xs]
    p_grads = [np.zeros_like(p) if name else None for p, name in zip(params, attrs["parameter_grads"])]
    steps = len(scopes)
    for k in range(steps - 1, -1, -1):
        t = steps - 1 - k if attrs["reverse"] else k
        scope = block.child(scopes[k])
        for name, og in zip(attrs["out_grads"], out_grads):
            scope[name] = og[t]
        for name, sg in zip(attrs["state_grads"], state_grads):
            scope[name] = sg
        block.run(scope)
        state_grads = [scope[n] for n in attrs["ex_state_grads"]]
        for grad, name in zip(x_grads, attrs["input_grads"]):
            grad[t] = scope[name]
        for j, name in enumerate(attrs["parameter_grads"]):
            if name:
                p_grads[j] = p_grads[j] + scope[name]
    p_grads = [g if g is not None else np.zeros_like(p) for g, p in zip(p_grads, params)]
    return {"inputs@GRAD": x_grads, "initial_states@GRAD": state_grads, "parameters@GRAD": p_grads}


def fill_constant_batch_size_like(ins, attrs):
    shape = list(attrs["shape"])
    shape[attrs["output_dim_idx"]] = np.shape(ins["Input"])[attrs["input_dim_idx"]]
    return {"Out": np.full(shape, attrs["value"], dtype=attrs["dtype"])}
