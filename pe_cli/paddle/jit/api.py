"""``paddle.jit`` in static mode. ``save(layer, path, input_spec)`` traces the layer (in eval mode)
over ``InputSpec`` feeds into an inference program of its own and writes Paddle's ``path.pdmodel`` and
``path.pdiparams`` (``paddle.static.save_inference_model``) from the parameters' values in the global
scope, which the program's startup run made: Paddle 2.6.2 loads it (``paddle.jit.load`` or
``paddle.static.load_inference_model``), so does ``pe infer``. Paddle 2.6.2 itself refuses jit.save
of a Layer in static mode (its ``to_static`` needs dygraph); pe, static only, saves it. ``to_static``
is a decorator that changes nothing in static mode (the function already builds static ops);
``load`` gives a TranslatedLayer, an eager object, and so is refused in one line naming
``paddle.static.load_inference_model``."""

import os

from ...base.errors import PeError, unsupported
from ...base.places import CPUPlace
from ...executor import Executor, global_scope
from ...framework import Program, program_guard
from ...io.static_io import save_inference_model
from ..input_spec import InputSpec
from ..nn.layer import Layer
from ..static import data as static_data

__all__ = [
    "save",
    "load",
    "to_static",
    "not_to_static",
    "ignore_module",
    "enable_to_static",
    "set_code_level",
    "set_verbosity",
    "TranslatedLayer",
]

INFER_MODEL_SUFFIX, INFER_PARAMS_SUFFIX = ".pdmodel", ".pdiparams"

TranslatedLayer = unsupported(
    "paddle.jit.TranslatedLayer",
    "a TranslatedLayer runs eagerly and pe runs static graphs only; load with paddle.static.load_inference_model",
)
load = unsupported(
    "paddle.jit.load",
    "it returns an eager TranslatedLayer and pe runs static graphs only; load the "
    "model with paddle.static.load_inference_model(path, exe)",
)


def save(layer, path, input_spec=None, **configs):
    """Writes ``path.pdmodel`` / ``path.pdiparams``: ``layer`` over feeds made from ``input_spec``."""
    if not isinstance(layer, Layer):
        raise PeError(
            f"paddle.jit.save: pe saves a paddle.nn.Layer, not a {type(layer).__name__}; for a program "
            f"built by hand use paddle.static.save_inference_model"
        )
    if not isinstance(path, str) or not path or os.path.basename(path) == "":
        raise ValueError(
            f"The input path MUST be format of dirname/file_prefix [dirname\\file_prefix in Windows "
            f"system], but received file_prefix is empty string: {path!r}"
        )
    unknown = set(configs) - {"output_spec", "clip_extra", "skip_forward", "skip_prune_program"}
    if unknown:
        raise ValueError(f"The additional config ({', '.join(sorted(unknown))}) of `paddle.jit.save` is not supported.")
    if input_spec is None:
        raise PeError(
            "paddle.jit.save: pe needs input_spec (a list of paddle.static.InputSpec) to trace the layer: "
            "it has no dygraph call to take the shapes from"
        )
    specs = [s if isinstance(s, InputSpec) else _spec_of(s, i) for i, s in enumerate(input_spec)]
    main, startup = Program(), Program()
    training = layer.training
    layer.eval()
    try:
        with program_guard(main, startup):
            feeds = [static_data(s.name or f"input_{i}", list(s.shape), s.dtype) for i, s in enumerate(specs)]
            outs = layer(*feeds)
    finally:
        layer.train() if training else None
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    output_spec = configs.get("output_spec")
    if output_spec is not None:
        names = {o.name for o in output_spec}
        outs = [o for o in outs if o.name in names]
    scope = global_scope()
    for var in main.global_block().all_parameters():
        if scope.find_var(var.name) is None or not scope.find_var(var.name).is_initialized():
            raise PeError(
                f"paddle.jit.save: parameter {var.name} has no value yet; run the startup program "
                f"(exe.run(paddle.static.default_startup_program())) before saving"
            )
    save_inference_model(path, feeds, outs, Executor(CPUPlace()), program=main)


def _spec_of(item, index):
    shape = getattr(item, "shape", None)
    if shape is None:
        raise TypeError(
            f"paddle.jit.save: input_spec[{index}] should be a paddle.static.InputSpec or a Variable, "
            f"got {type(item).__name__}"
        )
    return InputSpec(list(shape), getattr(item, "dtype", "float32"), getattr(item, "name", None))


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    """In static mode the decorated function or layer already builds static ops: returned as it is."""
    if function is None:
        return lambda fn: fn
    return function


def not_to_static(func=None):
    return func if func is not None else (lambda fn: fn)


def ignore_module(modules):
    """Modules dygraph-to-static would not transcribe: nothing to do in static mode."""
    return None


def enable_to_static(enable_to_static_bool):
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError(
            f"The type of 'enable_to_static_bool' must be bool, but received {type(enable_to_static_bool).__name__}"
        )


def set_code_level(level=100, also_to_stdout=False):
    """The transcribed code's log level: pe transcribes nothing."""


def set_verbosity(level=0, also_to_stdout=False):
    """Dygraph-to-static's log verbosity: pe transcribes nothing."""
