"""``fluid.dygraph.Layer`` (``fluid.dygraph.layers.Layer``; Paddle 2.x's ``paddle.nn.Layer`` is the same
class) for static graphs. A layer's parameters are pe Parameters made by the layer
helper (names as Paddle's: ``linear_0.w_0``) in the current main and startup programs when the layer
is made; a build (``__call__``) in another program declares them there too (same names, so the
scope holds one value), so a layer made outside ``program_guard`` and called inside it works.
``state_dict``/``set_state_dict`` read and write the values in the global scope (numpy arrays);
``train()``/``eval()`` set ``training``, which dropout and batch norm read when they build. FluidLayer
is the base of Fluid 1.8's ``fluid.dygraph.nn`` classes."""

import collections
import re
import warnings
from collections.abc import Mapping

import numpy as np

from ...base.errors import PeError
from ...executor import global_scope
from ...framework import default_main_program, default_startup_program, unique_name
from ...framework.variable import Parameter, Variable
from ...io.state_checks import has_value, refuse_unset, warn_unused
from ...layers.helper import LayerHelper
from ...training.param_attr import ParamAttr
from ...training.initializer import global_initializer

__all__ = ["Layer", "FluidLayer"]


def _snake(name):
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)).lower()


def declare_in_current(param):
    """``param`` (a Parameter of some program) declared in the current main program, and initialized
    by the current startup program, under the same name; the current program's Parameter."""
    block = default_main_program().global_block()
    if block.has_var(param.name):
        return block.var(param.name)
    var = param.clone_into(block)
    block.vars[param.name] = var
    startup = default_startup_program().global_block()
    if not startup.has_var(param.name) and param.initializer is not None:
        svar = startup.create_var(name=param.name, shape=param.shape, dtype=param.dtype, persistable=True)
        param.initializer(svar, startup)
    return var


class _HookHandle:
    _next = [0]

    def __init__(self, hooks):
        self._hooks, self._id = hooks, self._next[0]
        self._next[0] += 1

    def remove(self):
        self._hooks.pop(self._id, None)


class Layer:
    """The base of every ``paddle.nn`` layer: holds parameters, buffers and sublayers by attribute."""

    def __init__(self, name_scope=None, dtype="float32"):
        self.training = True
        self._full_name = unique_name.generate(name_scope or _snake(self.__class__.__name__))
        self._helper = LayerHelper(self._full_name, name=self._full_name)
        self._dtype = dtype
        self._parameters = collections.OrderedDict()
        self._sub_layers = collections.OrderedDict()
        self._buffers = collections.OrderedDict()
        self._non_persistable_buffer_names = set()
        self._forward_pre_hooks = collections.OrderedDict()
        self._forward_post_hooks = collections.OrderedDict()

    # -- attributes --------------------------------------------------------------------------
    def __setattr__(self, name, value):
        if isinstance(value, Parameter) and "_parameters" in self.__dict__:
            self._parameters[name] = value
            self.__dict__.pop(name, None)
        elif isinstance(value, Layer) and "_sub_layers" in self.__dict__:
            self._sub_layers[name] = value
            self.__dict__.pop(name, None)
        elif "_parameters" in self.__dict__ and name in self._parameters and value is None:
            self._parameters[name] = None
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for table in ("_parameters", "_sub_layers", "_buffers"):
            held = self.__dict__.get(table)
            if held is not None and name in held:
                value = held[name]
                if isinstance(value, Parameter):
                    block = default_main_program().global_block()
                    return block.var(value.name) if block.has_var(value.name) else value
                return value
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        for table in (self._parameters, self._sub_layers, self._buffers):
            if name in table:
                del table[name]
                return
        object.__delattr__(self, name)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._parameters) | set(self._sub_layers) | set(self._buffers))

    def full_name(self):
        return self._full_name

    # -- making parameters and buffers ----------------------------------------------------------
    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False, default_initializer=None):
        """A Parameter of ``shape`` in the current programs (``attr`` False: None, no parameter)."""
        if attr is False:
            return None
        attr = ParamAttr._to_attr(attr)
        init = global_initializer(is_bias) or default_initializer
        return self._helper.create_parameter(
            attr, list(shape), dtype or self._dtype, is_bias=is_bias, default_initializer=init
        )

    def create_variable(self, name=None, persistable=None, dtype=None):
        return (
            default_main_program()
            .current_block()
            .create_var(
                name=name or unique_name.generate(f"{self._full_name}.var"),
                persistable=bool(persistable),
                dtype=dtype or self._dtype,
            )
        )

    create_tensor = create_variable

    def add_parameter(self, name, parameter):
        if "." in name or not name:
            raise KeyError(f"add_parameter: the name {name!r} must be non-empty and have no '.'")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"add_parameter: {name!r} must be a Parameter, got {type(parameter).__name__}")
        self._parameters[name] = parameter
        return parameter

    def add_sublayer(self, name, sublayer):
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(f"add_sublayer: {name!r} must be a Layer, got {type(sublayer).__name__}")
        self._sub_layers[str(name)] = sublayer
        return sublayer

    def register_buffer(self, name, tensor, persistable=True):
        if not isinstance(name, str) or "." in name or not name:
            raise KeyError(f"register_buffer: the name {name!r} must be a non-empty str without '.'")
        if tensor is not None and not isinstance(tensor, Variable):
            raise TypeError(f"register_buffer: {name!r} must be a Tensor (Variable), got {type(tensor).__name__}")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names.discard(name)
        else:
            self._non_persistable_buffer_names.add(name)

    # -- walking the tree ------------------------------------------------------------------------
    def named_sublayers(self, prefix="", include_self=False, layers_set=None):
        layers_set = set() if layers_set is None else layers_set
        if include_self and id(self) not in layers_set:
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            path = f"{prefix}.{key}" if prefix else key
            yield from layer.named_sublayers(path, True, layers_set)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for key, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield key, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def named_parameters(self, prefix="", include_sublayers=True):
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in layers:
            for key, param in layer._parameters.items():
                if param is None or param.name in seen:
                    continue
                seen.add(param.name)
                yield (f"{path}.{key}" if path else key), getattr(layer, key)

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix="", include_sublayers=True):
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers else [(prefix, self)]
        for path, layer in layers:
            for key, buf in layer._buffers.items():
                if buf is not None:
                    yield (f"{path}.{key}" if path else key), buf

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def apply(self, fn):
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    # -- modes -----------------------------------------------------------------------------------
    def train(self):
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def to(self, device=None, dtype=None, blocking=None):
        """pe keeps every value on its place: nothing to move; a dtype other than the layer's is refused."""
        if dtype is not None and str(getattr(dtype, "__name__", dtype)).replace("paddle.", "") != self._dtype:
            raise PeError(
                f"{self._full_name}.to(dtype={dtype}): pe does not convert a static layer's "
                f"parameters; make the layer with that dtype"
            )
        return self

    # -- building --------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook):
        handle = _HookHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._id] = hook
        return handle

    def register_forward_post_hook(self, hook):
        handle = _HookHandle(self._forward_post_hooks)
        self._forward_post_hooks[handle._id] = hook
        return handle

    def forward(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} has no forward(); a Layer subclass defines it")

    def __call__(self, *inputs, **kwargs):
        for param in self._parameters.values():
            if param is not None:
                declare_in_current(param)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        outputs = self.forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    # -- values ----------------------------------------------------------------------------------
    def _state_vars(self, include_sublayers=True, structured_name_prefix=""):
        """Each layer's parameters then its persistable buffers, under every name that holds them (as
        Paddle's: an LSTM's weight_ih_l0 is also 0.cell.weight_ih)."""
        state = collections.OrderedDict()
        layers = (
            self.named_sublayers(structured_name_prefix, include_self=True)
            if include_sublayers
            else [(structured_name_prefix, self)]
        )
        for path, layer in layers:
            for key, param in layer._parameters.items():
                if param is not None:
                    state[f"{path}.{key}" if path else key] = getattr(layer, key)
            for key, buf in layer._buffers.items():
                if buf is not None and key not in layer._non_persistable_buffer_names:
                    state[f"{path}.{key}" if path else key] = buf
        return state

    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix="", use_hook=True):
        """Structured name (``0.weight``) -> the value in the global scope, a numpy array."""
        out = collections.OrderedDict() if destination is None else destination
        scope = global_scope()
        for key, var in self._state_vars(include_sublayers, structured_name_prefix).items():
            slot = scope.find_var(var.name)
            if slot is None or not slot.is_initialized():
                raise PeError(
                    f"{self._full_name}.state_dict(): '{var.name}' has no value in the global scope; "
                    f"run the startup program first"
                )
            out[key] = np.array(slot.get_tensor())
        return out

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Writes the values of ``state_dict`` (structured names, or parameter names when
        ``use_structured_name`` is False) into the global scope; returns (missing, unexpected) keys. As
        Paddle 2.6.2's: a key the dict lacks, or a value of another shape, is skipped with a warning (a
        mismatched key is both missing and unexpected); and, pe's (io/state_checks.py): the keys no variable
        took are named, and a skipped parameter with no value is refused before anything is set."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(
                f"{self._full_name}.set_state_dict: state_dict must be a dict, got {type(state_dict).__name__}"
            )
        wanted = self._state_vars()
        if not use_structured_name:
            wanted = collections.OrderedDict((v.name, v) for v in wanted.values())
        missing, unexpected, chosen, scope = [], [k for k in state_dict if k not in wanted], {}, global_scope()
        for key, var in wanted.items():
            if key not in state_dict:
                warnings.warn(f"Skip loading for {key}. {key} is not found in the provided dict.", stacklevel=2)
                missing.append(key)
                continue
            value = np.asarray(state_dict[key])
            if tuple(value.shape) != tuple(var.shape):
                warnings.warn(
                    f"Skip loading for {key}. {key} receives a shape {list(value.shape)}, but the expected "
                    f"shape is {list(var.shape)}.",
                    stacklevel=2,
                )
                missing.append(key)
                unexpected.append(key)
                continue
            chosen[var.name] = value.astype(var.dtype)
        who = f"{self._full_name}.set_state_dict"
        unset = [(k, wanted[k].name) for k in missing if not has_value(scope, wanted[k].name)]
        refuse_unset(who, unset, state_dict, wanted)
        warn_unused(who, [k for k in unexpected if k not in wanted], state_dict, wanted)
        for name, value in chosen.items():
            scope.var(name).get_tensor().set(value)
        return missing, unexpected

    set_dict = load_dict = set_state_dict

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"({key}): {repr(layer)}".replace("\n", "\n  ") for key, layer in self._sub_layers.items()]
        body = self.extra_repr()
        if not lines:
            return f"{type(self).__name__}({body})"
        return f"{type(self).__name__}({body}\n  " + "\n  ".join(lines) + "\n)"


class FluidLayer(Layer):
    """The base of ``fluid.dygraph.nn``'s classes (pe_cli/fluid/dygraph/nn.py): a Layer that appends its
    ops to the current program; inside ``guard()`` that program runs each op as it is appended (the eager
    execution of pe_cli/fluid/dygraph/eager.py, its parameters initialized by the eager startup program)."""

    def _append(self, op_type, inputs, outputs, attrs=None):
        self._helper.append_op(op_type, inputs, outputs, attrs or {})

    def _tmp(self, dtype=None, stop_gradient=False):
        return self._helper.create_variable_for_type_inference(dtype or self._dtype, stop_gradient)

    def _add_bias(self, value, bias, axis):
        """``value + bias`` along ``axis`` (no op for a bias of None)."""
        if bias is None:
            return value
        out = self._tmp(value.dtype)
        self._append("elementwise_add", {"X": [value], "Y": [bias]}, {"Out": [out]}, {"axis": axis})
        return out
