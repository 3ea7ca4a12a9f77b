"""``paddle.amp.auto_cast``: Paddle 2.6.2's dygraph AMP. Every entry point is dygraph-only there: called in
static mode it raises ``AssertionError: We only support '<name>()' in dynamic graph mode, please call
'paddle.disable_static()' to enter dynamic graph mode.``, and pe, which runs static graphs only, raises
the same for every call (``dygraph_only``). A static program's mixed precision is ``paddle.static.amp``."""

import copy  # noqa: F401 -- a name of Paddle's module
import functools
import warnings  # noqa: F401 -- a name of Paddle's module

from ...framework import static_mode
from .amp_lists import black_list, white_list  # noqa: F401

AMP_LEVEL = None  # Paddle's core.AmpLevel enum (O0..O3, OD) of its eager tracer, which pe does not have
AMP_RELATED_FLAGS = [
    "FLAGS_cudnn_exhaustive_search",
    "FLAGS_conv_workspace_size_limit",
    "FLAGS_cudnn_batchnorm_spatial_persistent",
]
AMP_RELATED_FLAGS_SETTING = {
    "FLAGS_cudnn_exhaustive_search": 1,
    "FLAGS_conv_workspace_size_limit": 1000,
    "FLAGS_cudnn_batchnorm_spatial_persistent": 1,
}


def dygraph_only(func):
    """``func`` as Paddle's dygraph_only decorator makes it: in static mode an AssertionError; in a program
    not in static mode (where Paddle runs it eagerly) pe's one line for an eager call."""

    @functools.wraps(func)
    def refused(*args, **kwargs):
        if not static_mode.entered_static():
            static_mode.refuse(f"paddle.amp's {func.__name__}()", "a static program uses paddle.static.amp")
        raise AssertionError(
            f"We only support '{func.__name__}()' in dynamic graph mode, please call 'paddle.disable_static()' "
            f"to enter dynamic graph mode."
        )

    return refused


class AMPGlobalState:
    """Paddle's record of the eager AMP state (off: pe has no eager mode)."""

    def __init__(self):
        self.model_parameters, self.use_master_grad, self.already_register_final_backward_hook = [], False, False
        self.amp_dtype = "float32"


_state = AMPGlobalState()


def amp_global_state():
    return _state


def amp_state():
    """The state of an enclosing ``auto_cast``: None (there is none in a static program)."""
    return None


@dygraph_only
def amp_guard(
    enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16", use_promote=True
):
    """Paddle 2.6.2's context of dygraph AMP: refused in static mode as Paddle refuses it."""


@dygraph_only
def amp_decorate(
    models,
    optimizers=None,
    level="O1",
    dtype="float16",
    master_weight=None,
    save_dtype=None,
    master_grad=False,
    excluded_layers=None,
):
    """Paddle 2.6.2's decorate of dygraph Layers: refused in static mode as Paddle refuses it."""


def auto_cast(
    enable=True, custom_white_list=None, custom_black_list=None, level="O1", dtype="float16", use_promote=True
):
    """Paddle 2.6.2's ``paddle.amp.auto_cast`` (its amp_guard): an AssertionError in static mode."""
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def decorate(
    models,
    optimizers=None,
    level="O1",
    dtype="float16",
    master_weight=None,
    save_dtype=None,
    master_grad=False,
    excluded_layers=None,
):
    """Paddle 2.6.2's ``paddle.amp.decorate`` (its amp_decorate): an AssertionError in static mode."""
    return amp_decorate(models, optimizers, level, dtype, master_weight, save_dtype, master_grad, excluded_layers)


@dygraph_only
def amp_initialize(models, dtype, excluded_layers):
    """Casts eager Layers' parameters: dygraph-only."""


@dygraph_only
def check_models(models):
    """Checks eager Layers given to decorate: dygraph-only."""


@dygraph_only
def check_optimizers(optimizers):
    """Checks optimizers given to decorate: dygraph-only."""


@dygraph_only
def need_keep_fp32(layer, dtype):
    """Whether an eager Layer stays float32 under decorate: dygraph-only."""


@dygraph_only
def set_excluded_layers(models, excluded_layers):
    """Marks eager Layers decorate leaves in float32: dygraph-only."""


class StateDictHook:
    """Paddle's hook casting a decorated Layer's state_dict to ``save_dtype``: dygraph-only."""

    def __init__(self, save_dtype):
        dygraph_only(StateDictHook)()
