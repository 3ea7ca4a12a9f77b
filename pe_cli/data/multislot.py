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

import os
import subprocess

import numpy as np

from ..base.errors import PeError
from ..base.limits import check_bytes, regular_file
from ..framework.lod_tensor import LoDTensor
from ..kernels.cpu.runtime.loops import lazy

_loops = lazy("_multislot_loops")  # numba loops, imported on first use

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
        ``pipe_command``, of what that shell command prints given the file on its input. The bytes
        are parsed by numba loops that release the GIL (_multislot_loops.py)."""
        columns, counts = self.parse_file(path, pipe_command)
        yield from self._batches(columns, counts, path, 0, counts.shape[0])

    def batches_across(self, paths, pipe_command=None):
        """Yields the batches of several files read one after another as one stream of samples, as
        Fluid 1.8.5's MultiSlotDataFeed does for a thread's files: a batch that a file ends short of
        full takes its remaining samples from the next file; only the stream's last batch may be smaller."""
        carry = None  # (columns, counts, path) of the samples not yet batched
        for path in paths:
            columns, counts = self.parse_file(path, pipe_command)
            if carry is not None:
                columns = {n: np.concatenate([carry[0][n], columns[n]]) for n in columns}
                counts = np.concatenate([carry[1], counts])
            full = counts.shape[0] - counts.shape[0] % self.batch_size
            yield from self._batches(columns, counts, path, 0, full)
            offsets = self._offsets(counts)
            carry = ({n: columns[n][offsets[n][full] :] for n in columns}, counts[full:], path)
        if carry is not None and carry[1].shape[0]:
            yield from self._batches(carry[0], carry[1], carry[2], 0, carry[1].shape[0])

    def _offsets(self, counts):
        return {name: np.concatenate([[0], np.cumsum(counts[:, s])]) for s, name in self._used_index()}

    def _batches(self, columns, counts, path, start, stop):
        offsets = self._offsets(counts)
        for a in range(start, stop, self.batch_size):
            b = min(a + self.batch_size, stop)
            yield {
                name: self._slot_batch(name, columns[name][offsets[name][a] : offsets[name][b]], counts[a:b, s], path)
                for s, name in self._used_index()
            }

    def parse_file(self, path, pipe_command=None):
        """({used slot: its values, every line's one after another}, counts [lines, slots])."""
        text = piped_text(path, pipe_command) if pipe_command else read_text(path)
        return self._parse_buffer(np.frombuffer(text.encode("ascii"), dtype=np.uint8), path)

    def _used_index(self):
        return [(s, name) for s, (name, _, _, used) in enumerate(self.slots) if used]

    def _parse_buffer(self, buf, path):
        loops = _loops()
        kinds = np.array([0 if kind == "uint64" else 1 for _, kind, _, _ in self.slots], dtype=np.int64)
        used = np.array([bool(u) for *_, u in self.slots])
        counts, code, line, slot = loops.count_slots(buf, len(self.slots), int(np.count_nonzero(buf == 10)) + 1)
        self._raise(code, path, line, slot)
        totals = counts.sum(axis=0) * used
        is_int = kinds == 0
        int_base = np.concatenate([[0], np.cumsum(np.where(is_int, totals, 0))[:-1]]).astype(np.int64)
        float_base = np.concatenate([[0], np.cumsum(np.where(is_int, 0, totals))[:-1]]).astype(np.int64)
        ints = np.empty(int(np.where(is_int, totals, 0).sum()), dtype=np.int64)
        floats = np.empty(int(np.where(is_int, 0, totals).sum()), dtype=np.float64)
        code, line, slot = loops.fill_values(buf, counts, kinds, used, ints, floats, int_base, float_base)
        self._raise(code, path, line, slot)
        columns = {}
        for s, name in self._used_index():
            base, values = (int_base[s], ints) if is_int[s] else (float_base[s], floats)
            columns[name] = values[base : base + totals[s]].astype(_DTYPES[self.slots[s][1]], copy=False)
        return columns, counts

    def _raise(self, code, path, line, slot):
        if code:
            name, kind = self.slots[slot][0], self.slots[slot][1]
            raise PeError(_message(code, path, line, name, kind, len(self.slots)))

    def _slot_batch(self, name, values, counts, path):
        kind, dense = self.used[name]
        if dense:
            if counts.min() != counts.max():
                raise PeError(
                    f"{path}: dense slot '{name}' has {counts.min()} to {counts.max()} values per line; "
                    f"a dense slot has the same count on every line (or declare it sparse)"
                )
            return values.reshape(len(counts), int(counts[0]))
        tensor = LoDTensor()
        tensor.set(values.reshape(-1, 1), None)
        tensor.set_recursive_sequence_lengths([counts.tolist()])
        return tensor

    def batches_of(self, lines):
        """Yields the batches of (source, line number, line) triples, in their order."""
        rows = {name: [] for name in self.used}
        counts = {name: [] for name in self.used}
        where = []  # (source, line number) of each sample of the batch
        for path, lineno, line in lines:
            if not line.strip():
                continue
            self._parse(line.split(), rows, counts, path, lineno)
            where.append((path, lineno))
            if len(where) == self.batch_size:
                yield self._batch(rows, counts, where)
                rows = {name: [] for name in self.used}
                counts = {name: [] for name in self.used}
                where = []
        if where:
            yield self._batch(rows, counts, where)

    def _parse(self, tokens, rows, counts, path, lineno):
        p = 0
        for name, kind, _, used in self.slots:
            if p >= len(tokens):
                raise PeError(_message(NO_COUNT, path, lineno, name, kind, len(self.slots)))
            try:
                n = int(tokens[p])
            except ValueError:
                n = 0
            if n < 1:
                raise PeError(_message(BAD_COUNT, path, lineno, name, kind, len(self.slots)))
            if p + 1 + n > len(tokens):
                raise PeError(_message(SHORT, path, lineno, name, kind, len(self.slots)))
            if used:
                rows[name].extend(tokens[p + 1 : p + 1 + n])
                counts[name].append(n)
            p += 1 + n
        if p != len(tokens):
            last = self.slots[-1]
            raise PeError(_message(EXTRA, path, lineno, last[0], last[1], len(self.slots)))

    def _batch(self, rows, counts, where):
        out = {}
        for name, (kind, dense) in self.used.items():
            try:
                values = np.array(rows[name], dtype=np.float64 if kind == "float" else np.int64)
            except (ValueError, OverflowError):
                bad = next(i for i, t in enumerate(rows[name]) if not _number(t, kind))
                path, line = where[int(np.searchsorted(np.cumsum(counts[name]), bad, side="right"))]
                raise PeError(_message(BAD_NUMBER, path, line, name, kind, len(self.slots))) from None
            out[name] = self._slot_batch(
                name, values.astype(_DTYPES[kind], copy=False), np.array(counts[name]), where[0][0]
            )
        return out


NO_COUNT, BAD_COUNT, SHORT, EXTRA, BAD_NUMBER = 1, 2, 3, 4, 5  # as _multislot_loops's codes


def _message(code, path, line, name, kind, nslots):
    where = f"{path}:{line}"
    return {
        NO_COUNT: f"{where}: slot '{name}': the line ends before it (each slot is a count, then that many values)",
        BAD_COUNT: f"{where}: slot '{name}': its count is not a positive integer",
        SHORT: f"{where}: slot '{name}': fewer values than its count",
        EXTRA: f"{where}: values after the last slot '{name}' (the description has {nslots} slots)",
        BAD_NUMBER: f"{where}: slot '{name}' ({kind}): a value is not a number of that type"
        + (" (ids are integers from -2^63 to 2^63-1)" if kind == "uint64" else ""),
    }[code]


def _readable(path):
    """``path`` when it is a regular file whose values fit pe's memory limit (a FIFO would block the
    reader forever); else a one-line PeError."""
    try:
        regular_file(path, "MultiSlot data file")
    except FileNotFoundError:
        raise PeError(f"data file {path} does not exist") from None
    # the text, its bytes, the counts and 8 bytes of value for every 2 bytes of text ("1 7 ..."):
    # measured, 40 MB of "1 1 1 1" lines took 280 MB
    check_bytes(os.path.getsize(path) * 8, f"{path} (a MultiSlot file of {os.path.getsize(path):,} bytes)")
    return path


def read_text(path):
    try:
        with open(_readable(path), encoding="ascii") as f:
            return f.read()
    except UnicodeDecodeError:
        raise PeError(f"{path}: not a MultiSlot text file (numbers separated by spaces)") from None


def piped_text(path, command):
    """What ``command`` (a shell command, as Fluid's set_pipe_command) prints with the file as its input."""
    try:
        with open(_readable(path), "rb") as f:
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
        return True if kind == "float" and float(token) is not None else -(2**63) <= int(token) < 2**63
    except ValueError:
        return False
