"""``paddle.fluid.layers.device``: ``get_places``, the list of places a program may run on.
(``fluid.layers`` is pe_cli.layers itself; ``pe fluid`` maps this one submodule here.)"""
from ..kernels import cuda_places, is_compiled_with_cuda
from ..base.places import cpu_places

__all__ = ["get_places"]


def get_places(device_count=None, device_type=None):
    """Places of ``device_type`` ('CPU' or 'CUDA'; None: CUDA when pe has it, else CPU), the first
    ``device_count`` of them (None or 0: all)."""
    kind = (device_type or ("CUDA" if is_compiled_with_cuda() else "CPU")).upper()
    if kind not in ("CPU", "CUDA"):
        raise ValueError(f"get_places: device_type must be 'CPU' or 'CUDA', got {device_type!r}")
    if kind == "CPU":
        return cpu_places(device_count or None)
    places = cuda_places()
    return places[:device_count] if device_count else places
