"""``pe summary``: a model file as a table, one row per feed and layer, as Keras users know it: the
layer's type, its output shape, its parameter count and the model-file line that declares it. Given a
run directory (or a checkpoint in one), the model is the run's record in force at that checkpoint
(run/run_record.py; the best checkpoint where the run kept one), said on a first line."""

from ..base.dims import numel
from ..framework import Parameter
from .build import build_programs
from .graphcmd import load_spec, run_record


def _params_by_layer(program):
    """{layer location: [Parameter]}: each parameter goes to the first layer whose ops read it. A
    model file's layer is found by where it is declared (its ops' source): a layer function without
    a ``name`` argument (embedding) names its ops and parameters after itself (embedding_0)."""
    owner, block = {}, program.global_block()
    for op in block.ops:
        for name in op.input_arg_names:
            var = block.vars.get(name)
            if isinstance(var, Parameter) and name not in owner:
                owner[name] = (op.source, var)
    by_layer = {}
    for layer, var in owner.values():
        by_layer.setdefault(layer, []).append(var)
    return by_layer


def _shape(value):
    values = value if isinstance(value, (tuple, list)) else (value,)
    return "  ".join(str(list(v.shape)) if v.shape is not None else "?" for v in values)


def summary(path, overrides=()):
    """The table of ``path`` (a run config, a model file, a run directory or a checkpoint) as text."""
    path, head, run_dir = run_record(path, overrides, "pe summary")
    spec, cfg = load_spec(path, overrides, run_dir)
    return head + summary_table(spec, build_programs(spec, cfg, with_optimizer=False))


def summary_table(spec, programs):
    """The table of a model spec built into ``programs`` (run.build.Programs) as text; ``pe train``
    prints it before the first step."""
    model, params = programs.model, _params_by_layer(programs.test)
    rows = [(f"{name} (feed)", _shape(model.vars[name]), "0", "") for name in spec.feeds]
    total = trainable = 0
    for layer in spec.layers:
        mine = params.get(layer.location, [])
        count = sum(numel(p.shape) for p in mine)
        total += count
        trainable += sum(numel(p.shape) for p in mine if p.trainable)
        rows.append((f"{layer.name} ({layer.type})", _shape(model.vars[layer.name]), f"{count:,}", layer.location))
    head = ("Layer (type)", "Output shape", "Params", "Declared at")
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    line = "  ".join("-" * w for w in widths)

    def fmt(r):
        return f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  {r[3]}".rstrip()

    out = [f"Model: {spec.name}", line, fmt(head), line] + [fmt(r) for r in rows] + [line]
    out += [
        f"Total params: {total:,} ({total * 4 / 1024:.1f} KiB as float32)",
        f"Trainable params: {trainable:,}",
        f"Non-trainable params: {total - trainable:,}",
    ]
    return "\n".join(out) + "\n"
