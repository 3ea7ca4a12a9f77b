"""Everything ``pe`` builds from a checked config, in one place: the model through the layer
builders (the same ones the Python API calls), the optimizer, the main/startup/test programs, and
the data (a Batcher over the columns, transformed and conformed to the feeds).

Every layer is built inside ``source_guard("lenet.yaml:12 layers[3] fc1")`` so its ops remember
their line, and the errors builders or data files raise are reported at the YAML key to fix.
"""

from dataclasses import dataclass

from .. import layers as L
from .build_blocks import block_arguments
from .build_checks import check_layer
from ..config.errors import ConfigError
from ..config.resolved import Ref, Typed
from ..data import Batcher, DataError, apply_transforms, conform, load_source
from ..data.missing import Missing
from ..data.preprocessing import lengths_feeds
from ..data.ragged import LENGTHS_SUFFIX, Ragged
from ..base.errors import PeError, ShapeError
from ..framework import Program, program_guard, source_guard, unique_name
from ..training.optimizer import SGD


# -- the model ----------------------------------------------------------------------------------


@dataclass
class BuiltModel:
    spec: object  # the checked ModelSpec (pe_cli/config/model.py)
    vars: dict  # feed or layer name -> Variable (or a tuple for multi-output layers)
    feeds: list  # feed Variables, in declaration order

    def var(self, ref):
        """The variable of a Ref, of a loss or fetch as the config wrote it ('both[1]': the spec's refs),
        or of a feed or layer name."""
        if isinstance(ref, str):
            ref = self.spec.refs.get(ref) or Ref(ref)
        value = self.vars[ref.name]
        return value if ref.index is None else value[ref.index]

    @property
    def loss(self):
        return self.var(self.spec.loss) if self.spec.loss else None

    def fetch_vars(self, names):
        return {name: self.var(name) for name in names}


def build_model(spec):
    """Builds a checked model spec (pe_cli.config's load_model, load_config) into the current default
    main/startup programs. Returns a BuiltModel."""
    if not spec.resolved:
        raise PeError(
            f"the model spec '{spec.name}' is not checked; load it with pe_cli.config.load_model "
            f"(or pass it to check_model) before building it"
        )
    built = BuiltModel(spec, {}, [])
    for feed in spec.feeds.values():
        with source_guard(feed.location):
            var = L.data(
                name=feed.name,
                shape=list(feed.shape),
                dtype=feed.dtype,
                lod_level=feed.lod_level,
                append_batch_size=feed.append_batch_size,
                check_feed=True,
            )
        built.vars[feed.name] = var
        built.feeds.append(var)
    for layer in spec.layers:
        built.vars[layer.name] = _build_layer(built, layer)
    _check_loss(built)
    return built


def _arguments(built, layer):
    kwargs = {}
    for key, value in layer.kwargs.items():
        if isinstance(value, Ref) or (isinstance(value, list) and value and isinstance(value[0], Ref)):
            kwargs[key] = _deref(built, layer, key, value)
        else:
            kwargs[key] = _make(value) if isinstance(value, Typed) else value
    return kwargs


def _build_layer(built, layer):
    if layer.block is not None:  # a recurrent block: its step builds its layers through this function
        kwargs = block_arguments(built, layer, _build_layer)
    else:
        kwargs = _arguments(built, layer)
    if layer.takes_name:
        kwargs["name"] = layer.name
    if layer.block is None and layer.label is None:  # a layer of the file (not of a block's step)
        check_layer(built.spec, layer, kwargs)
    with source_guard(layer.location):
        try:
            out = layer.fn(**kwargs)
        except ConfigError:
            raise
        except (PeError, TypeError, ValueError) as e:
            suspect = layer.suspect if isinstance(e, TypeError) else None
            if suspect is not None:
                key, value = suspect
                raise layer.doc.error(
                    layer.path + (key,),
                    f"layer type '{layer.type}' failed with {key}: {value!r} ({type(e).__name__}: {e})",
                    f"'{key}' probably takes a number, not a string",
                ) from None
            raise layer.doc.error(layer.path, _strip_location(str(e), layer.location), _hint_for(e)) from None
    if out is None:
        raise layer.doc.error(
            layer.path, f"layer type '{layer.type}' returned nothing to refer to", "it cannot be used in a model file"
        )
    if layer.batch_mean and not isinstance(out, (tuple, list)) and any(d != 1 for d in out.shape or []):
        with source_guard(layer.location):
            out = L.mean(out)  # a loss written in place: its mean over the batch
    return out


def _deref(built, layer, key, value):
    if isinstance(value, list):
        return [built.var(v) for v in value]
    var = built.var(value)
    if isinstance(var, (tuple, list)) and key not in ("input", "inputs", "x"):
        raise layer.doc.error(
            layer.path + (key,),
            f"'{value.text}' has {len(var)} outputs",
            f"pick one: {value.text}[0] ... {value.text}[{len(var) - 1}]",
        )
    return var


def _strip_location(message, location):
    """The error line already starts with file:line:col; drop the builder's copy of it."""
    return message.replace(f" built at {location}", "").replace(f" (built at {location})", "")


def _hint_for(error):
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
        raise spec.loss_doc.error(
            ("loss",),
            f"the loss '{spec.loss}' has shape {shape}; it must be a scalar",
            f"add a layer '- avg_loss: {{type: mean, x: {spec.loss}}}' and set loss: avg_loss",
        )
    if not str(loss.dtype).startswith("float"):
        raise spec.loss_doc.error(
            ("loss",), f"the loss '{spec.loss}' is {loss.dtype}; it must be a float", "name a float layer as the loss"
        )


# -- the optimizer ------------------------------------------------------------------------------


def make_optimizer(spec):
    """The optimizer of an OptimizerSpec (config/run.py's resolve_optimizer), made now: a schedule
    appends its ops to the current program."""
    kwargs = {key: _make(value) for key, value in spec.kwargs.items()}
    try:
        return spec.cls(**kwargs)
    except (PeError, TypeError, ValueError) as e:
        raise spec.doc.error(spec.path, f"optimizer '{spec.name}': {e}") from None


def _make(value):
    """A Typed value (config/resolved.py) made, after the Typed values among its arguments (alone or
    in a list); any other value as it is."""
    if isinstance(value, list):
        return [_make(v) for v in value]
    if not isinstance(value, Typed):
        return value
    args = {key: _make(arg) for key, arg in value.args.items()}
    try:
        return value.fn(**args)
    except (PeError, TypeError, ValueError) as e:
        raise value.doc.error(value.path, f"{value.what} '{value.name}': {e}") from None


# -- the programs -------------------------------------------------------------------------------


@dataclass
class Programs:
    main: object
    startup: object
    test: object
    model: BuiltModel
    optimizer: object = None

    def fetch_vars(self, names):
        return [self.model.var(n) for n in names]


def build_programs(model_spec, cfg=None, seed=None, with_optimizer=True):
    """Builds ``model_spec`` into fresh programs inside a fresh unique-name namespace (so the same
    config always gives the same variable names, which checkpoints rely on), and clones the test
    program before the optimizer is added, as a Fluid script would. With a run config ``cfg`` and
    ``with_optimizer``, its optimizer's minimize(loss) is appended to the main program (SGD with
    learning rate 0.01 for a bare model file). The sizes the data decides are filled first
    (run/preprocessing.py's ``fill_data_sizes``)."""
    main, startup = Program(), Program()
    if seed is None:
        seed = cfg.data["seed"] if cfg is not None else 1
    main.random_seed = startup.random_seed = seed
    optimizer = None
    with program_guard(main, startup), unique_name.guard():
        model = build_model(model_spec)
        test = main.clone(for_test=True)
        if with_optimizer and model_spec.loss is not None:
            optimizer = make_optimizer(cfg.optimizer) if cfg is not None else SGD(learning_rate=0.01)
            _minimize(optimizer, model, cfg)
    return Programs(main, startup, test, model, optimizer)


def _minimize(optimizer, model, cfg):
    try:
        optimizer.minimize(model.loss)
    except PeError as e:
        if cfg is None:
            raise
        raise cfg.doc.error(("optimizer",), f"building the optimizer failed: {e}") from None


# -- the data -----------------------------------------------------------------------------------

LABEL_ARGS = ("label",)  # the layer arguments that take a label feed


def layer_refs(layer):
    """(argument key, referenced name) of every feed or layer a checked layer reads (its arguments
    resolved to Refs)."""
    for key, value in layer.kwargs.items():
        for ref in value if isinstance(value, list) else [value]:
            if isinstance(ref, Ref):
                yield key, ref.name


def split_feeds(spec):
    """(input feeds, label feeds) of a checked model spec."""
    labels = {
        name for layer in spec.layers for key, name in layer_refs(layer) if key in LABEL_ARGS and name in spec.feeds
    }
    return [f for f in spec.feeds if f not in labels], [f for f in spec.feeds if f in labels]


def source_columns(cfg, which, extra=None):
    """{feed: array} of data.train or data.eval as the source gives them: the feeds
    data.preprocessing names still raw (strings, image paths, numbers with NaN where missing);
    ``extra`` (name, column): one more column, raw, under that name (data.split's stratify column)."""
    doc, model = cfg.doc, cfg.model
    source = cfg.data["data"][which]
    if source is None:
        raise doc.error(("data",), f"data.{which} is not given", f"add a data.{which} source")
    specs = cfg.data["data"]["preprocessing"]
    lengths = lengths_feeds(specs)
    feeds = [f for f in model.feeds if f not in lengths]
    kinds = {f: s["kind"] for f, s in specs.items()}
    if extra is not None:
        name, column = extra
        source = {**source, "columns": {**(source.get("columns") or {}), name: column}}
        feeds, kinds = feeds + [name], {**kinds, name: "category"}
    try:
        return load_source(source, feeds, model.feeds, kinds, missing_of(cfg))
    except DataError as e:
        if extra is not None and extra[0] in e.key:
            raise doc.error(
                ("data", "split", "stratify"),
                e.message.replace(f" for feed '{extra[0]}'", ""),
                "name a feed or a column of data.train",
            ) from None
        raise doc.error(_column_key(cfg, which, e), e.message, e.hint) from None


def _column_key(cfg, which, error):
    """Where a source's column error belongs: data.<which>.columns.<feed>, or, where the feed's
    columns come from data.preprocessing.<feed>.columns (the source names none), that key's item."""
    key = error.key
    if len(key) >= 2 and key[0] == "columns" and ("data", which, "columns", key[1]) not in cfg.doc.marks:
        spec = cfg.data["data"]["preprocessing"].get(key[1]) or {}
        if spec.get("columns") is not None:
            wanted = spec["columns"] if isinstance(spec["columns"], list) else [spec["columns"]]
            named = next((i for i, c in enumerate(wanted) if f"no column '{c}'" in error.message), None)
            at = ("data", "preprocessing", key[1], "columns")
            return at + ((named,) if named is not None and isinstance(spec["columns"], list) else ())
    return ("data", which) + key


def missing_of(cfg):
    """The missing fields of data.missing, data.preprocessing's own lists and data.on_missing_label
    (for the label feeds of the model: a class label's and a regression target's rows)."""
    d = cfg.data["data"]
    own = {f: s["missing"] for f, s in d["preprocessing"].items() if s.get("missing") is not None}
    return Missing(tuple(d["missing"]), own, d["on_missing_label"], frozenset(split_feeds(cfg.model)[1]))


def load_columns(cfg, which, preprocessing=None, columns=None):
    """{feed: array} for data.train or data.eval (or ``columns``, a part's raw columns:
    run/split.py), preprocessed (with the fitted ``preprocessing`` that data.preprocessing needs:
    run/preprocessing.py), transformed and conformed to the feeds; the data's errors are reported
    at the config key to fix."""
    doc, model = cfg.doc, cfg.model
    columns = dict(columns) if columns is not None else source_columns(cfg, which)
    at = ("data", which) if which in ("train", "eval") else ("data", "split")
    if cfg.data["data"]["preprocessing"] and preprocessing is None:
        raise PeError(
            "data.preprocessing needs the preprocessing fitted on data.train (pe train writes it as "
            "<run dir>/preprocessing.json)"
        )
    if preprocessing is not None:
        try:
            columns.update(preprocessing.apply(columns, f"data.{which}"))
        except DataError as e:
            raise doc.error(at, e.message, e.hint) from None
    out = {}
    for name in model.feeds:
        feed = model.feeds[name]
        transforms = cfg.data["data"]["transforms"].get(name, [])
        column = columns[name]
        ragged = isinstance(column, Ragged)
        if feed.lod_level != (1 if ragged else 0):
            raise _lod_mismatch(feed, name, ragged)
        try:
            array = apply_transforms(column.values if ragged else column, transforms)
        except DataError as e:
            raise doc.error(("data", "transforms", name) + e.key, e.message, e.hint) from None
        try:
            array = conform(array, name, feed.full_shape, feed.dtype)
        except DataError as e:
            raise doc.error(at, e.message, e.hint) from None
        out[name] = column.with_values(array) if ragged else array
    return out


def _lod_mismatch(feed, name, ragged):
    if ragged:
        return feed.doc.error(
            feed.path + ("lod_level",),
            f"the data gives sequences for '{name}' "
            f"('{name}{LENGTHS_SUFFIX}' is in the archive) but the feed has lod_level {feed.lod_level}",
            "use lod_level: 1",
        )
    return feed.doc.error(
        feed.path + ("lod_level",),
        f"lod_level {feed.lod_level} needs sequences, but the data gives '{name}' as a plain array",
        f"put '{name}' (all steps' rows) and '{name}{LENGTHS_SUFFIX}' (one length per sample) in an "
        f".npz source, or use lod_level: 0",
    )


def load_data(cfg, which, preprocessing=None, columns=None):
    """A Batcher over data.train (shuffled as data says) or data.eval (in order), or a part of
    data.split (``columns``: its raw columns), checked against the batch size and the devices."""
    d, doc = cfg.data["data"], cfg.doc
    columns = load_columns(cfg, which, preprocessing, columns)
    n = len(next(iter(columns.values())))
    if which == "train":
        batcher = Batcher(columns, d["batch_size"], d["shuffle"], d["drop_last"], d["seed"])
        size_path = ("data", "batch_size")
    else:
        batcher = Batcher(columns, d["eval_batch_size"], False, False, d["seed"])
        size_path = ("data", "eval_batch_size")
    if len(batcher) == 0:
        raise doc.error(
            size_path,
            f"data.{which} has {n} samples, fewer than one batch of {batcher.batch_size} with drop_last",
            "lower the batch size or set drop_last: false",
        )
    devices = cfg.data["devices"]
    if devices > 1 and n < devices:
        raise doc.error(
            ("data", which), f"{n} samples cannot be split over {devices} devices", "use more samples or fewer devices"
        )
    rest = n % batcher.batch_size
    if which == "train" and devices > 1 and rest and rest < devices and not batcher.drop_last:
        raise doc.error(
            size_path,
            f"the last batch of each epoch has {rest} sample(s) "
            f"({n} samples, batches of {batcher.batch_size}), fewer than the {devices} devices",
            "set data.drop_last: true, or change batch_size or the number of samples",
        )
    return batcher
