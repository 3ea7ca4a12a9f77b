"""The YAML side of pe: model files and run configs, loaded safely, validated completely (errors
name file:line:col, the key path and the fix), resolved, and compiled through the layer builders."""
from .errors import ConfigError  # noqa: F401
from .model import build_model, check_model, load_model  # noqa: F401
from .run import RunConfig, load_config, make_optimizer  # noqa: F401
