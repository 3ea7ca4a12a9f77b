"""The numpy 1.x and Python 3.8 names Fluid 1.x programs use, given back under ``pe fluid``.

Fluid 1.8 ran on numpy 1.x and Python <= 3.8, and the programs written for it call ``np.product``,
``np.bool``, ``np.float``, ``np.asscalar``, ... (removed by numpy 1.24 and 2.0) and
``collections.Sequence``, ``collections.Iterable``, ... (moved to ``collections.abc``; Python 3.10
removed the old names). ``pe fluid`` (this process only, like its import hook) sets each missing one
to what it was; a name still there is left alone, and importing pe as a library changes nothing.
numpy 1.x's ``float()``/``int()`` of any array of one element comes back too (numpy_scalars.py), and
so do Pillow's resampling names Pillow 10 removed (``Image.ANTIALIAS``, ``LINEAR``, ``CUBIC``: the
filters ``LANCZOS``, ``BILINEAR``, ``BICUBIC`` they always named), where Pillow is installed, and
Python 3.8's ``random.sample`` of a set (its tuple, as 3.8 sampled it; Python 3.11 refuses a set:
test_target_assign_op.py samples one).
"""

import builtins
import collections
import collections.abc
import random

import numpy as np

from . import numpy_scalars

ALIASES = {
    "product": np.prod,
    "cumproduct": np.cumprod,
    "sometrue": np.any,
    "alltrue": np.all,
    "asscalar": lambda a: a.item(),
    "bool": builtins.bool,
    "int": builtins.int,
    "float": builtins.float,
    "complex": builtins.complex,
    "object": builtins.object,
    "str": builtins.str,
    "unicode": builtins.str,
    "float_": np.float64,
    "complex_": np.complex128,
    "unicode_": np.str_,
    "string_": np.bytes_,
    "Inf": np.inf,
    "Infinity": np.inf,
    "PINF": np.inf,
    "NINF": -np.inf,
    "NaN": np.nan,
    "NAN": np.nan,
}


PIL_ALIASES = {"ANTIALIAS": "LANCZOS", "LINEAR": "BILINEAR", "CUBIC": "BICUBIC"}

ABC_NAMES = (
    "Sequence",
    "MutableSequence",
    "Mapping",
    "MutableMapping",
    "Set",
    "MutableSet",
    "Iterable",
    "Iterator",
    "Generator",
    "Callable",
    "Hashable",
    "Sized",
    "Container",
    "Collection",
)


def install():
    """Sets every alias numpy and collections lack (the names they have are kept)."""
    for name, value in ALIASES.items():
        if name not in vars(np):  # a removed name is absent (numpy's __getattr__ raises for it)
            setattr(np, name, value)
    for name in ABC_NAMES:
        if not hasattr(collections, name):
            setattr(collections, name, getattr(collections.abc, name))
    numpy_scalars.install()
    _install_pil()
    _install_sample_of_a_set()


def _install_sample_of_a_set():
    sample = random.Random.sample
    if getattr(sample, "takes_sets", False):
        return

    def sample_of_a_set(self, population, k, **kwargs):
        if isinstance(population, collections.abc.Set):
            population = tuple(population)  # Python 3.8's: its order
        return sample(self, population, k, **kwargs)

    sample_of_a_set.takes_sets = True
    random.Random.sample = sample_of_a_set
    random.sample = random._inst.sample  # the module's function: the shared instance's bound method


def _install_pil():
    try:
        from PIL import Image
    except ImportError:
        return
    for name, kept in PIL_ALIASES.items():
        if not hasattr(Image, name):
            setattr(Image, name, getattr(Image, kept))
