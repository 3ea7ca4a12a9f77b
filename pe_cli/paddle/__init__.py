"""The companion of the Fluid face: ``paddle.batch``, ``paddle.reader`` and ``paddle.dataset``
(local files only), and Paddle 2.x's static face (seed 002): ``enable_static``, ``paddle.static``,
``paddle.optimizer`` (and its ``lr`` schedulers), ``paddle.nn`` (nn/), ``paddle.io``, ``paddle.metric``,
``paddle.regularizer``, ``paddle.vision.transforms``, ``paddle.linalg``, ``paddle.inference``,
``paddle.incubate``, ``paddle.geometric``, ``paddle.autograd`` (static-mode parts), the places, and the top-level tensor functions
(``paddle.add``, ``paddle.matmul``, ``paddle.sum``, ``paddle.reshape``, ``paddle.full``, ...: tensor_*.py,
over pe's layers) with the device, dtype and seed names (device.py). Dygraph names and what pe lacks
are one-line stand-ins (device.py). ``pe fluid SCRIPT.py`` makes ``import paddle`` land here;
importing pe never does."""

import sys as _sys

from ..base.places import CPUPlace, CUDAPlace  # noqa: F401
from . import dataset, io, metric, nn, optimizer, reader, regularizer, static, tensor, text, vision  # noqa: F401
from . import autograd, framework, geometric, hapi, incubate, inference, jit, linalg, pir, pir_utils, utils  # noqa: F401
from . import amp  # noqa: F401 -- Paddle 2.6 imports it with the package (its auto_cast: a function and a module)
from . import complex, distributed, sysconfig  # noqa: F401 -- Paddle 1.8's modules
from .check_import_scipy import check_import_scipy  # noqa: F401,F811 -- the function, as Paddle's package holds it
from .framework import in_dynamic_mode  # noqa: F401
from .framework.random import get_cuda_rng_state, get_rng_state, set_cuda_rng_state, set_rng_state  # noqa: F401
from .tensor.to_string import set_printoptions  # noqa: F401
from ..layers.checks import check_shape  # noqa: F401
from .variable_methods import patch_variable as _patch_variable
from .framework.io import load, patch_program as _patch_program, save  # noqa: F401
from ..framework import program_release as _program_release
from ..framework import static_mode as _static_mode
from .batch import batch  # noqa: F401
from ..fluid import version as _version
from . import device as _device
from .device import *  # noqa: F401,F403
from .tensor_create import *  # noqa: F401,F403
from .tensor_random import *  # noqa: F401,F403
from .tensor_manip import *  # noqa: F401,F403
from .tensor_math import *  # noqa: F401,F403
from .tensor_linalg import *  # noqa: F401,F403
from .tensor_elementwise import *  # noqa: F401,F403
from .tensor_reduce import *  # noqa: F401,F403
from .tensor_arrange import *  # noqa: F401,F403
from .tensor_inplace import *  # noqa: F401,F403
from .tensor_bitwise import *  # noqa: F401,F403
from .linalg_ops import eigvalsh  # noqa: F401 -- paddle.eigvalsh, as Paddle 2.6's package holds it
from .tensor_number import *  # noqa: F401,F403
from .tensor_select import *  # noqa: F401,F403
from .tensor_quantile import *  # noqa: F401,F403
from .tensor_special import *  # noqa: F401,F403
from .tensor_complex import *  # noqa: F401,F403
from .tensor_indexing_axis import *  # noqa: F401,F403
from .tensor_statistics import *  # noqa: F401,F403
from .tensor_cumulative import *  # noqa: F401,F403

from . import distribution  # noqa: F401,E402 -- Paddle 2.x's (1.8.5's is empty), built on the functions above

complex = _sys.modules[__name__ + ".complex"]  # noqa: A001,F811 -- 1.8.5's module, callable as 2.x's paddle.complex(re, im)

_patch_variable(tensor)
_patch_program()
from .eager_tensor import Tensor  # noqa: F401,E402
from . import c_ops as _C_ops  # noqa: F401,E402 -- paddle._C_ops: eager op functions, each refused

globals().update({_n: _f for _n, _f in _device.stand_ins().items() if _n not in globals()})


def __getattr__(name):
    """``paddle.__version__`` and ``paddle.__git_commit__``: the release the program sees, read when asked
    (``paddle.version``'s fields: Paddle 2.6.2's for a Paddle 2.x program run by ``pe fluid``, else Fluid
    1.8.5's; pe_cli/fluid/version.py)."""
    if name == "__version__":
        return _version.full_version
    if name == "__git_commit__":
        return _version.commit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}", name=name, obj=_sys.modules[__name__])


def enable_static():
    """pe always builds static graphs; programs made from now on follow Paddle 2.6 where it differs
    from Fluid 1.8 (integer ``/`` in float32, type promotion, ...: pe_cli/framework/program_release.py)."""
    _static_mode.enter_static()
    _program_release.follow_paddle2(True, (static.default_main_program(), static.default_startup_program()))


def disable_static(place=None):
    """Leaves static mode, as Paddle 2.x programs do on their last line once the static work ran: what
    the program builds after it would run eagerly in Paddle, and pe refuses that in one line naming the
    call (pe_cli/framework/static_mode.py); what it built and ran before stands."""
    if place is not None and not isinstance(place, (CPUPlace, CUDAPlace, str)):
        raise TypeError(f"paddle.disable_static: place should be a CPUPlace or CUDAPlace, got {type(place).__name__}")
    _static_mode.leave_static()
