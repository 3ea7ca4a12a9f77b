"""Fluid 1.8's ``contrib.slim.core.config``: ConfigFactory builds the pruners, quantizers,
distillers and strategies a slim YAML file names, and the ``compressor`` section's settings.
The file is loaded with yaml.safe_load; every mistake is a one-line error naming the file and key."""

import inspect
import os

import yaml

from .....base.errors import PeError, suggest
from .. import distillation, nas, prune, quantization, searcher

__all__ = ["ConfigFactory"]

_SECTIONS = ("distillers", "pruners", "quantizers", "strategies", "controllers")
_TOP_KEYS = ("version", "include", "compressor") + _SECTIONS
_COMPRESSOR_KEYS = ("epoch", "checkpoint_path", "strategies", "init_model", "eval_epoch")


class SlimConfigError(PeError, ValueError):
    """A slim YAML file pe cannot use."""


def _classes():
    modules = (prune, quantization, distillation, nas, searcher)
    return {
        name: getattr(module, name)
        for module in modules
        for name in module.__all__
        if inspect.isclass(getattr(module, name))
    }


class ConfigFactory:
    """Reads ``config`` (a path) and builds its instances; ``compressor`` holds the settings."""

    def __init__(self, config):
        self.instances = {}
        self.compressor = {}
        self.version = None
        self._classes = _classes()
        self._parse_config(config)

    def instance(self, name):
        return self.instances.get(name)

    def _fail(self, path, where, what):
        raise SlimConfigError(f"{path}: {where}: {what}")

    def _load(self, path):
        try:
            with open(path, encoding="utf-8") as f:
                data = yaml.safe_load(f)
        except OSError as e:
            raise SlimConfigError(f"{path}: cannot read the slim config: {e.strerror}") from None
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f"line {mark.line + 1}" if mark is not None else "YAML"
            raise SlimConfigError(f"{path}: {where}: not valid YAML ({getattr(e, 'problem', None) or e})") from None
        if not isinstance(data, dict):
            raise SlimConfigError(f"{path}: the slim config must be a mapping of sections ({', '.join(_TOP_KEYS)})")
        return data

    def _parse_config(self, path):
        data = self._load(path)
        for key, value in data.items():
            if key not in _TOP_KEYS:
                self._fail(path, key, "unknown section; " + suggest(key, _TOP_KEYS))
            if key == "version":
                self.version = value
            elif key == "include":
                for included in value or []:
                    self._parse_config(os.path.join(os.path.dirname(path), str(included).strip()))
            elif key in _SECTIONS:
                if not isinstance(value, dict):
                    self._fail(path, key, "must map instance names to their settings")
                for name, attrs in value.items():
                    self._new_instance(path, f"{key}.{name}", name, attrs)
            else:
                self._parse_compressor(path, value)

    def _new_instance(self, path, where, name, attrs):
        if not isinstance(attrs, dict) or "class" not in attrs:
            self._fail(path, where, "needs a 'class' key naming the class to build")
        class_ = self._classes.get(attrs["class"])
        if class_ is None:
            self._fail(
                path, f"{where}.class", f"unknown class {attrs['class']!r}; " + suggest(attrs["class"], self._classes)
            )
        params = list(inspect.signature(class_.__init__).parameters)[1:]
        args = {}
        for key, value in attrs.items():
            if key == "class":
                continue
            if key not in params:
                self._fail(
                    path, f"{where}.{key}", f"{attrs['class']} takes no such argument; it takes " + ", ".join(params)
                )
            args[key] = self._resolve(value)
        try:
            self.instances[name] = class_(**args)
        except (TypeError, ValueError) as e:
            self._fail(path, where, str(e))

    def _resolve(self, value):
        if isinstance(value, str) and value.lower() == "none":
            return None
        if isinstance(value, str) and value in self.instances:
            return self.instances[value]
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        return value

    def _parse_compressor(self, path, value):
        if not isinstance(value, dict) or "epoch" not in value:
            self._fail(path, "compressor", "must be a mapping with at least 'epoch'")
        for key in value:
            if key not in _COMPRESSOR_KEYS:
                self._fail(path, f"compressor.{key}", "unknown key; " + suggest(key, _COMPRESSOR_KEYS))
        if not isinstance(value["epoch"], int) or value["epoch"] < 0:
            self._fail(path, "compressor.epoch", f"must be a non-negative integer, not {value['epoch']!r}")
        if "init_model" in value:
            self._fail(
                path,
                "compressor.init_model",
                "pe does not load an init_model; resume from a "
                "checkpoint_path, or load the parameters into the scope before run()",
            )
        self.compressor = {k: v for k, v in value.items() if k != "strategies"}
        self.compressor["strategies"] = []
        for i, name in enumerate(value.get("strategies") or []):
            strategy = self.instances.get(name)
            if strategy is None or not hasattr(strategy, "on_epoch_begin"):
                self._fail(
                    path, f"compressor.strategies[{i}]", f"{name!r} is not a strategy defined under 'strategies'"
                )
            self.compressor["strategies"].append(strategy)
