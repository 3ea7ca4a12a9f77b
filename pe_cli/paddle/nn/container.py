"""``paddle.nn``'s containers: ``Sequential`` (positional layers, or (name, layer) pairs),
``LayerList``, ``LayerDict`` and ``ParameterList``; their members are sublayers (parameters) of the
container, so ``parameters()`` and ``state_dict()`` see them."""

import collections

from ...framework.variable import Parameter
from .layer import Layer

__all__ = ["Sequential", "LayerList", "LayerDict", "ParameterList"]


def _index(i, n, what):
    if not -n <= i < n:
        raise IndexError(f"{what}: index {i} is out of range for {n} members")
    return i + n if i < 0 else i


class Sequential(Layer):
    """Calls its layers in order, each on the previous one's output."""

    def __init__(self, *layers):
        super().__init__()
        if layers and isinstance(layers[0], (list, tuple)):
            for name, layer in layers:
                self.add_sublayer(name, layer)
        else:
            for i, layer in enumerate(layers):
                self.add_sublayer(str(i), layer)

    def __getitem__(self, name):
        if isinstance(name, slice):
            return self.__class__(*list(self._sub_layers.values())[name])
        if isinstance(name, str):
            return self._sub_layers[name]
        return list(self._sub_layers.values())[_index(name, len(self._sub_layers), "Sequential")]

    def __setitem__(self, name, layer):
        self.add_sublayer(str(name), layer)

    def __delitem__(self, name):
        del self._sub_layers[str(name)]

    def __len__(self):
        return len(self._sub_layers)

    def forward(self, input):
        for layer in self._sub_layers.values():
            input = layer(input)
        return input


class LayerList(Layer):
    """A list of sublayers (indexable, iterable; ``append``, ``insert``, ``extend``)."""

    def __init__(self, sublayers=None):
        super().__init__()
        for i, layer in enumerate(sublayers or []):
            self.add_sublayer(str(i), layer)

    def _layers(self):
        return list(self._sub_layers.values())

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(self._layers()[idx])
        return self._layers()[_index(idx, len(self), "LayerList")]

    def __setitem__(self, idx, layer):
        self._sub_layers[str(_index(idx, len(self), "LayerList"))] = layer

    def __delitem__(self, idx):
        layers = self._layers()
        del layers[idx]
        self._sub_layers = collections.OrderedDict((str(i), layer) for i, layer in enumerate(layers))

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._layers())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def insert(self, index, sublayer):
        layers = self._layers()
        layers.insert(index, sublayer)
        self._sub_layers = collections.OrderedDict((str(i), layer) for i, layer in enumerate(layers))

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self


class LayerDict(Layer):
    """An ordered dict of sublayers by name."""

    def __init__(self, sublayers=None):
        super().__init__()
        if sublayers is not None:
            self.update(sublayers)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, sublayer):
        self.add_sublayer(key, sublayer)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def clear(self):
        self._sub_layers.clear()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def update(self, sublayers):
        pairs = sublayers.items() if isinstance(sublayers, (dict, LayerDict)) else sublayers
        for key, layer in pairs:
            self.add_sublayer(key, layer)


class ParameterList(Layer):
    """A list of Parameters (made with ``create_parameter``), held as this layer's parameters."""

    def __init__(self, parameters=None):
        super().__init__()
        for i, param in enumerate(parameters or []):
            self.add_parameter(str(i), param)

    def __getitem__(self, idx):
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        self.add_parameter(str(_index(idx, len(self), "ParameterList")), param)

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter([self[i] for i in range(len(self))])

    def append(self, parameter):
        if not isinstance(parameter, Parameter):
            raise TypeError(f"ParameterList.append: expected a Parameter, got {type(parameter).__name__}")
        self.add_parameter(str(len(self)), parameter)
        return self
