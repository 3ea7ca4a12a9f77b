"""The names YAML may use, read from the engine's own modules (never a second list):

- layer types: pe_cli/layers/layer_index.py's LAYER_TYPES, which tools/layer_index.py writes from the
  code: the layer functions exported by ``pe_cli.layers`` (less ``data``, which feeds use, the
  learning-rate schedules, which ``optimizer.learning_rate`` uses, the py_reader family and the
  stand-ins of Fluid names pe lacks), and paddle.nn's class names (``pe_cli.layers.paddle_nn``); a
  layer type's module is imported when the type is looked up;
- optimizers: the ``Optimizer`` classes of ``pe_cli.training.optimizer`` and ``optimizer_adaptive``;
- schedules: ``pe_cli.layers.lr_schedule.__all__``;
- initializers, regularizers, clips: the classes of their modules.
"""

import functools
import importlib
import inspect
from collections.abc import Mapping

from ..training import clip as C
from ..training import initializer as I
from ..training import optimizer as O
from ..training import optimizer_adaptive as OA
from ..training import regularizer as R
from ..layers import layer_index
from ..layers import lr_schedule as lrs
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


class _LayerTypes(Mapping):
    """Layer type -> layer function; a function's module is imported when it is looked up."""

    def __init__(self):
        self._module = {name: m for m, names in layer_index.LAYER_TYPES.items() for name in names.split()}

    def __contains__(self, name):
        return name in self._module

    def __getitem__(self, name):
        return getattr(importlib.import_module(f"pe_cli.layers.{self._module[name]}"), name)

    def __iter__(self):
        return iter(self._module)

    def __len__(self):
        return len(self._module)


def layers():
    return Namespace("layer type", _LayerTypes())


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
