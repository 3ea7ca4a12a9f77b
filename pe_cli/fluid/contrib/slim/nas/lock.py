"""``paddle.fluid.contrib.slim.nas.lock``: ``lock(file)`` / ``unlock(file)``, an exclusive lock on an
open file (fcntl's flock; POSIX only, as Fluid's)."""

import os  # noqa: F401 -- Fluid's module has it
from fcntl import LOCK_EX, LOCK_UN, flock


def lock(file):
    flock(file.fileno(), LOCK_EX)


def unlock(file):
    flock(file.fileno(), LOCK_UN)
