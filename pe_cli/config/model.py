"""Model files: load (with includes) and check completely, into a ModelSpec (plain data).

A model file names its feeds, its layers in order (each a layer type of ``pe_cli.layers`` with that
builder's arguments), the loss and the default fetches. Checking happens before any op exists:
types, arguments (read from the builders' signatures), references to feeds and earlier layers,
activation names (read from the op registry). Checking also resolves each layer for the build
(config/resolved.py): its builder, its arguments typed (references as Refs, param attributes as
Typed values), its place in the file. pe_cli.run.build then builds the spec through the same
builders as the Python API, without calling back here. The spec classes are model_spec.py's (offered
here).
"""

import inspect
import os

from ..base.errors import PeError
from ..base.dtypes import convert_dtype
from ..ops import registry
from . import registries
from .errors import ConfigError, collected, flatten, suggest
from .keys import MODEL
from .features import expand_features
from .model_blocks import BLOCK_TYPES, block_arguments, check_block
from .overrides import apply_feature_overrides, apply_model_overrides
from .resolved import REF_PATTERN, Ref, parse_ref, refs
from .schema import describe, validate
from .sizes import check_filled, omittable
from .typed import check_arguments, parameters
from .values import param_attr
from .yamlfile import load_yaml
from .model_spec import NAME, PARAM_ATTR_ARGS, TENSOR_ARGS, FeedSpec, LayerSpec, ModelSpec, variable_arguments


# -- loading ------------------------------------------------------------------------------------


def load_model(path, overrides=(), implied=None, implied_doc=None):
    """Loads a model file and the files it includes, and checks and resolves it (check_model).
    ``overrides``: ``layers.<name>.key=value`` strings applied to this file (pe's ``model.`` keys);
    ``implied``: {feed: (shape, dtype, lod_level)} declared where the files do not declare the feed,
    at ``data.preprocessing.<feed>`` of the run config ``implied_doc`` (config/data_feeds.py). A
    model file loaded without a run config has no data to decide its sizes: ``auto`` is an error."""
    spec = _load_model(path, (), overrides, implied or {}, implied_doc)
    check_model(spec)
    if implied_doc is None:
        check_filled(spec)
    return spec


def _load_model(path, _stack, overrides=(), implied=None, implied_doc=None):
    """A model file and the files it includes, keys and types checked (not references)."""
    doc = load_yaml(path, "model file")
    if not _stack:  # input_features / output_features / combiner, overridden: the layers they stand for
        overrides = apply_feature_overrides(doc, overrides)
        expand_features(doc)
    if overrides:
        apply_model_overrides(doc, overrides)
    if not isinstance(doc.data, dict):
        raise doc.error(
            (),
            f"a model file must be a mapping (feeds:, layers:, ...), got {describe(doc.data)}",
            "see docs/CONFIG.md, 'The model file'",
        )
    data = validate(doc, (), doc.data, MODEL)
    stem = os.path.splitext(os.path.basename(path))[0]
    spec = ModelSpec(data["name"] or stem, doc.file, doc)
    _add_includes(spec, doc, data, path, _stack)
    _add_feeds(spec, doc, data["feeds"], implied, implied_doc)
    _add_layers(spec, doc, data)
    if not _stack:
        _check_not_empty(spec, doc, implied_doc)
    return spec


def _add_includes(spec, doc, data, path, _stack):
    """The feeds, layers, loss and fetches of the files ``data`` includes, in order (no include cycle)."""
    real = os.path.realpath(path)
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
            raise doc.error(
                where,
                f"included model file '{inc}' does not exist",
                f"the path is relative to {os.path.dirname(doc.file) or '.'}/",
            )
        base = _load_model(inc_path, (*_stack, real))
        spec.feeds.update(base.feeds)
        spec.layers += base.layers
        spec.loss, spec.loss_doc = base.loss, base.loss_doc
        spec.fetches, spec.fetches_doc = base.fetches, base.fetches_doc


def _add_layers(spec, doc, data):
    """The file's layers, its loss (a name, or a loss layer written in place) and its fetches."""
    layers = data["layers"]
    if not isinstance(layers, list):
        raise doc.error(
            ("layers",),
            f"expected a list of layers, got {describe(layers)}",
            "write each layer as '- name: {type: ..., arguments}'",
        )
    for i, entry in enumerate(layers):
        spec.layers.append(_layer_entry(doc, i, entry))
    if isinstance(data["loss"], dict):  # a loss layer written in place: the layer 'loss', its batch mean
        spec.layers.append(_loss_entry(doc, data["loss"], len(layers)))
        spec.loss, spec.loss_doc = "loss", doc
    elif data["loss"] is not None:
        spec.loss, spec.loss_doc = data["loss"], doc
    if data["fetches"] is not None:
        spec.fetches, spec.fetches_doc = data["fetches"], doc


def _check_not_empty(spec, doc, implied_doc):
    """The model file loaded (not an included one) has feeds and layers."""
    if not spec.feeds:
        raise doc.error(
            (),
            "the model has no feeds",
            "declare its inputs under 'feeds:'"
            + (
                ", or give the command the run config whose data.preprocessing declares them, not the model file"
                if implied_doc is None
                else ", or name them in the run config's data.preprocessing"
            ),
        )
    if not spec.layers:
        raise doc.error((), "the model has no layers", "add a 'layers:' list")


def _add_feeds(spec, doc, feeds, implied, implied_doc):
    """The file's feeds, then those data.preprocessing implies that no file declares."""
    for name, f in feeds.items():
        path_ = ("feeds", name)
        _check_name(doc, path_, name)
        if name in spec.feeds:
            raise doc.error(path_, f"feed '{name}' is already declared in an included file", "rename one", key=True)
        if not f["shape"]:
            raise doc.error(path_ + ("shape",), "a feed needs a shape with at least one dimension", "e.g. [784]")
        if any(d == 0 or d < -1 for d in f["shape"]):
            raise doc.error(
                path_ + ("shape",), f"dimensions must be positive or -1, got {f['shape']}", "use -1 only for the batch"
            )
        spec.feeds[name] = FeedSpec(name, f["shape"], f["dtype"], f["lod_level"], f["append_batch_size"], doc, path_)
    for name, (shape, dtype, lod_level) in (implied or {}).items():
        if name not in spec.feeds and shape is None and _uses(doc.data, name):
            raise implied_doc.error(
                ("data", "preprocessing", name),
                f"the image feed '{name}' has no shape: its "
                "height and width come from size (or crop), which it does not give",
                f"add size: [28, 28] (your images' height and width) to "
                f"data.preprocessing.{name}, or declare feeds.{name} in the model file",
            )
        if name not in spec.feeds and shape is not None:
            spec.feeds[name] = FeedSpec(
                name, shape, dtype, lod_level, True, implied_doc, ("data", "preprocessing", name)
            )


def _uses(data, name):
    """Whether a model file's layers (or loss) name ``name`` anywhere in their values."""
    if isinstance(data, dict):
        return any(_uses(v, name) for k, v in data.items() if k != "feeds")
    if isinstance(data, list):
        return any(_uses(v, name) for v in data)
    return isinstance(data, str) and (data == name or data.startswith(name + "["))


def _check_name(doc, path, name):
    if not NAME.match(name):
        raise doc.error(
            path, f"'{name}' is not a usable name", "use letters, digits, '_' and '-', starting with a letter", key=True
        )


def _layer_entry(doc, i, entry, prefix=("layers",), label=None):
    path = prefix + (i,)
    if not isinstance(entry, dict) or len(entry) != 1:
        got = f"{len(entry)} keys ({', '.join(entry)})" if isinstance(entry, dict) else describe(entry)
        raise doc.error(
            path,
            f"expected one 'name: {{type: ..., arguments}}' entry, got {got}",
            "write each layer as '- fc1: {type: fc, input: image, size: 10}'",
        )
    ((name, body),) = entry.items()
    _check_name(doc, path + (name,), name)
    if isinstance(body, str):
        body = {"type": body}
    if not isinstance(body, dict):
        raise doc.error(
            path + (name,),
            f"expected {{type: ..., arguments}}, got {describe(body)}",
            "e.g. {type: fc, input: image, size: 10}",
        )
    if "type" not in body:
        raise doc.error(
            path + (name,), f"layer '{name}' has no type", "add 'type: <layer type>' (pe layers lists them)"
        )
    if not isinstance(body["type"], str):
        raise doc.error(
            path + (name, "type"), f"expected a layer type name, got {describe(body['type'])}", "e.g. type: fc"
        )
    return LayerSpec(name, body["type"], {k: v for k, v in body.items() if k != "type"}, i, doc, path + (name,), label)


def _loss_entry(doc, body, index):
    if not isinstance(body.get("type"), str):
        raise doc.error(
            ("loss",),
            "a loss written in place needs the type of its layer",
            "e.g. loss: {type: softmax_with_cross_entropy, logits: out, label: y}",
        )
    return LayerSpec(
        "loss", body["type"], {k: v for k, v in body.items() if k != "type"}, index, doc, ("loss",), batch_mean=True
    )


# -- checking -----------------------------------------------------------------------------------


def check_model(spec):
    """Checks layer types, arguments and references, the loss and the fetches. No ops are built.
    Every mistake is reported at once (a layer with a mistake still counts as defined, so its
    users are not reported too)."""
    layer_types = registries.layers()
    defined = {name: None for name in spec.feeds}
    positions = {l.name: n for n, l in enumerate(spec.layers)}
    checks = [
        (lambda n=n, layer=layer: _check_layer(layer, n, layer_types, defined, positions))
        for n, layer in enumerate(spec.layers)
    ]
    if spec.loss is not None:
        checks.append(lambda: _check_ref_name(spec.loss_doc, ("loss",), spec.loss, defined, "the loss"))
    for j, name in enumerate(spec.fetches or []):
        checks.append(
            lambda j=j, name=name: _check_ref_name(spec.fetches_doc, ("fetches", j), name, defined, "a fetch")
        )
    errors = []
    for check in checks:
        try:
            check()
        except ConfigError as e:
            errors += flatten(e)
    collected(errors)
    spec.refs.update({text: Ref.of(text) for text in [spec.loss] + list(spec.fetches or []) if text is not None})
    spec.resolved = True


def _check_layer(layer, n, layer_types, defined, positions):
    doc, path = layer.doc, layer.path
    if layer.name in defined:
        raise doc.error(
            path,
            f"the name '{layer.name}' is already used by a {'feed' if defined[layer.name] is None else 'layer'}",
            "give each layer its own name",
            key=True,
        )
    defined[layer.name] = layer
    type_name, fn = layer_types.lookup(layer.type) if layer.type in layer_types.members else (None, None)
    if fn is None:
        raise doc.error(
            path + ("type",), f"unknown layer type '{layer.type}'", suggest(layer.type, layer_types.names())
        )
    check_arguments(
        doc,
        path,
        fn,
        layer.args,
        f"layer type '{layer.type}'",
        reserved=("name",),
        skip_required=omittable(fn) if layer.label is None else (),
    )  # the data's (config/sizes.py)
    if type_name in BLOCK_TYPES:
        check_block(layer, n, layer_types, defined, positions, _BLOCK_HELPERS)
        _resolve(layer, fn, block_arguments(layer.args))
        return
    variables, kwargs = variable_arguments(fn), dict(layer.args)
    for key, value in layer.args.items():
        if key in variables:
            _check_refs(doc, path + (key,), value, layer.name, defined, positions, n)
            kwargs[key] = refs(value)
        elif key in PARAM_ATTR_ARGS:
            kwargs[key] = param_attr(doc, path + (key,), value)
        elif key == "act" and value is not None:
            _check_act(doc, path + (key,), value)
        elif key in ("dtype", "out_dtype") and value is not None:
            _check_dtype(doc, path + (key,), value)
    _resolve(layer, fn, kwargs)


def _resolve(layer, fn, kwargs):
    """What the build reads of a checked layer."""
    named = parameters(fn)[0]
    layer.fn, layer.kwargs, layer.takes_name = fn, kwargs, "name" in named
    layer.suspect = next(
        (
            (key, value)
            for key, value in layer.args.items()
            if key in named
            and named[key].default is inspect.Parameter.empty
            and key not in variable_arguments(fn)
            and isinstance(value, str)
        ),
        None,
    )


def _check_refs(doc, path, value, own, defined, positions, n):
    values = value if isinstance(value, list) else [value]
    for j, ref in enumerate(values):
        where = path + (j,) if isinstance(value, list) else path
        if not isinstance(ref, str):
            raise doc.error(
                where,
                f"expected the name of a feed or an earlier layer, got {describe(ref)}",
                f"known so far: {', '.join(defined) or 'none'}",
            )
        m = REF_PATTERN.match(ref)
        base = m.group(1) if m else ref
        if base == own:
            raise doc.error(where, f"layer '{own}' refers to itself (a cycle)", "take an earlier layer or a feed")
        if base not in defined:
            if base in positions:
                raise doc.error(
                    where,
                    f"'{base}' is defined later (layers[{positions[base]}]); layers are built "
                    f"in order, so a reference forward is a cycle or a misordering",
                    f"move '{base}' above layers[{n}]",
                )
            raise doc.error(
                where, f"no feed or earlier layer named '{base}'", suggest(base, [d for d in defined if d != own])
            )


def _check_ref_name(doc, path, name, defined, what):
    m = REF_PATTERN.match(name) if isinstance(name, str) else None
    if not m or m.group(1) not in defined:
        raise doc.error(path, f"{what} '{name}' is not a feed or layer of the model", suggest(name, list(defined)))


def _check_act(doc, path, value):
    kind = value.get("type") if isinstance(value, dict) else value
    if not isinstance(kind, str):
        raise doc.error(path, f"expected an activation name, got {describe(value)}", "e.g. act: relu")
    try:
        registry.get(kind)
    except PeError:
        raise doc.error(
            path, f"unknown activation '{kind}'", suggest(kind, registry.with_trait("activation"))
        ) from None


def _check_dtype(doc, path, value):
    try:
        convert_dtype(value)
    except PeError as e:
        raise doc.error(path, str(e)) from None


_BLOCK_HELPERS = {
    "layer_entry": _layer_entry,
    "check_layer": _check_layer,
    "check_refs": _check_refs,
    "tensor_args": TENSOR_ARGS,
}


def default_fetches(spec):
    if spec.fetches:
        return list(spec.fetches)
    return [spec.loss] if spec.loss else []


__all__ = [
    "FeedSpec",
    "LayerSpec",
    "ModelSpec",
    "check_model",
    "default_fetches",
    "load_model",
    "parse_ref",
    "variable_arguments",
]
