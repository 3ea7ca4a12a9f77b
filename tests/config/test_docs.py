"""docs/CONFIG.md documents exactly what the code accepts: the keys of both YAML documents (compared
with the schema the loader validates with), the variable-taking layer arguments, and each command's
options (compared with the click commands behind ``pe --help``)."""

from paths import REPO
import os
import re

from pe_cli.cli.main import main
from pe_cli.config.keys import MODEL, RUN
from pe_cli.config.model import TENSOR_ARGS
from pe_cli.config.schema import documented_keys

DOC = os.path.join(REPO, "docs", "CONFIG.md")


def _section(text, title):
    start = text.index(f"\n## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def _expand(key):
    m = re.search(r"\{([^{}]*,[^{}]*)\}", key)
    if not m:
        return [key]
    return [k for part in m.group(1).split(",") for k in _expand(key[: m.start()] + part + key[m.end() :])]


def _table_keys(section):
    keys = []
    for line in section.splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if m:
            keys += _expand(m.group(1))
    return keys


def _doc():
    with open(DOC, encoding="utf-8") as f:
        return f.read()


def test_model_keys_match_the_schema():
    documented = _table_keys(_section(_doc(), "The model file"))
    assert len(documented) == len(set(documented)), "a key is documented twice"
    assert set(documented) == set(documented_keys(MODEL))


def test_run_config_keys_match_the_schema():
    documented = _table_keys(_section(_doc(), "The run config"))
    assert len(documented) == len(set(documented)), "a key is documented twice"
    missing = set(documented_keys(RUN)) - set(documented)
    extra = set(documented) - set(documented_keys(RUN))
    assert not missing and not extra, f"undocumented: {sorted(missing)}; documented but not accepted: {sorted(extra)}"


def test_variable_arguments_are_documented():
    text = _section(_doc(), "The model file")
    para = text[text.index("**References.**") : text.index("**Other arguments**")]
    listed = set(re.findall(r"`([a-z_]+)`", para.split("name a feed")[0]))
    assert listed == set(TENSOR_ARGS)


def test_command_options_match_the_cli():
    commands = _section(_doc(), "The commands")
    for name, command in main.commands.items():
        m = re.search(rf"^- `pe {name}( [^`]*)?`", commands, re.M)
        assert m, f"pe {name} is not documented under 'The commands'"
        usage = m.group(0)
        written = set(re.findall(r"(?<![\w-])(--?[a-z][a-z_-]*)", usage))  # _: paddle.distributed.launch's
        params = [
            p
            for p in command.params
            if getattr(p, "opts", None)
            and p.opts[0].startswith("-")
            and p.name not in ("debug", "help")
            and not getattr(p, "hidden", False)
        ]
        undocumented = [p.opts for p in params if not written & set(p.opts + p.secondary_opts)]
        known = {o for p in params for o in p.opts + p.secondary_opts}
        assert not undocumented, f"pe {name}: options not in the docs: {undocumented}"
        assert written <= known, f"pe {name}: the docs show options it does not have: {sorted(written - known)}"


def test_every_documented_command_exists():
    commands = _section(_doc(), "The commands")
    for name in re.findall(r"`pe ([a-z]+)[ `]", commands):
        assert name in main.commands, f"docs mention 'pe {name}', which does not exist"
