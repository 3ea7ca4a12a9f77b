"""Functions of Fluid's core (``paddle.fluid.core``) that are pe's to do: the IR graph helpers over
``core.Graph`` (topology_sort, has_circle, graph_num, ...), the profiler switches, tensor and dtype
helpers, the feed shape check, program pruning by op index, gflags, and the shell command runner."""

import subprocess

import numpy as np

from . import profiler as _fluid_profiler
from .core_names import EventSortingKey, ProfilerState, TracerOption
from .flags import set_flags
from .unsupported import NATIVE, unsupported
from ..base import profiler as _base_profiler
from ..base.dtypes import convert_dtype
from ..framework.operator import OpRole
from ..framework.prune import prune_with_input
from ..compiler.ir_graph_order import build_adjacency_list, graph_num, has_circle, topology_sort  # noqa: F401


# -- the IR graph (pe_cli/compiler/ir_graph.py, ir_graph_order.py) ----------------------------------
def graph_safe_remove_nodes(graph, nodes):
    """Removes ``nodes`` from the graph and from the edges of the nodes left."""
    for node in nodes:
        for other in node.inputs:
            other.remove_output(node)
        for other in node.outputs:
            other.remove_input(node)
        graph.remove_node(node)


# -- the profiler (pe_cli/fluid/profiler.py) --------------------------------------------------------
_STATES = {ProfilerState.kCPU: "CPU", ProfilerState.kCUDA: "GPU", ProfilerState.kAll: "All"}
_KEYS = {
    EventSortingKey.kDefault: None,
    EventSortingKey.kCalls: "calls",
    EventSortingKey.kTotal: "total",
    EventSortingKey.kMin: "min",
    EventSortingKey.kMax: "max",
    EventSortingKey.kAve: "ave",
}
_TRACER = {"option": TracerOption.kDefault}


def enable_profiler(state):
    if ProfilerState(state) != ProfilerState.kDisabled:
        _fluid_profiler.start_profiler(_STATES[ProfilerState(state)], TracerOption(_TRACER["option"]).name[1:])


def disable_profiler(sorted_key, profile_path):
    _fluid_profiler.stop_profiler(_KEYS[EventSortingKey(sorted_key)], profile_path)


def reset_profiler():
    _fluid_profiler.reset_profiler()


def is_profiler_enabled():
    return _base_profiler.active() is not None


def set_tracer_option(option):
    """The TracerOption the next ``enable_profiler`` starts with."""
    _TRACER["option"] = TracerOption(option)


# -- tensors, dtypes, feeds ------------------------------------------------------------------------
def size_of_dtype(dtype):
    """The bytes of one element of ``dtype`` (a VarType)."""
    return np.dtype(convert_dtype(dtype)).itemsize


def get_variable_tensor(scope, var_name):
    """The LoDTensor of variable ``var_name`` in ``scope``."""
    var = scope.find_var(var_name)
    if var is None:
        raise RuntimeError(f"get_variable_tensor: no variable '{var_name}' in the scope")
    return var.get_tensor()


def diff_tensor_shape(tensor, var_desc, num_places):
    """None when a fed ``tensor`` fits the variable ``var_desc`` describes, split over ``num_places``
    (dim 0 of a tensor with LoD is not checked; -1 in the desc matches any size); else the shape of
    the tensor (of a place's share of it) that does not fit, as Fluid's feed check returns it."""
    shape, desc = list(np.shape(np.asarray(tensor))), list(var_desc.shape())
    if not shape:
        return None if not desc else shape
    if tensor.lod():
        shape[0] = -1
    else:
        split = (shape[0] + num_places - 1) // num_places
        remainder = shape[0] % split if split else 0
        shape[0] = split
        if desc[0] >= 0 and (split != desc[0] or remainder > 0):
            return shape if split != desc[0] else [remainder] + shape[1:]
    for d, want in zip(shape[1:], desc[1:]):
        if want >= 0 and d != want:
            return shape
    return None


def paddle_dtype_size(dtype):
    """The bytes of one element of an inference PaddleDType (FLOAT32, INT64, INT32, UINT8)."""
    return {0: 4, 1: 8, 2: 4, 3: 1}[int(dtype)]


def paddle_tensor_to_bytes(tensor):
    """The bytes of an inference PaddleTensor's data."""
    return tensor.as_ndarray().tobytes()


# -- programs ---------------------------------------------------------------------------------------
def prune(program_desc, feeded_var_names, targets):
    """(the desc of a copy of the program keeping what the target ops need, {0: 0}): ``targets`` are
    [block index, op index] pairs, ``feeded_var_names`` the names taken as given."""
    program = program_desc._program
    ops = [program.blocks[b].ops[i] for b, i in targets]
    return prune_with_input(program, list(feeded_var_names), ops).desc, {0: 0}


def prune_backward(program_desc):
    """(the desc of a copy of the program without its backward and optimize ops, {block: block})."""
    program = program_desc._program.clone()
    for block in program.blocks:
        block.ops = [op for op in block.ops if not op.role & (OpRole.Backward | OpRole.Optimize)]
    program._bump()
    return program.desc, {b.idx: b.idx for b in program.blocks}


def save_op_compatible_info(program_desc):
    """Fluid records each op's version range in the desc it saves; pe's ops have one version: True."""
    return True


# -- the process ------------------------------------------------------------------------------------
def init_gflags(args):
    """Sets the flags given as ``--FLAGS_name=value`` or ``--name=value`` (Fluid's gflags); True."""
    for arg in args:
        if arg.startswith("--") and "=" in arg:
            name, value = arg[2:].split("=", 1)
            set_flags({name if name.startswith("FLAGS_") else f"FLAGS_{name}": value})
    return True


def init_glog(prog_name):
    """Fluid starts Google logging for its C++ core; pe logs nothing there."""
    return None


def init_devices(init_p2p=False):
    """Fluid creates its device contexts here; pe's devices start when a program first runs on them."""
    return None


def set_num_threads(num_threads):
    """The threads numba's parallel CPU kernels use (Fluid: its math library's threads)."""
    import numba

    numba.set_num_threads(max(1, min(int(num_threads), numba.config.NUMBA_NUM_THREADS)))


def run_cmd(cmd, time_out=-1, sleep_inter=-1):
    """The standard output of a shell command (Fluid's helper for its HDFS commands)."""
    done = subprocess.run(
        cmd,
        shell=True,
        capture_output=True,
        text=True,
        timeout=None if time_out is None or time_out < 0 else time_out / 1000.0,
    )
    return done.stdout


from_dlpack = unsupported("core.from_dlpack", NATIVE)
