"""Run configs: load, apply overrides, validate every key, resolve paths and defaults, and check the
model, the optimizer and the data against each other, all before anything runs.

    cfg = load_config("configs/mnist_lenet.yaml", ["optimizer.learning_rate=0.05"])
    cfg.data            # the resolved run config as plain data (what --print-config prints)
    cfg.model           # the ModelSpec (includes expanded, references checked, values typed)
    cfg.optimizer       # the OptimizerSpec (config/resolved.py: class, arguments, schedule, defaults)

Nothing is built or loaded here: pe_cli.run.build makes the programs, the optimizer and the data.
"""

import inspect
import os
from dataclasses import dataclass

import numpy as np

from ..base import limits
from ..base.output_rule import note_read
from ..data import DataError
from ..data.preprocessing import check_preprocessing
from ..data.sources import PATH_FORMATS
from ..data.transforms import check_transform
from . import registries
from .data_feeds import implied_feeds, source_columns
from .features import feature_preprocessing, has_features
from .ludwig import is_ludwig
from .ludwig_run import check_run_keys
from .errors import ConfigError, suggest
from .keys import RUN
from .model import ModelSpec, default_fetches, load_model
from .overrides import ArgMark, apply_feature_overrides, apply_overrides, split_model_overrides
from .resolved import OptimizerSpec, Ref, Typed
from .schema import describe, validate
from .typed import check_arguments, resolve
from .values import typed_value
from .yamlfile import missing_hint, display_path, load_yaml


@dataclass
class RunConfig:
    """A checked run config: ``data`` is the resolved config as plain data (what --print-config
    prints), ``model`` the checked ModelSpec, ``optimizer`` the OptimizerSpec the build makes the
    optimizer from, ``doc`` the YAML document errors are reported in."""

    path: str
    doc: object
    data: dict
    model: ModelSpec
    overrides: tuple = ()  # the key.path=value arguments it was loaded with, in order
    optimizer: OptimizerSpec = None
    train_fetches: list = None  # fetch.names, the model's fetches by default (data's own list)
    eval_fetches: list = None  # eval.fetches, likewise

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]

    def to_data(self):
        return self.data


def load_config(path, overrides=()):
    """Loads and checks a run config; raises ConfigError (one line: file:line:col: key: what; fix)."""
    doc = load_yaml(path, "run config")
    if isinstance(doc.data, dict) and "model" not in doc.data and ("layers" in doc.data or "feeds" in doc.data):
        raise doc.error(
            (),
            "this is a model file, not a run config",
            "pe train/eval/smoke take a run config (configs/*.yaml) whose 'model:' names the model file",
        )
    if isinstance(doc.data, dict) and "model" not in doc.data and has_features(doc.data):
        _own_run_config(doc, path, overrides)
    if not isinstance(doc.data, dict):
        raise doc.error(
            (),
            f"a run config must be a mapping (model:, data:, ...), got {describe(doc.data)}",
            "see docs/CONFIG.md, 'The run config'",
        )
    given = tuple(overrides)
    overrides, model_overrides = split_model_overrides(given)
    apply_overrides(doc, overrides)
    _feature_preprocessing(doc, model_overrides)
    data = validate(doc, (), doc.data, RUN)
    _resolve_paths(doc, data)
    model_path = data["model"]
    if not os.path.exists(model_path):
        raise doc.error(("model",), f"model file {model_path} does not exist", missing_hint(model_path, "model file"))
    source_columns(data)
    model = load_model(model_path, overrides=model_overrides, implied=implied_feeds(data), implied_doc=doc)
    cfg = RunConfig(path, doc, data, model, given)
    _resolve_defaults(cfg)
    cfg.optimizer = resolve_optimizer(doc, data["optimizer"])
    _check_data(cfg)
    _check_fetches(cfg)
    return cfg


def _own_run_config(doc, path, overrides):
    """A model file of features (a Ludwig config) given with its table (``--dataset``: a data.train
    override) is its own run config: ``model:`` itself, the data the override's, the rest its trainer's
    and split's (config/ludwig_run.py) or pe's defaults."""
    if not any(o.split("=", 1)[0].strip().startswith("data.train") for o in overrides):
        raise doc.error(
            (),
            "this is a model file of features (a Ludwig config is one), not a run config",
            f"give it its table, as Ludwig's --dataset: pe train {os.path.basename(path)} --dataset TABLE.csv, "
            f"or name it in a run config's model: (docs/CONFIG.md, 'Ludwig's spellings')",
        )
    doc.data = {"model": os.path.basename(path)}
    doc.marks[("model",)] = doc.key_marks[("model",)] = doc.mark(())


def _feature_preprocessing(doc, model_overrides):
    """The data.preprocessing entries of the model file's input and output features (config/features.py),
    as its overrides leave them, merged under the run config's own (whose keys win), before the run
    config is validated."""
    model, data = doc.data.get("model"), doc.data.get("data")
    path = os.path.join(_base(doc, ("model",)), model) if isinstance(model, str) else None
    if path is None or not isinstance(data, dict) or not os.path.isfile(path) or limits.file_kind(path) is not None:
        return
    model_doc = load_yaml(path, "model file")
    ludwig = check_run_keys(model_doc) if is_ludwig(model_doc.data) else []
    apply_feature_overrides(model_doc, model_overrides)
    if not has_features(model_doc.data):
        return
    own = data.get("preprocessing") or {}
    if isinstance(own, dict):
        specs = feature_preprocessing(model_doc)
        data["preprocessing"] = {
            **{f: {**s, **(own.get(f) or {})} for f, s in specs.items()},
            **{f: s for f, s in own.items() if f not in specs},
        }
    _ludwig_run_keys(doc, model_doc, ludwig)


def _ludwig_run_keys(doc, model_doc, items):
    """A Ludwig config's trainer and split (config/ludwig_run.py) where the run config (and the command
    line) do not set them, each marked at its line in the model file."""
    for path, value, at in items:
        parent = doc.data
        for key in path[:-1]:
            parent = parent.setdefault(key, {}) if isinstance(parent.get(key, {}), dict) else None
            if parent is None:
                break
        if parent is None or path[-1] in parent:
            continue
        parent[path[-1]] = value
        doc.adopt(model_doc, at, path)
        doc.marks[path] = doc.key_marks[path] = model_doc.mark(at, key=True)


def _base(doc, path):
    mark = doc.marks.get(path)
    if mark is None or isinstance(mark, ArgMark):
        return ""
    return os.path.dirname(mark.file)


def _join(doc, path, value):
    return display_path(os.path.normpath(os.path.join(_base(doc, path), value))) if value else value


def _resolve_paths(doc, data):
    data["model"] = _join(doc, ("model",), data["model"])
    for which in ("train", "eval"):
        src = data["data"][which]
        if src is None:
            continue
        if src.get("path"):
            src["path"] = _join(doc, ("data", which, "path"), src["path"])
            note_read(src["path"], "data file of the config")  # no output of the command may replace it
        for feed, p in (src.get("files") or {}).items():
            src["files"][feed] = _join(doc, ("data", which, "files", feed), p)
            note_read(src["files"][feed], "data file of the config")


def _resolve_defaults(cfg):
    data = cfg.data
    d = data["data"]
    if d["seed"] is None:
        d["seed"] = data["seed"]
    if d["eval_batch_size"] is None:
        d["eval_batch_size"] = d["batch_size"]
    if d["split"] is not None and d["split"]["seed"] is None:
        d["split"]["seed"] = d["seed"]
    if data["fetch"]["names"] is None:
        data["fetch"]["names"] = default_fetches(cfg.model)
    if data["eval"]["fetches"] is None:
        data["eval"]["fetches"] = default_fetches(cfg.model)
    cfg.train_fetches, cfg.eval_fetches = data["fetch"]["names"], data["eval"]["fetches"]
    if data["output"]["dir"] is None:
        data["output"]["dir"] = os.path.join("runs", cfg.name)


def resolve_optimizer(doc, value):
    """The run config's ``optimizer`` checked and typed: an OptimizerSpec whose arguments the build
    passes to the class as they are (a schedule a Typed, epsilon_scaled / bias_correction filled)."""
    path = ("optimizer",)
    if not isinstance(value, dict):
        raise doc.error(
            path,
            f"expected {{type: ..., learning_rate: ...}}, got {describe(value)}",
            "e.g. optimizer: {type: Momentum, learning_rate: 0.01, momentum: 0.9}",
        )
    name, cls, args = resolve(doc, path, with_type(value), registries.optimizers())
    kwargs = dict(args)
    lr = args.get("learning_rate")
    if isinstance(lr, dict):
        kwargs["learning_rate"] = _resolve_schedule(doc, path + ("learning_rate",), lr)
    elif lr is not None and (isinstance(lr, bool) or not isinstance(lr, (int, float)) or lr < 0):
        raise doc.error(
            path + ("learning_rate",),
            f"expected a number >= 0 or a schedule, got {describe(lr)}",
            "e.g. 0.01, or {type: exponential_decay, learning_rate: 0.1, decay_steps: 100, decay_rate: 0.9}",
        )
    elif lr is not None:
        kwargs["learning_rate"] = float(lr)
    for key, ns in (("regularization", registries.regularizers()), ("grad_clip", registries.clips())):
        if args.get(key) is not None:
            kwargs[key] = typed_value(doc, path + (key,), args[key], ns)
    rest = {k: v for k, v in args.items() if k not in ("learning_rate", "regularization", "grad_clip")}
    check_arguments(
        doc,
        path,
        cls,
        rest,
        f"optimizer '{name}'",
        reserved=("name",),
        skip_required=("learning_rate",) if lr is not None else (),
    )
    taken = inspect.signature(cls).parameters
    if "epsilon_scaled" in taken:
        kwargs.setdefault("epsilon_scaled", True)  # a run config's adam: Paddle 2.x's epsilon (docs/CONFIG.md)
    if "bias_correction" in taken:
        kwargs.setdefault("bias_correction", True)  # a run config's lamb: Paddle 2.x's moments
    return OptimizerSpec(name, cls, kwargs, doc, path)


def _resolve_schedule(doc, path, value):
    """A schedule ``{type: ..., arguments}`` as a Typed; an argument or a list item that is a mapping is
    a schedule too (switch_schedule's values, linear_lr_warmup's learning_rate)."""
    sname, fn, sargs = resolve(doc, path, value, registries.schedules(), allow_string=False)
    check_arguments(doc, path, fn, sargs, f"learning-rate schedule '{sname}'")
    args = {}
    for key, arg in sargs.items():
        if isinstance(arg, dict):
            arg = _resolve_schedule(doc, path + (key,), arg)
        elif isinstance(arg, list):
            arg = [_resolve_schedule(doc, path + (key, j), x) if isinstance(x, dict) else x for j, x in enumerate(arg)]
        args[key] = arg
    return Typed(registries.schedules().what, sname, fn, args, doc, path)


def with_type(value):
    """An optimizer without 'type' is SGD, the default optimizer."""
    return value if "type" in value else {"type": "SGD", **value}


def _check_limits(cfg, d, devices):
    """Devices, trainers and threads within the machine's limits, and batches whose samples fit in
    memory (base/limits.py)."""
    data = cfg.data
    for key, name in (
        (("devices",), "devices"),
        (("build_strategy", "num_trainers"), "processes"),
        (("exec_strategy", "thread_num"), "threads"),
    ):
        try:
            limits.check(name, data[key[0]] if len(key) == 1 else data[key[0]].get(key[1], 1), "the count")
        except limits.LimitError as e:
            raise cfg.doc.error(key, str(e)) from None
    sample = sum(feed_bytes(f) for f in cfg.model.feeds.values())
    for key in ("batch_size", "eval_batch_size"):
        if d[key] is not None:
            try:
                limits.check_bytes(d[key] * sample, f"a batch of {d[key]:,} samples of {sample:,} bytes")
            except limits.LimitError as e:
                raise cfg.doc.error(("data", key), str(e), f"use a smaller {key}") from None


def feed_bytes(feed):
    """Bytes of one sample of ``feed`` (a sequence counts as one step)."""
    n = 1
    for d in feed.shape:
        n *= d if isinstance(d, int) and d > 0 else 1  # -1, and auto (a one-hot width, data_feeds.py)
    return n * np.dtype(feed.dtype).itemsize


def _check_data(cfg):
    doc, data = cfg.doc, cfg.data
    d = data["data"]
    feeds = list(cfg.model.feeds)
    for feed in d["transforms"]:
        if feed not in feeds:
            raise doc.error(
                ("data", "transforms", feed), f"'{feed}' is not a feed of the model", suggest(feed, feeds), key=True
            )
    for feed, items in d["transforms"].items():
        for i, item in enumerate(items):
            try:
                check_transform(item)
            except DataError as e:
                raise doc.error(("data", "transforms", feed, i) + e.key, e.message, e.hint) from None
    try:
        check_preprocessing(d["preprocessing"], feeds)
    except DataError as e:
        raise doc.error(("data", "preprocessing") + e.key, e.message, e.hint, key=len(e.key) == 1) from None
    _check_split(doc, d)
    devices = data["devices"]
    _check_limits(cfg, d, devices)
    for key in ("batch_size", "eval_batch_size"):
        if d[key] < devices:
            raise doc.error(
                ("data", key) if ("data", key) in doc.marks else ("devices",),
                f"a batch of {d[key]} cannot be split over {devices} devices",
                f"use {key} >= {devices} (a multiple of it splits evenly) or fewer devices",
            )
    for which in ("train", "eval"):
        if d[which] is not None:
            _check_source(doc, which, d[which])


def _check_source(doc, which, src):
    """data.train or data.eval: the path or the files its format reads, each one there."""
    fmt = src["format"]
    needs_path = fmt in PATH_FORMATS
    if needs_path and not src["path"]:
        raise doc.error(("data", which), f"a {fmt} source needs 'path'", "add path: <file or directory>")
    if not needs_path and not src["files"]:
        raise doc.error(
            ("data", which), f"a {fmt} source needs 'files' (one file per feed)", "add files: {feed: path, ...}"
        )
    if needs_path and src["files"]:
        raise doc.error(("data", which, "files"), f"a {fmt} source reads 'path', not 'files'", "remove files", key=True)
    if not needs_path and src["path"]:
        raise doc.error(
            ("data", which, "path"),
            f"a {fmt} source reads 'files', not 'path'",
            "give one file per feed under files:",
            key=True,
        )
    missing = [p for p in ([src["path"]] if src["path"] else []) + list(src["files"].values()) if not os.path.exists(p)]
    if missing:
        where = (
            ("data", which, "path")
            if src["path"]
            else ("data", which, "files", next(k for k, v in src["files"].items() if v == missing[0]))
        )
        what = "directory" if fmt in ("mnist", "folders") else "file"
        raise doc.error(
            where, f"data {what} {missing[0]} does not exist", "check the path (relative to the config file)"
        )


def _check_split(doc, d):
    """data.split: fractions of data.train that leave it rows, and no second source of eval rows."""
    split = d["split"]
    if split is None:
        return
    path = ("data", "split")
    for part in ("eval", "test"):
        if split[part] is not None and not 0 < split[part] < 1:
            raise doc.error(
                path + (part,),
                f"a fraction of the rows is above 0 and below 1, got {split[part]}",
                "e.g. 0.2, or leave the key out",
            )
    if not split["eval"] and not split["test"]:
        raise doc.error(path, "data.split holds out nothing", "give eval: 0.2 (and/or test: 0.1)")
    if (split["eval"] or 0) + (split["test"] or 0) >= 1:
        raise doc.error(
            path,
            f"eval + test is {split['eval'] + split['test']:g}, which leaves no training rows",
            "keep eval + test below 1 (e.g. eval: 0.2, test: 0.1)",
        )
    if split["eval"] and d["eval"] is not None:
        raise doc.error(
            path + ("eval",),
            "data.eval and data.split.eval both give the eval rows",
            "drop data.eval, or drop data.split.eval (data.split.test may stay)",
        )
    if d["train"] is None:
        raise doc.error(path, "data.split splits data.train, which is not given", "add a data.train source")


def _check_fetches(cfg):
    names = set(cfg.model.names())
    for key in (("fetch", "names"), ("eval", "fetches")):
        for j, name in enumerate(cfg.data[key[0]][key[1]]):
            base = name.split("[", 1)[0]
            if base not in names:
                raise cfg.doc.error(key + (j,), f"'{name}' is not a feed or layer of the model", suggest(name, names))
            cfg.model.refs.setdefault(name, Ref.of(name))


__all__ = ["ConfigError", "RunConfig", "load_config", "resolve_optimizer", "with_type"]
