"""``paddle.framework.random``: the random state of Paddle 2.6 (``get_rng_state``, ``set_rng_state``,
``get_cuda_rng_state``, ``set_cuda_rng_state``) over pe's one default generator
(framework/default_generator.py), from which the unseeded random ops of every place draw their streams'
seeds (pe's CUDA random ops draw on the host); and ``_manual_program_seed``, which Paddle 2.6's tests
use to seed a static program."""

from ...base.places import CUDAPlace
from ...fluid.core import get_cuda_device_count
from ...framework import default_generator, default_main_program, default_startup_program

__all__ = []


def _manual_program_seed(seed):
    """Sets the default main and startup programs' ``random_seed`` (Paddle also seeds its global
    generator; pe's random ops draw from their program's seed)."""
    default_main_program().random_seed = int(seed)
    default_startup_program().random_seed = int(seed)


def _is_gpu(device):
    if isinstance(device, CUDAPlace):
        return True
    return device is not None and str(device).lower().split(":")[0] == "gpu"


def get_rng_state(device=None):
    """[the generator's state]: one for the CPU, one per CUDA device for a GPU ``device``."""
    return get_cuda_rng_state() if _is_gpu(device) else [default_generator.get_state()]


def set_rng_state(state_list, device=None):
    """Puts the generator back to a state get_rng_state gave (one state; one per CUDA device for a GPU)."""
    if _is_gpu(device):
        set_cuda_rng_state(state_list)
        return
    if len(state_list) != 1:
        raise ValueError("Length of cpu state list shoule be equal to 1")
    default_generator.set_state(state_list[0])


def get_cuda_rng_state():
    """One state per CUDA device (each the one generator's, which pe's CUDA random ops draw from); [] without
    CUDA, as Paddle."""
    return [default_generator.get_state() for _ in range(get_cuda_device_count())]


def set_cuda_rng_state(state_list):
    count = get_cuda_device_count()
    if not count:
        return
    if len(state_list) != count:
        raise ValueError("Length of cuda state list shoule be equal to the cuda device count")
    default_generator.set_state(state_list[0])
