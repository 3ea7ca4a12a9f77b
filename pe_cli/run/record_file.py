"""Reading a run's record files (config.yaml, model.yaml, trainer_state.json, overrides.json): a file
on disk that anyone may have edited, cut short or replaced, so it is bounded before it is parsed (a
record pe writes is a few KiB; 1 MiB at most is read) and a problem is one phrase for the caller's
one-line error, which refuses the command: no check is skipped because its input is damaged."""

import os

import yaml

from ..base import json_once
from ..base.limits import file_kind

MAX_RECORD_BYTES = 1 << 20


def load_record(path, refused, kind="yaml"):
    """What the record ``path`` holds (YAML loaded safely, or JSON); else ``refused(why)`` is raised,
    ``why`` a phrase following the path ("is a directory, not a regular file")."""
    what = file_kind(path)
    if what is not None:
        raise refused("is missing" if what == "missing" else f"is {what}, not a regular file")
    size = os.path.getsize(path)
    if size > MAX_RECORD_BYTES:
        raise refused(f"is {size:,} bytes, above the {MAX_RECORD_BYTES:,} a record may have")
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_RECORD_BYTES + 1).decode("utf-8")
        return yaml.safe_load(text) if kind == "yaml" else json_once.loads(text)
    except OSError as e:
        raise refused(f"cannot be read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise refused("is not UTF-8 text") from None
    except yaml.YAMLError as e:
        raise refused(f"is not YAML pe wrote ({str(e).splitlines()[0][:120]})") from None
    except (ValueError, RecursionError) as e:
        raise refused(f"is not JSON pe wrote ({str(e)[:120]})") from None
