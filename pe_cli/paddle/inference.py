"""``paddle.inference``: Paddle 2.x's predictor API over an inference model that
``paddle.static.save_inference_model`` (pe's or Paddle's) or Fluid's ``save_inference_model`` wrote.
``Config(prog_file, params_file)`` or ``Config(model_dir)``; ``create_predictor(config)`` loads the
model into a scope of its own; its input and output handles (``get_input_handle``) hold host arrays
(``reshape``, ``copy_from_cpu``, ``copy_to_cpu``), and ``run()`` runs the saved program as it is. The
analysis switches (IR passes, MKL-DNN, TensorRT, GPU memory) are accepted and change nothing, as in
Fluid 1.8's ``AnalysisConfig`` (pe_cli/fluid/inference_api.py), which ``Config`` is."""

import enum

import numpy as np

from ..base.errors import PeError
from ..fluid import inference_api
from ..fluid import version as _version
from ..framework.lod_tensor import LoDTensor

__all__ = [
    "Config",
    "DataType",
    "PlaceType",
    "PrecisionType",
    "Tensor",
    "Predictor",
    "create_predictor",
    "get_version",
    "get_num_bytes_of_data_type",
]


class DataType(enum.IntEnum):
    FLOAT32, INT64, INT32, UINT8, INT8, FLOAT16, BOOL, FLOAT64 = 0, 1, 2, 3, 4, 5, 6, 7


class PlaceType(enum.IntEnum):
    UNK, CPU, GPU, XPU, CUSTOM = -1, 0, 1, 2, 3


class PrecisionType(enum.IntEnum):
    Float32, Int8, Half, Bfloat16 = 0, 1, 2, 3


_NUMPY = {
    DataType.FLOAT32: "float32",
    DataType.INT64: "int64",
    DataType.INT32: "int32",
    DataType.UINT8: "uint8",
    DataType.INT8: "int8",
    DataType.FLOAT16: "float16",
    DataType.BOOL: "bool",
    DataType.FLOAT64: "float64",
}
_CODES = {name: code for code, name in _NUMPY.items()}


def get_version():
    """The version lines of the release the program sees (pe_cli/fluid/version.py): Paddle 2.6.2's as its
    wheel gives them (the commit's first 8 digits, the branch), or Fluid 1.8.5's version."""
    if _version.paddle2:
        return f"version: {_version.full_version}\ncommit: {_version.commit[:8]}\nbranch: HEAD\n"
    return f"version: {_version.full_version}"


def get_num_bytes_of_data_type(dtype):
    return np.dtype(_NUMPY[DataType(dtype)]).itemsize


class Config(inference_api.AnalysisConfig):
    """``Config(prog_file, params_file)`` (``x.pdmodel``, ``x.pdiparams``) or ``Config(model_dir)``."""


class Tensor:
    """An input or output handle of a Predictor: a named host array with its shape and LoD."""

    def __init__(self, name, is_input):
        self._name, self._is_input = name, is_input
        self._array, self._shape, self._lod = None, None, []

    def name(self):
        return self._name

    def reshape(self, shape):
        if not self._is_input:
            raise PeError(f"paddle.inference.Tensor.reshape: {self._name} is an output; only inputs take a shape")
        self._shape = [int(d) for d in shape]

    def copy_from_cpu(self, data):
        if not isinstance(data, np.ndarray):
            raise TypeError(f"copy_from_cpu takes a numpy.ndarray, got {type(data).__name__}")
        if self._shape is not None and int(np.prod(self._shape)) == data.size:
            data = data.reshape(self._shape)
        self._array, self._shape = np.array(data), list(data.shape)

    def copy_to_cpu(self):
        if self._array is None:
            raise PeError(
                f"paddle.inference.Tensor.copy_to_cpu: {self._name} holds no value yet; "
                "copy inputs in and call predictor.run() first"
            )
        return np.array(self._array)

    def shape(self):
        return list(self._shape or [])

    def type(self):
        if self._array is None:
            return DataType.FLOAT32
        return DataType(_CODES.get(self._array.dtype.name, DataType.FLOAT32))

    def set_lod(self, lod):
        self._lod = [list(level) for level in lod]

    def lod(self):
        return [list(level) for level in self._lod]


class Predictor(inference_api.Predictor):
    """What ``create_predictor`` returns: handles by name, ``run()`` over what they hold."""

    def __init__(self, config):
        super().__init__(config)
        self._inputs = {name: Tensor(name, True) for name in self.get_input_names()}
        self._outputs = {name: Tensor(name, False) for name in self.get_output_names()}

    def get_input_handle(self, name):
        return _handle(self._inputs, name, "input")

    def get_output_handle(self, name):
        return _handle(self._outputs, name, "output")

    def run(self, inputs=None):
        """Runs the model on what the input handles hold; with ``inputs`` (arrays in the input order)
        returns the outputs as arrays, as Paddle's ``run(list)`` does."""
        if inputs is not None:
            for name, array in zip(self.get_input_names(), inputs):
                self._inputs[name].copy_from_cpu(np.asarray(array))
        feed = {}
        for name, handle in self._inputs.items():
            if handle._array is None:
                raise PeError(
                    f"paddle.inference: input '{name}' holds no value; "
                    "copy one in with get_input_handle(name).copy_from_cpu(array)"
                )
            feed[name] = LoDTensor(handle._array, handle._lod) if handle._lod else handle._array
        outputs = self._exe.run(
            self._program, feed=feed, fetch_list=self._fetches, scope=self._scope, return_numpy=False
        )
        for var, out in zip(self._fetches, outputs):
            handle = self._outputs[var.name]
            handle._array, handle._lod = np.array(out), out.lod()
            handle._shape = list(handle._array.shape)
        if inputs is not None:
            return [self._outputs[name].copy_to_cpu() for name in self.get_output_names()]
        return True

    def clone(self):
        return Predictor(self._config)

    def clear_intermediate_tensor(self):
        """pe keeps no intermediate tensors between runs: nothing to clear."""

    def try_shrink_memory(self):
        return 0


def _handle(handles, name, kind):
    if name not in handles:
        raise ValueError(f"paddle.inference: no {kind} named '{name}'; the model's {kind}s are {list(handles)}")
    return handles[name]


def create_predictor(config):
    """A Predictor for the model ``config`` names."""
    if not isinstance(config, inference_api.AnalysisConfig):
        raise TypeError(f"create_predictor: config must be a paddle.inference.Config, got {type(config).__name__}")
    return Predictor(config)
