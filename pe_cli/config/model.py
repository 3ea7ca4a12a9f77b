"""Model files: load (with includes), check completely, then build through the layer builders.

A model file names its feeds, its layers in order (each a layer type of ``pe_cli.layers`` with that
builder's arguments), the loss and the default fetches. Checking happens before any op exists:
types, arguments, references to feeds and earlier layers. Building then calls the same builders as
the Python API, each inside ``source_guard("lenet.yaml:12 layers[3] fc1")`` so every op remembers
its line; shape errors the builders raise are reported at that line.
"""
import os
import re
from dataclasses import dataclass, field

from . import registries
from .errors import ConfigError, closest
from .keys import MODEL
from .schema import _describe, validate
from .typed import check_arguments, resolve
from .yamlfile import load_yaml

# Builder arguments that take variables: their YAML values are names of feeds or earlier layers.
TENSOR_ARGS = frozenset({"input", "inputs", "x", "y", "label", "logits", "weight", "index", "indices",
                         "updates", "condition", "mask", "length", "target", "ids", "actual_shape"})
PARAM_ATTR_ARGS = frozenset({"param_attr", "bias_attr", "moving_mean_attr", "moving_variance_attr"})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
_REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_\-]*)(?:\[(\d+)\])?$")


@dataclass
class FeedSpec:
    name: str
    shape: list
    dtype: str
    lod_level: int
    append_batch_size: bool
    doc: object
    path: tuple

    @property
    def full_shape(self):
        """The variable's shape as fluid.layers.data makes it (batch dimension -1 first)."""
        shape = list(self.shape)
        return [-1] + shape if self.append_batch_size and -1 not in shape else shape


@dataclass
class LayerSpec:
    name: str
    type: str
    args: dict
    index: int      # position in its own file's layers list
    doc: object
    path: tuple     # ("layers", index, name)

    @property
    def location(self):
        mark = self.doc.mark(self.path, key=True)
        return f"{os.path.basename(mark.file)}:{mark.line} layers[{self.index}] {self.name}"


@dataclass
class ModelSpec:
    name: str
    file: str
    doc: object
    feeds: dict = field(default_factory=dict)      # name -> FeedSpec
    layers: list = field(default_factory=list)     # [LayerSpec]
    loss: str = None
    fetches: list = None
    loss_doc: object = None
    fetches_doc: object = None

    def names(self):
        return list(self.feeds) + [l.name for l in self.layers]

    def layer(self, name):
        return next((l for l in self.layers if l.name == name), None)

    def to_data(self):
        """The resolved model (includes expanded) as plain data, for the run directory."""
        return {"name": self.name,
                "feeds": {f.name: {"shape": list(f.shape), "dtype": f.dtype, "lod_level": f.lod_level,
                                   "append_batch_size": f.append_batch_size} for f in self.feeds.values()},
                "layers": [{l.name: dict({"type": l.type}, **l.args)} for l in self.layers],
                "loss": self.loss, "fetches": list(self.fetches or [])}


# -- loading ------------------------------------------------------------------------------------

def load_model(path, _stack=()):
    """Loads a model file and the files it includes; checks keys and types (not references)."""
    real = os.path.realpath(path)
    doc = load_yaml(path, "model file")
    if not isinstance(doc.data, dict):
        raise doc.error((), f"a model file must be a mapping (feeds:, layers:, ...), got {_describe(doc.data)}",
                        "see docs/CONFIG.md, 'The model file'")
    data = validate(doc, (), doc.data, MODEL)
    stem = os.path.splitext(os.path.basename(path))[0]
    spec = ModelSpec(data["name"] or stem, doc.file, doc)

    includes = data["include"] or []
    includes = [includes] if isinstance(includes, str) else includes
    for j, inc in enumerate(includes):
        where = ("include", j) if isinstance(data["include"], list) else ("include",)
        inc_path = os.path.join(os.path.dirname(path), inc)
        inc_real = os.path.realpath(inc_path)
        if inc_real == real or inc_real in _stack:
            chain = " -> ".join(os.path.basename(p) for p in (*_stack, real, inc_real))
            raise doc.error(where, f"include cycle: {chain}", "remove one of the includes")
        if not os.path.exists(inc_path):
            raise doc.error(where, f"included model file '{inc}' does not exist",
                            f"the path is relative to {os.path.dirname(doc.file) or '.'}/")
        base = load_model(inc_path, (*_stack, real))
        spec.feeds.update(base.feeds)
        spec.layers += base.layers
        spec.loss, spec.loss_doc = base.loss, base.loss_doc
        spec.fetches, spec.fetches_doc = base.fetches, base.fetches_doc

    for name, f in data["feeds"].items():
        path_ = ("feeds", name)
        _check_name(doc, path_, name)
        if name in spec.feeds:
            raise doc.error(path_, f"feed '{name}' is already declared in an included file", "rename one", key=True)
        if not f["shape"]:
            raise doc.error(path_ + ("shape",), "a feed needs a shape with at least one dimension", "e.g. [784]")
        if any(d == 0 or d < -1 for d in f["shape"]):
            raise doc.error(path_ + ("shape",), f"dimensions must be positive or -1, got {f['shape']}",
                            "use -1 only for the batch")
        spec.feeds[name] = FeedSpec(name, f["shape"], f["dtype"], f["lod_level"], f["append_batch_size"],
                                    doc, path_)

    layers = data["layers"]
    if not isinstance(layers, list):
        raise doc.error(("layers",), f"expected a list of layers, got {_describe(layers)}",
                        "write each layer as '- name: {type: ..., arguments}'")
    for i, entry in enumerate(layers):
        spec.layers.append(_layer_entry(doc, i, entry))
    if data["loss"] is not None:
        spec.loss, spec.loss_doc = data["loss"], doc
    if data["fetches"] is not None:
        spec.fetches, spec.fetches_doc = data["fetches"], doc
    if not spec.feeds and not _stack:
        raise doc.error((), "the model has no feeds", "declare its inputs under 'feeds:'")
    if not spec.layers and not _stack:
        raise doc.error((), "the model has no layers", "add a 'layers:' list")
    return spec


def _check_name(doc, path, name):
    if not _NAME.match(name):
        raise doc.error(path, f"'{name}' is not a usable name", "use letters, digits, '_' and '-', "
                        "starting with a letter", key=True)


def _layer_entry(doc, i, entry):
    path = ("layers", i)
    if not isinstance(entry, dict) or len(entry) != 1:
        got = f"{len(entry)} keys ({', '.join(entry)})" if isinstance(entry, dict) else _describe(entry)
        raise doc.error(path, f"expected one 'name: {{type: ..., arguments}}' entry, got {got}",
                        "write each layer as '- fc1: {type: fc, input: image, size: 10}'")
    (name, body), = entry.items()
    _check_name(doc, path + (name,), name)
    if isinstance(body, str):
        body = {"type": body}
    if not isinstance(body, dict):
        raise doc.error(path + (name,), f"expected {{type: ..., arguments}}, got {_describe(body)}",
                        "e.g. {type: fc, input: image, size: 10}")
    if "type" not in body:
        raise doc.error(path + (name,), f"layer '{name}' has no type", "add 'type: <layer type>' (pe layers lists them)")
    if not isinstance(body["type"], str):
        raise doc.error(path + (name, "type"), f"expected a layer type name, got {_describe(body['type'])}",
                        "e.g. type: fc")
    return LayerSpec(name, body["type"], {k: v for k, v in body.items() if k != "type"}, i, doc, path + (name,))


# -- checking -----------------------------------------------------------------------------------

def check_model(spec):
    """Checks layer types, arguments and references, the loss and the fetches. No ops are built."""
    layer_types = registries.layers()
    defined = {name: None for name in spec.feeds}
    positions = {l.name: n for n, l in enumerate(spec.layers)}
    for n, layer in enumerate(spec.layers):
        doc, path = layer.doc, layer.path
        if layer.name in defined:
            raise doc.error(path, f"the name '{layer.name}' is already used by a "
                            f"{'feed' if layer.name in spec.feeds else 'layer'}", "give each layer its own name",
                            key=True)
        type_name, fn = layer_types.lookup(layer.type) if layer.type in layer_types.members else (None, None)
        if fn is None:
            raise doc.error(path + ("type",), f"unknown layer type '{layer.type}'",
                            closest(layer.type, layer_types.names()))
        check_arguments(doc, path, fn, layer.args, f"layer type '{layer.type}'", reserved=("name",))
        for key, value in layer.args.items():
            if key in TENSOR_ARGS:
                _check_refs(doc, path + (key,), value, layer.name, defined, positions, n)
            elif key in PARAM_ATTR_ARGS:
                param_attr(doc, path + (key,), value)
            elif key == "act" and value is not None:
                _check_act(doc, path + (key,), value)
            elif key in ("dtype", "out_dtype") and value is not None:
                _check_dtype(doc, path + (key,), value)
        defined[layer.name] = layer
    if spec.loss is not None:
        _check_ref_name(spec.loss_doc, ("loss",), spec.loss, defined, "the loss")
    for j, name in enumerate(spec.fetches or []):
        _check_ref_name(spec.fetches_doc, ("fetches", j), name, defined, "a fetch")


def _check_refs(doc, path, value, own, defined, positions, n):
    values = value if isinstance(value, list) else [value]
    for j, ref in enumerate(values):
        where = path + (j,) if isinstance(value, list) else path
        if not isinstance(ref, str):
            raise doc.error(where, f"expected the name of a feed or an earlier layer, got {_describe(ref)}",
                            f"known so far: {', '.join(defined) or 'none'}")
        m = _REF.match(ref)
        base = m.group(1) if m else ref
        if base == own:
            raise doc.error(where, f"layer '{own}' refers to itself (a cycle)", "take an earlier layer or a feed")
        if base not in defined:
            if base in positions:
                raise doc.error(where, f"'{base}' is defined later (layers[{positions[base]}]); layers are built "
                                f"in order, so a reference forward is a cycle or a misordering",
                                f"move '{base}' above layers[{n}]")
            raise doc.error(where, f"no feed or earlier layer named '{base}'", closest(base, list(defined)))


def _check_ref_name(doc, path, name, defined, what):
    m = _REF.match(name) if isinstance(name, str) else None
    if not m or m.group(1) not in defined:
        raise doc.error(path, f"{what} '{name}' is not a feed or layer of the model",
                        closest(name, list(defined)))


def _check_act(doc, path, value):
    from ..errors import PeError
    from ..ops import registry
    kind = value.get("type") if isinstance(value, dict) else value
    if not isinstance(kind, str):
        raise doc.error(path, f"expected an activation name, got {_describe(value)}", "e.g. act: relu")
    try:
        registry.get(kind)
    except PeError:
        acts = [n for n in registry._REGISTRY if not n.endswith("_grad") and _looks_like_activation(n)]
        raise doc.error(path, f"unknown activation '{kind}'", closest(kind, acts)) from None


def _looks_like_activation(op_type):
    from ..ops import registry
    opdef = registry._REGISTRY[op_type]
    return [s.name for s in opdef.inputs] == ["X"] and [s.name for s in opdef.outputs] == ["Out"]


def _check_dtype(doc, path, value):
    from ..errors import PeError
    from ..framework.dtypes import convert_dtype
    try:
        convert_dtype(value)
    except PeError as e:
        raise doc.error(path, str(e)) from None


def param_attr(doc, path, value):
    """A YAML param_attr/bias_attr -> what the builder takes: None, False, a name, or a ParamAttr."""
    from ..param_attr import ParamAttr
    if value is None or value is False or isinstance(value, str):
        return value
    if value is True:
        return None
    if not isinstance(value, dict):
        raise doc.error(path, f"expected a mapping of ParamAttr arguments, a name, or false, got {_describe(value)}",
                        "e.g. {initializer: {type: Normal, scale: 0.01}}")
    check_arguments(doc, path, ParamAttr, value, "ParamAttr")
    kwargs = dict(value)
    if kwargs.get("initializer") is not None:
        kwargs["initializer"] = make_typed(doc, path + ("initializer",), kwargs["initializer"],
                                           registries.initializers())
    if kwargs.get("regularizer") is not None:
        kwargs["regularizer"] = make_typed(doc, path + ("regularizer",), kwargs["regularizer"],
                                           registries.regularizers())
    if kwargs.get("gradient_clip") is not None:
        kwargs["gradient_clip"] = make_typed(doc, path + ("gradient_clip",), kwargs["gradient_clip"],
                                             registries.clips())
    return ParamAttr(**kwargs)


def make_typed(doc, path, value, namespace, **extra):
    """Builds ``{type: Name, args}`` from ``namespace``, reporting bad arguments at their keys."""
    from ..errors import PeError
    name, fn, args = resolve(doc, path, value, namespace)
    check_arguments(doc, path, fn, args, f"{namespace.what} '{name}'", reserved=tuple(extra))
    try:
        return fn(**args, **extra)
    except (PeError, TypeError, ValueError) as e:
        raise doc.error(path, f"{namespace.what} '{name}': {e}") from None


# -- building -----------------------------------------------------------------------------------

@dataclass
class BuiltModel:
    spec: ModelSpec
    vars: dict          # feed or layer name -> Variable (or a tuple for multi-output layers)
    feeds: list         # feed Variables, in declaration order

    def var(self, ref):
        m = _REF.match(ref)
        value = self.vars[m.group(1)]
        if m.group(2) is not None:
            return value[int(m.group(2))]
        return value

    @property
    def loss(self):
        return self.var(self.spec.loss) if self.spec.loss else None

    def fetch_vars(self, names):
        return {name: self.var(name) for name in names}


def build_model(spec):
    """Builds the model into the current default main/startup programs. Returns a BuiltModel."""
    from .. import layers as L
    from ..errors import PeError
    from ..framework import source_guard
    check_model(spec)
    layer_types = registries.layers()
    values = {}
    feeds = []
    for feed in spec.feeds.values():
        mark = feed.doc.mark(feed.path, key=True)
        with source_guard(f"{os.path.basename(mark.file)}:{mark.line} feeds.{feed.name}"):
            var = L.data(name=feed.name, shape=list(feed.shape), dtype=feed.dtype, lod_level=feed.lod_level,
                         append_batch_size=feed.append_batch_size)
        values[feed.name] = var
        feeds.append(var)
    built = BuiltModel(spec, values, feeds)
    for layer in spec.layers:
        fn = layer_types.members[layer.type]
        kwargs = {}
        for key, value in layer.args.items():
            if key in TENSOR_ARGS:
                kwargs[key] = _deref(built, layer, key, value)
            elif key in PARAM_ATTR_ARGS:
                kwargs[key] = param_attr(layer.doc, layer.path + (key,), value)
            else:
                kwargs[key] = value
        if "name" in _param_names(fn):
            kwargs["name"] = layer.name
        with source_guard(layer.location):
            try:
                out = fn(**kwargs)
            except ConfigError:
                raise
            except (PeError, TypeError, ValueError) as e:
                suspect = _suspect_argument(fn, layer) if isinstance(e, TypeError) else None
                if suspect is not None:
                    key, value = suspect
                    raise layer.doc.error(layer.path + (key,), f"layer type '{layer.type}' failed with {key}: "
                                          f"{value!r} ({type(e).__name__}: {e})",
                                          f"'{key}' probably takes a number, not a string") from None
                raise layer.doc.error(layer.path, _strip_location(str(e), layer.location), _hint_for(e)) from None
        if out is None:
            raise layer.doc.error(layer.path, f"layer type '{layer.type}' returned nothing to refer to",
                                  "it cannot be used in a model file")
        values[layer.name] = out
    _check_loss(built)
    return built


def _param_names(fn):
    from .typed import parameters
    return parameters(fn)[0]


def _deref(built, layer, key, value):
    if isinstance(value, list):
        return [built.var(v) for v in value]
    var = built.var(value)
    if isinstance(var, (tuple, list)) and key not in ("input", "inputs", "x"):
        raise layer.doc.error(layer.path + (key,), f"'{value}' has {len(var)} outputs",
                              f"pick one: {value}[0] ... {value}[{len(var) - 1}]")
    return var


def _strip_location(message, location):
    """The error line already starts with file:line:col; drop the builder's copy of it."""
    return message.replace(f" built at {location}", "").replace(f" (built at {location})", "")


def _suspect_argument(fn, layer):
    """A required, non-variable argument given as a string: the likely cause of a TypeError."""
    import inspect
    named = _param_names(fn)
    for key, value in layer.args.items():
        p = named.get(key)
        if (p is not None and p.default is inspect.Parameter.empty and key not in TENSOR_ARGS
                and isinstance(value, str)):
            return key, value
    return None


def _hint_for(error):
    from ..errors import ShapeError
    if isinstance(error, ShapeError):
        return "check the shapes of this layer's inputs (pe graph --text shows every shape)"
    return None


def _check_loss(built):
    spec = built.spec
    if spec.loss is None:
        return
    loss = built.loss
    if isinstance(loss, (tuple, list)):
        raise spec.loss_doc.error(("loss",), f"'{spec.loss}' has {len(loss)} outputs", f"use {spec.loss}[0]")
    shape = list(loss.shape or [])
    if any(d != 1 for d in shape):
        raise spec.loss_doc.error(("loss",), f"the loss '{spec.loss}' has shape {shape}; it must be a scalar",
                                  f"add a layer '- avg_loss: {{type: mean, x: {spec.loss}}}' and set loss: avg_loss")
    if not str(loss.dtype).startswith("float"):
        raise spec.loss_doc.error(("loss",), f"the loss '{spec.loss}' is {loss.dtype}; it must be a float",
                                  "name a float layer as the loss")


def default_fetches(spec):
    if spec.fetches:
        return list(spec.fetches)
    return [spec.loss] if spec.loss else []


__all__ = ["BuiltModel", "FeedSpec", "LayerSpec", "ModelSpec", "build_model", "check_model", "default_fetches",
           "load_model"]
