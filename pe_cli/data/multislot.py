"""The MultiSlot data format (seed 004's AsyncExecutor): one sample per line, and on each line, for
every slot of the DataFeedDesc in order, a count then that many values:

    3 1023 77 9  1 0.5  1 1          <- words: 3 ids; dense: 1 float; label: 1 id

A ``uint64`` slot holds ids (int64), a ``float`` slot float32 values. A dense slot has the same count
on every line and becomes a [batch, count] array; a sparse one becomes a LoDTensor of [total, 1]
values whose LoD (level 1) gives each sample's run. Only the used slots are kept.

A file is read whole and split into tokens by Python's C-level ``split``; each line's slots are
walked by their counts, and each batch's values are converted by numpy in one call per slot.
A malformed line is one error naming the file, the line and the slot.
"""
import subprocess

import numpy as np

from ..errors import PeError
from ..framework.lod_tensor import LoDTensor

_DTYPES = {"uint64": np.int64, "float": np.float32}


class MultiSlotReader:
    """Batches of {slot name: array (dense) or LoDTensor (sparse)} from MultiSlot files or lines.
    ``desc``: a DataFeedDesc, or anything with ``slots`` [(name, type, is_dense, is_used)],
    ``batch_size`` and ``proto_file`` (where the description came from, for messages)."""

    def __init__(self, desc):
        self.slots = desc.slots
        self.batch_size = desc.batch_size
        used = [s for s in self.slots if s[3]]
        if not used:
            raise PeError(f"{desc.proto_file}: no slot is used (is_used: true, or DataFeedDesc.set_use_slots)")
        self.used = {name: (kind, dense) for name, kind, dense, _ in used}

    def batches(self, path, pipe_command=None):
        """Yields the batches of one file, in file order (the last may be smaller); with a
        ``pipe_command``, of what that shell command prints given the file on its input."""
        text = piped_text(path, pipe_command) if pipe_command else read_text(path)
        return self.batches_of(((path, n, line) for n, line in enumerate(text.split("\n"), start=1)))

    def batches_of(self, lines):
        """Yields the batches of (source, line number, line) triples, in their order."""
        rows = {name: [] for name in self.used}
        counts = {name: [] for name in self.used}
        size, where = 0, None
        for path, lineno, line in lines:
            if not line.strip():
                continue
            where = path
            self._parse(line.split(), rows, counts, path, lineno)
            size += 1
            if size == self.batch_size:
                yield self._batch(rows, counts, path)
                rows = {name: [] for name in self.used}
                counts = {name: [] for name in self.used}
                size = 0
        if size:
            yield self._batch(rows, counts, where)

    def _parse(self, tokens, rows, counts, path, lineno):
        p = 0
        for name, kind, _, used in self.slots:
            if p >= len(tokens):
                raise PeError(f"{path}:{lineno}: slot '{name}': the line ends before it (each slot is a "
                              f"count, then that many values)")
            try:
                n = int(tokens[p])
            except ValueError:
                raise PeError(f"{path}:{lineno}: slot '{name}': expected a count, got {tokens[p][:20]!r}") from None
            if n < 1:
                raise PeError(f"{path}:{lineno}: slot '{name}': count {n}; a slot holds at least one value")
            if p + 1 + n > len(tokens):
                raise PeError(f"{path}:{lineno}: slot '{name}': count {n} but only {len(tokens) - p - 1} "
                              f"values follow")
            if used:
                rows[name].extend(tokens[p + 1:p + 1 + n])
                counts[name].append(n)
            p += 1 + n
        if p != len(tokens):
            raise PeError(f"{path}:{lineno}: {len(tokens) - p} values after the last slot "
                          f"'{self.slots[-1][0]}' (the description has {len(self.slots)} slots)")

    def _batch(self, rows, counts, path):
        out = {}
        for name, (kind, dense) in self.used.items():
            try:
                values = np.array(rows[name], dtype=np.float64 if kind == "float" else np.int64)
            except (ValueError, OverflowError):
                bad = next(t for t in rows[name] if not _number(t, kind))
                raise PeError(f"{path}: slot '{name}' ({kind}): {bad[:20]!r} is not a number of that type") from None
            values = values.astype(_DTYPES[kind], copy=False)
            n = counts[name]
            if dense:
                if len(set(n)) > 1:
                    raise PeError(f"{path}: dense slot '{name}' has {min(n)} to {max(n)} values per line; a dense "
                                  f"slot has the same count on every line (or declare it sparse)")
                out[name] = values.reshape(len(n), n[0])
            else:
                tensor = LoDTensor()
                tensor.set(values.reshape(-1, 1), None)
                tensor.set_recursive_sequence_lengths([n])
                out[name] = tensor
        return out


def read_text(path):
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except FileNotFoundError:
        raise PeError(f"data file {path} does not exist") from None
    except UnicodeDecodeError:
        raise PeError(f"{path}: not a MultiSlot text file (numbers separated by spaces)") from None


def piped_text(path, command):
    """What ``command`` (a shell command, as Fluid's set_pipe_command) prints with the file as its input."""
    try:
        with open(path, "rb") as f:
            proc = subprocess.run(command, shell=True, stdin=f, capture_output=True, timeout=3600)
    except FileNotFoundError:
        raise PeError(f"data file {path} does not exist") from None
    if proc.returncode:
        last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no message"]
        raise PeError(f"pipe command {command!r} failed on {path} (exit status {proc.returncode}): {last[0][:200]}")
    try:
        return proc.stdout.decode("ascii")
    except UnicodeDecodeError:
        raise PeError(f"pipe command {command!r} on {path} printed something that is not MultiSlot text") from None


def _number(token, kind):
    try:
        float(token) if kind == "float" else int(token)
        return True
    except ValueError:
        return False
