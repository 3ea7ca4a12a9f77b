"""Fluid 1.8's inference API in ``fluid.core``: PaddleTensor, PaddleBuf, PaddleDType, NativeConfig,
AnalysisConfig and ``create_paddle_predictor``, the predictor that runs a model
``save_inference_model`` wrote (pe's or Paddle's) in a scope of its own. Its tensors hold host
arrays; the analysis switches (IR passes, MKL-DNN, GPU memory) are accepted and change nothing,
since pe runs the saved program as it is. ``CompiledProgram._with_inference_optimize(config)``
makes ``exe.run(compiled, feed=[PaddleTensor, ...])`` run through such a predictor, as Fluid's does.
"""

import os

import numpy as np

from ..framework.lod_tensor import LoDTensor
from ..executor import Executor, Scope, scope_guard
from ..base.places import CPUPlace
from ..io.inference import load_inference_model


class PaddleDType:
    FLOAT32, INT64, INT32, UINT8, INT8 = 0, 1, 2, 3, 4


_DTYPES = {
    PaddleDType.FLOAT32: "float32",
    PaddleDType.INT64: "int64",
    PaddleDType.INT32: "int32",
    PaddleDType.UINT8: "uint8",
    PaddleDType.INT8: "int8",
}
_CODES = {name: code for code, name in _DTYPES.items()}


def _code(dtype):
    name = np.dtype(dtype).name
    if name not in _CODES:
        raise TypeError(f"PaddleTensor: unsupported dtype {name}; use float32, int64, int32, uint8 or int8")
    return _CODES[name]


class PaddleBuf:
    """A flat buffer of numbers: from a numpy array (its dtype kept) or a list (float32 if any float)."""

    def __init__(self, data=None):
        self._array = np.zeros(0, "float32")
        if data is not None:
            self.reset(data)

    def reset(self, data):
        array = np.asarray(data)
        if isinstance(data, list):
            array = array.astype("float32" if array.dtype.kind == "f" else "int64")
        self._array = array.reshape(-1).copy()

    def resize(self, length):
        self._array = np.resize(self._array, int(length))

    def empty(self):
        return self._array.size == 0

    def length(self):
        return self._array.nbytes

    def float_data(self):
        return self._array.astype("float32").tolist()

    def int64_data(self):
        return self._array.astype("int64").tolist()

    def int32_data(self):
        return self._array.astype("int32").tolist()

    def tolist(self, dtype):
        return self._array.astype(dtype).tolist()


class PaddleTensor:
    """A named tensor: ``data`` (a PaddleBuf), ``shape``, ``dtype`` (a PaddleDType), ``lod``."""

    def __init__(self, data=None, name="", shape=None, lod=None, copy=True):
        self.name = name
        self.lod = [list(level) for level in (lod or [])]
        self.data = PaddleBuf()
        self.shape = list(shape or [])
        self.dtype = PaddleDType.FLOAT32
        if data is not None:
            array = np.asarray(data)
            self.data = PaddleBuf(array)
            self.shape = list(array.shape) if shape is None else list(shape)
            self.dtype = _code(array.dtype)

    def as_ndarray(self):
        return self.data._array.astype(_DTYPES[self.dtype]).reshape(self.shape)


class NativeConfig:
    """Where the model is (``model_dir``, or ``prog_file`` and ``param_file``) and the device fields."""

    def __init__(self):
        self.model_dir, self.prog_file, self.param_file = "", "", ""
        self.use_gpu, self.device, self.fraction_of_gpu_memory = False, 0, -1.0
        self.specify_input_name = False

    def _files(self):
        return _files(self.model_dir, self.prog_file, self.param_file)

    def _create_predictor(self):
        return Predictor(self)


def _files(model_dir, prog_file, params_file):
    """(directory, model file name or None, params file name or None) of a config."""
    if prog_file:
        return (
            os.path.dirname(prog_file),
            os.path.basename(prog_file),
            os.path.basename(params_file) if params_file else None,
        )
    return model_dir, None, None


class AnalysisConfig:
    """``AnalysisConfig(model_dir)`` or ``AnalysisConfig(prog_file, params_file)``; its switches
    (switch_ir_optim, enable_mkldnn, ...) are accepted and kept, and change nothing."""

    def __init__(self, model_dir_or_prog="", params_file=None):
        self.set_model(model_dir_or_prog, params_file)
        self._use_gpu = False
        self._switches = {}

    def set_model(self, model_dir_or_prog, params_file=None):
        if params_file is None:
            self._model_dir, self._prog_file, self._params_file = model_dir_or_prog, "", ""
        else:
            self._model_dir, self._prog_file, self._params_file = "", model_dir_or_prog, params_file

    def model_dir(self):
        return self._model_dir

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0):
        self._use_gpu = True

    def disable_gpu(self):
        self._use_gpu = False

    def use_gpu(self):
        return self._use_gpu

    def _files(self):
        return _files(self._model_dir, self._prog_file, self._params_file)

    def _create_predictor(self):
        return Predictor(self)

    def __getattr__(self, name):
        if name.startswith(("switch_", "enable_", "disable_", "set_", "delete_")):
            return lambda *args, **kwargs: self.__dict__["_switches"].__setitem__(name, args)
        raise AttributeError(f"AnalysisConfig has no attribute '{name}'")


class Predictor:
    """What ``create_paddle_predictor`` returns: ``run([PaddleTensor])`` -> [PaddleTensor]."""

    def __init__(self, config):
        self._config = config
        self._scope = Scope()
        self._exe = Executor(CPUPlace())
        dirname, model, params = config._files()
        with scope_guard(self._scope):
            self._program, self._feeds, self._fetches = load_inference_model(
                dirname, self._exe, model_filename=model, params_filename=params
            )
        self._inputs = {}

    def get_input_names(self):
        return list(self._feeds)

    def get_output_names(self):
        return [v.name for v in self._fetches]

    def run(self, inputs):
        """Runs the model on ``inputs`` (PaddleTensors in the feed order, or named when they have names)."""
        feed = {}
        for i, tensor in enumerate(inputs):
            name = tensor.name or self._feeds[i]
            value = tensor.as_ndarray()
            feed[name] = LoDTensor(value, tensor.lod) if tensor.lod else value
        outputs = self._exe.run(
            self._program, feed=feed, fetch_list=self._fetches, scope=self._scope, return_numpy=False
        )
        result = []
        for var, out in zip(self._fetches, outputs):
            tensor = PaddleTensor(np.array(out), name=var.name)
            tensor.lod = out.lod()
            result.append(tensor)
        return result

    def clone(self):
        return Predictor(self._config)


def create_paddle_predictor(config):
    """A predictor for the model ``config`` (a NativeConfig or AnalysisConfig) names."""
    if not isinstance(config, (NativeConfig, AnalysisConfig)):
        raise TypeError(
            f"create_paddle_predictor: config must be a NativeConfig or AnalysisConfig, got {type(config).__name__}"
        )
    return Predictor(config)
