"""The YAML side of pe: model files and run configs, loaded safely, validated completely (errors
name file:line:col, the key path and the fix) and resolved into plain specs (ModelSpec, RunConfig).
Building them into programs, an optimizer and data is pe_cli.run.build's work."""

from .errors import ConfigError  # noqa: F401
from .model import ModelSpec, check_model, load_model  # noqa: F401
from .run import RunConfig, load_config  # noqa: F401
