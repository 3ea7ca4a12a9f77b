"""``paddle.distributed.fs_wrapper``: the file systems of the checkpointing collective fleet (FS,
LocalFS, BDFS: pe_cli/fluid/incubate/fleet/file_system.py, where the fleet below this face uses them)."""

import abc  # noqa: F401 -- Fluid's module has these names
import os  # noqa: F401
import shutil  # noqa: F401
import sys  # noqa: F401
from pathlib import PurePosixPath  # noqa: F401

from ... import fluid  # noqa: F401
from ...fluid.incubate.fleet.file_system import BDFS, FS, LocalFS  # noqa: F401
