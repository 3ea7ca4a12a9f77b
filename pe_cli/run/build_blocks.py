"""Builds a model file's recurrent block (a ``static_rnn`` / ``dynamic_rnn`` layer checked and resolved
by pe_cli/config/model_blocks.py): its outer references become variables and its ``step`` list becomes
the step function pe_cli/layers/rnn_blocks.py calls inside the block, each step layer built by the
same routine as a top-level layer."""


def block_arguments(built, layer, build_layer):
    """The keyword arguments of the block's layer function (less ``name``)."""
    args = layer.kwargs
    kwargs = {"step_inputs": {k: built.var(v) for k, v in args["step_inputs"].items()}, "outputs": args["outputs"]}
    if args.get("static_inputs"):
        kwargs["static_inputs"] = {k: built.var(v) for k, v in args["static_inputs"].items()}
    kwargs["memories"] = {
        name: dict(spec, init=built.var(spec["init"])) if "init" in spec else dict(spec)
        for name, spec in args["memories"].items()
    }

    def step(inner):
        scope = type(built)(built.spec, dict(inner), [])
        for s in layer.block:
            scope.vars[s.name] = build_layer(scope, s)
        return scope.vars

    kwargs["step"] = step
    return kwargs
