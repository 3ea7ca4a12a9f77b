"""Recurrent blocks in model files: a ``static_rnn`` or ``dynamic_rnn`` layer (pe_cli/layers/rnn_blocks.py)
whose ``step`` lists layers as ``layers:`` does, over the step's own names:

    - rnn:
        type: dynamic_rnn
        step_inputs: {x: words}              # step name: a sequence feed or earlier layer
        static_inputs: {ctx: context}        # dynamic_rnn only: one row per sequence, seen at every step
        memories:
          h: {shape: [64], value: 0.0, update: h_new}     # or {init: a layer, update: ...}
        step:
          - h_new: {type: fc, input: [x, h, ctx], size: 64, act: tanh}
        outputs: [h_new]

Inside ``step`` a layer sees the step inputs, static inputs, memories and the step layers above it;
names outside the block are passed in through step_inputs/static_inputs or a memory's init. Checked
here (every mistake at its key); built by pe_cli/run/build_blocks.py."""

from .errors import ConfigError, collected, flatten, suggest
from .resolved import refs
from .schema import describe

BLOCK_TYPES = frozenset({"static_rnn", "dynamic_rnn"})
_MEMORY_KEYS = ("init", "shape", "value", "update")


def check_block(layer, n, layer_types, defined, positions, helpers):
    """Checks the block layer ``layer`` (layers[n]) and sets ``layer.block`` to its step's LayerSpecs;
    every mistake in it is reported at once. ``helpers``: pe_cli/config/model.py's layer_entry,
    check_layer, check_refs and tensor_args."""
    doc, path, args = layer.doc, layer.path, layer.args
    errors, inner = [], {}

    def attempt(check, *a):
        try:
            return check(*a)
        except ConfigError as e:
            errors.extend(flatten(e))

    for key in ("step_inputs", "static_inputs"):
        refs = attempt(_mapping, doc, path + (key,), args.get(key), key, key == "step_inputs") or {}
        for name, ref in refs.items():
            inner[name] = key
            attempt(helpers["check_refs"], doc, path + (key, name), ref, layer.name, defined, positions, n)
    memories = attempt(_mapping, doc, path + ("memories",), args.get("memories"), "memories", False) or {}
    for name, spec in memories.items():
        attempt(
            _check_memory,
            doc,
            path + ("memories", name),
            name,
            spec,
            layer,
            n,
            defined,
            positions,
            helpers["check_refs"],
        )
        attempt(_add_inner, doc, path + ("memories", name), name, "memory", inner)
    attempt(_check_steps, layer, layer_types, defined, inner, helpers)
    if layer.block is not None:
        made = [s.name for s in layer.block]
        for name, spec in memories.items():
            update = spec.get("update") if isinstance(spec, dict) else None
            if isinstance(update, str) and update not in made:
                errors.append(
                    doc.error(
                        path + ("memories", name, "update"),
                        f"memory '{name}' is updated by '{update}', which is not a layer of the step",
                        suggest(update, made),
                    )
                )
        attempt(_check_outputs, doc, path + ("outputs",), args.get("outputs"), made + list(inner))
    collected(errors)


def block_arguments(args):
    """A checked block layer's arguments as the build takes them (less ``step``, which it builds from
    the layer's ``block``): the outer references as Refs."""
    kwargs = {"step_inputs": {k: refs(v) for k, v in args["step_inputs"].items()}, "outputs": args["outputs"]}
    if args.get("static_inputs"):
        kwargs["static_inputs"] = {k: refs(v) for k, v in args["static_inputs"].items()}
    kwargs["memories"] = {
        name: dict(spec, init=refs(spec["init"])) if "init" in spec else dict(spec)
        for name, spec in (args.get("memories") or {}).items()
    }
    return kwargs


def _check_steps(layer, layer_types, defined, inner, helpers):
    doc, path, steps = layer.doc, layer.path, layer.args.get("step")
    if not isinstance(steps, list) or not steps:
        raise doc.error(
            path + ("step",),
            f"expected a list of the step's layers, got {describe(steps)}",
            "e.g. step: [{h_new: {type: fc, input: [x, h], size: 32, act: tanh}}]",
        )
    layer.block = [
        helpers["layer_entry"](doc, j, entry, path + ("step",), f"{layer.name}.step[{j}]")
        for j, entry in enumerate(steps)
    ]
    errors, scope = [], {name: None for name in inner}
    step_positions = {s.name: j for j, s in enumerate(layer.block)}
    for j, step in enumerate(layer.block):
        try:
            if step.name in inner:
                raise doc.error(
                    step.path,
                    f"the name '{step.name}' is already the block's {inner[step.name]}",
                    "give each step layer its own name",
                    key=True,
                )
            _outside(step, scope, defined, helpers)
            helpers["check_layer"](step, j, layer_types, scope, step_positions)
        except ConfigError as e:
            errors += flatten(e)
            scope.setdefault(step.name, step)
    collected(errors)


def _mapping(doc, path, value, key, required):
    if value is None and not required:
        return {}
    if not isinstance(value, dict) or not value:
        raise doc.error(
            path,
            f"expected a mapping of step names, got {describe(value)}",
            f"e.g. {key}: {{x: words}}" if key != "memories" else "e.g. memories: {h: {shape: [32], update: h_new}}",
        )
    return value


def _add_inner(doc, path, name, what, inner):
    if name in inner:
        raise doc.error(path, f"the name '{name}' is already the block's {inner[name]}", "rename one", key=True)
    inner[name] = what


def _check_memory(doc, path, name, spec, layer, n, defined, positions, check_refs):
    if not isinstance(spec, dict):
        raise doc.error(
            path,
            f"expected a mapping (init or shape, and update), got {describe(spec)}",
            f"e.g. {name}: {{shape: [32], value: 0.0, update: <step layer>}}",
        )
    for key in spec:
        if key not in _MEMORY_KEYS:
            raise doc.error(
                path + (key,), f"unknown key '{key}' of memory '{name}'", suggest(key, _MEMORY_KEYS), key=True
            )
    if "update" not in spec or not isinstance(spec["update"], str):
        raise doc.error(
            path,
            f"memory '{name}' needs update: the name of the step layer that updates it",
            "add 'update: <step layer>'",
        )
    if ("init" in spec) == ("shape" in spec):
        raise doc.error(
            path,
            f"memory '{name}' needs exactly one of init (a feed or earlier layer) and shape",
            "e.g. shape: [32] (with value: 0.0), or init: <layer>",
        )
    if "init" in spec:
        check_refs(doc, path + ("init",), spec["init"], layer.name, defined, positions, n)
    shape = spec.get("shape")
    if "shape" in spec and (
        not isinstance(shape, list)
        or not shape
        or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape)
    ):
        raise doc.error(
            path + ("shape",),
            f"expected the memory's shape without the batch, positive integers, got {describe(shape)}",
            "e.g. shape: [32]",
        )
    value = spec.get("value", 0.0)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise doc.error(path + ("value",), f"expected a number, got {describe(value)}", "e.g. value: 0.0")


def _outside(step, scope, defined, helpers):
    """A step layer naming a feed or layer outside the block gets told how to bring it in."""
    for key, value in step.args.items():
        if key not in helpers["tensor_args"]:
            continue
        for j, ref in enumerate(value if isinstance(value, list) else [value]):
            base = ref.split("[")[0] if isinstance(ref, str) else None
            if base is not None and base not in scope and base in defined:
                where = step.path + ((key, j) if isinstance(value, list) else (key,))
                raise step.doc.error(
                    where,
                    f"'{base}' is outside the block; a step layer sees only the step's "
                    f"names ({', '.join(scope) or 'none'})",
                    f"pass it in: static_inputs: {{{base}: {base}}} (dynamic_rnn), step_inputs, or a memory's init",
                )


def _check_outputs(doc, path, outputs, known):
    names = [outputs] if isinstance(outputs, str) else outputs
    if not isinstance(names, list) or not names:
        raise doc.error(
            path,
            f"expected the names of step layers to output, got {describe(outputs)}",
            f"e.g. outputs: [{known[0]}]",
        )
    for j, name in enumerate(names):
        if name not in known:
            where = path + (j,) if isinstance(outputs, list) else path
            raise doc.error(where, f"'{name}' is not a layer of the step", suggest(str(name), known))
