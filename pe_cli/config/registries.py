"""The names YAML may use, read from the engine's own modules (never a second list):

- layer types: the layer functions exported by ``pe_cli.layers`` (less ``data``, which feeds use,
  the learning-rate schedules, which ``optimizer.learning_rate`` uses, and the stand-ins of Fluid
  names pe lacks), and paddle.nn's class names (``pe_cli.layers.paddle_nn``);
- optimizers: the ``Optimizer`` classes of ``pe_cli.training.optimizer`` and ``optimizer_adaptive``;
- schedules: ``pe_cli.layers.lr_schedule.__all__``;
- initializers, regularizers, clips: the classes of their modules.
"""

import functools
import inspect

from ..training import clip as C
from ..training import initializer as I
from .. import layers as L
from ..training import optimizer as O
from ..training import optimizer_adaptive as OA
from ..training import regularizer as R
from ..layers import lr_schedule as lrs
from ..layers import paddle_nn
from ..layers import readers
from .typed import Namespace


def _classes(module, base, skip=()):
    return {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and issubclass(obj, base)
        and obj is not base
        and not name.startswith("_")
        and name not in skip
    }


@functools.lru_cache(maxsize=None)
def schedules():
    return Namespace("learning-rate schedule", {n: getattr(lrs, n) for n in lrs.__all__})


def layers():
    # the py_reader family feeds a Python script's program; a model file has feeds
    skip = {"data"} | set(schedules().members) | set(readers.__all__)
    members = {
        name: fn
        for name, fn in vars(L).items()
        if not name.startswith("_")
        and inspect.isfunction(fn)
        and name not in skip
        and not getattr(fn, "_pe_not_yet", False)
    }  # Fluid's names pe lacks (layers/not_yet.py)
    members.update({name: getattr(paddle_nn, name) for name in paddle_nn.__all__})  # paddle.nn's 2.x names
    return Namespace("layer type", members)


def optimizers():
    return Namespace("optimizer", {**_classes(O, O.Optimizer), **_classes(OA, O.Optimizer)}, strip=("optimizer",))


def initializers():
    return Namespace("initializer", _classes(I, I.Initializer), strip=("initializer",))


def regularizers():
    return Namespace("regularizer", _classes(R, R.WeightDecayRegularizer), strip=("regularizer",))


def clips():
    base = getattr(C, "GradientClipBase", None)
    members = _classes(C, base) if base is not None else {}
    return Namespace("gradient clip", members, strip=("gradientclipby", "gradientclip", "by"))
