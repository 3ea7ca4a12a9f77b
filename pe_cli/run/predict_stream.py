"""``pe predict --data -``: rows piped in, predicted as they arrive, written out as they are predicted.

The rows come from stdin (``--data -``), a FIFO (``--data PATH``) or a table file written to stdout
(``-o -``): CSV/TSV with a header, or JSON Lines (``stream_format``). The model is loaded once; rows
are gathered into a batch until it holds the run's batch size or the next row has not arrived yet
(the descriptor has nothing to read: ``Lines.ready``), so a client that writes one row reads its
answer before it writes the next. Each batch goes through pe predict's own steps (run/predict.py's
``prepared_inputs``, ``prediction_result``, ``output_columns``) and is written and flushed at once:
CSV rows (the header once) for CSV input, one JSON object per line for JSON Lines (the CSV's
columns, numbers as numbers, a non-finite one as null, as pe serve answers). Memory holds one batch
and one line, never the whole input. A bad row ends the command with pe predict's one line, naming
the row's line (the rows before it are answered already).
"""

import csv
import io
import itertools
import json
import math
import os
import select
import stat
import sys

import numpy as np

from ..base.atomic_file import write_file
from ..base.errors import PeError, UsageError
from ..base.limits import check_bytes
from ..data.missing import note
from ..data.readers import DataError, csv_delimiter
from ..data.tables import Table, check_width, jsonl_record, records_table, table_format
from .inference import load_inference
from .predict import output_columns, prediction_result, prepared_inputs

FORMATS = ("csv", "tsv", "jsonl")
STDIN = "stdin"  # the name rows piped in go by in messages ("stdin:3: the field ...")


class Lines:
    """The lines of a file descriptor as they arrive (UTF-8, a leading byte order mark dropped), read
    with os.read so that ``ready`` can ask the descriptor whether more is there without waiting."""

    def __init__(self, fd, name):
        self.fd, self.name = fd, name
        self.buf, self.pos, self.eof, self.line_no = b"", 0, False, 0

    def _read(self):
        chunk = os.read(self.fd, 1 << 16)
        self.eof = not chunk
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        check_bytes(40 * len(self.buf), f"{self.name}:{self.line_no + 1}: one row")  # a line without an end

    def _whole(self):
        return self.eof or self.buf.find(b"\n", self.pos) >= 0

    def ready(self):
        """Whether the next line (or the end) is at hand without waiting for the writer."""
        while not self._whole():
            if not select.select([self.fd], [], [], 0)[0]:
                return False
            self._read()
        return True

    def __iter__(self):
        return self

    def __next__(self):
        while not self._whole():
            self._read()
        if self.pos >= len(self.buf):
            raise StopIteration
        end = self.buf.find(b"\n", self.pos)
        end = len(self.buf) if end < 0 else end + 1
        raw, self.pos = self.buf[self.pos : end], end
        self.line_no += 1
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise DataError(
                f"{self.name}:{self.line_no}: not UTF-8 text ({e.reason})", ("path",), "send UTF-8"
            ) from None
        return text[1:] if self.line_no == 1 and text.startswith("\ufeff") else text


def is_stream(path):
    """Whether ``--data path`` is read as rows arriving: ``-`` (stdin) or a FIFO."""
    if path == "-":
        return True
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        return False


def check_source(path, fmt):
    """A UsageError unless ``path`` gives rows: stdin, a FIFO, or a table file (by its name or ``fmt``)."""
    if not is_stream(path) and (os.path.isdir(path) or (table_format(path) is None and not fmt)):
        raise UsageError(
            f"--data {path} is no .csv, .tsv or .jsonl table, and rows are predicted as they arrive (-o -, "
            f"--format) from a table, stdin (-) or a FIFO; other data goes to a file: -o predictions.npz"
        )


def stream_format(path, fmt, lines):
    """csv, tsv or jsonl: ``--format``, else the file name's, else the first non-blank character of the
    rows (``{``: JSON Lines, anything else: CSV with a header); peeks without losing the line."""
    if fmt:
        return fmt, lines
    named = None if path == "-" else table_format(path)
    if named:
        return named, lines
    first = []
    for line in lines:
        first.append(line)
        if line.strip():
            break
    text = "".join(first).lstrip()
    return ("jsonl" if text.startswith("{") else "csv"), itertools.chain(first, lines)


def _csv_rows(lines, name, fmt):
    """(line of the row, its fields) of each CSV/TSV row after the header; blank rows skipped, as a
    file's (data/readers.py's csv_rows); the delimiter sniffed from the header line for CSV."""
    lines = iter(lines)
    head = next((line for line in lines if line.strip()), None)
    if head is None:  # nothing sent: nothing to answer
        return
    delimiter = "\t" if fmt == "tsv" else csv_delimiter(head)
    reader = csv.reader(itertools.chain([head], lines), delimiter=delimiter)
    try:
        names = [c.strip() for c in next(reader)]
        count = 0
        for row in reader:
            if row and any(c.strip() for c in row):
                count += 1
                check_width(name, count + 1, row, names)
                yield count + 1, names, row
    except csv.Error as e:
        raise DataError(f"{name}:{reader.line_num}: {e}", ("path",), "check the quoting of that line") from None


def _jsonl_rows(rows, lines):
    """(number of the object, None, the object) of each non-blank line; a line that is no object is
    refused naming its line (``lines.line_no``: the line just read)."""
    count = 0
    for line in rows:
        if line.strip():
            record = jsonl_record(lines.name, lines.line_no, line)
            count += 1
            yield count, None, record


def _batches(rows, ready, size):
    """Lists of rows of at most ``size``: a batch ends when full, or when the next row has not arrived."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) >= size or not ready():
            yield batch
            batch = []
    if batch:
        yield batch


def _table(name, batch):
    first = batch[0][0]
    if batch[0][1] is None:  # JSON objects
        table = records_table(name, [r for _, _, r in batch])
        table.first = first
        return table
    return Table(name, batch[0][1], [r for _, _, r in batch], first)


class Writer:
    """Rows of predictions to ``out`` (a binary stream, written UTF-8), flushed after each batch:
    CSV/TSV with the header once, or JSON Lines."""

    def __init__(self, out, fmt):
        self.out, self.fmt, self.header = out, fmt, None

    def write(self, extra, parts):
        text = io.StringIO()
        if self.fmt == "jsonl":
            header, columns = output_columns(extra, parts, float)
            for row in zip(*columns):
                text.write(json.dumps(dict(zip(header, map(_finite, row))), allow_nan=False) + "\n")
        else:
            writer = csv.writer(text, delimiter="\t" if self.fmt == "tsv" else ",")  # as -o x.csv: \r\n
            header, columns = output_columns(extra, parts)
            if self.header is None:
                self.header = header
                writer.writerow(header)
            writer.writerows(zip(*columns))
        self.out.write(text.getvalue().encode("utf-8"))
        self.out.flush()


def _finite(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _open(path):
    """(file descriptor, name in messages, whether pe opened it)."""
    if path == "-":
        return sys.stdin.fileno(), STDIN, False
    try:
        return os.open(path, os.O_RDONLY), path, True
    except FileNotFoundError:
        raise PeError(f"data file {path} does not exist") from None
    except OSError as e:
        raise PeError(f"data file {path}: {e.strerror}") from None


def stream_predict(cfg, checkpoint, path, out, fmt=None, output=None, quiet=False, probabilities=True, keep=()):
    """Predicts the rows of ``path`` (``-``, a FIFO or a table file) batch by batch into ``out`` (``-``:
    stdout, or a .csv/.tsv/.jsonl file); returns {"samples", "outputs", "checkpoint", "step", "format"}."""
    keep = list(dict.fromkeys([*(cfg.data.get("predict") or {}).get("keep_columns", []), *keep]))
    written = None if out == "-" else _out_format(out)  # refused before the model is loaded
    inference = load_inference(cfg, checkpoint, output)
    fd, name, opened = _open(path)
    lines = Lines(fd, name)
    try:
        fmt, rows = stream_format(path, fmt, lines)
        rows = _jsonl_rows(rows, lines) if fmt == "jsonl" else _csv_rows(rows, name, fmt)
        size = cfg.data["data"]["eval_batch_size"] or cfg.data["data"]["batch_size"]
        counted = []

        def predict_into(sink):
            writer = Writer(sink, written or fmt)
            counted.append(
                _loop(cfg, inference, _batches(rows, lines.ready, size), writer, (name, keep, probabilities))
            )

        # a file gets the rows in a temporary sibling, renamed over the old one only when every row is
        # written and read back (atomic_file): a bad row midway leaves an earlier file whole
        predict_into(sys.stdout.buffer) if out == "-" else write_file(out, predict_into)
        samples = counted[0]
    except DataError as e:
        raise PeError(e.message + (f"; {e.hint}" if e.hint else "")) from None
    finally:
        if opened:
            os.close(fd)
    heads = inference.heads or [inference]
    return {
        "samples": samples,
        "outputs": [(h.output, h.kind == "classification") for h in heads],
        "checkpoint": inference.checkpoint,
        "step": inference.step,
        "format": fmt,
    }


def _out_format(out):
    named = table_format(out)
    if named is None:
        raise PeError(f"-o {out}: rows read as they arrive are written as .csv, .tsv or .jsonl, or to stdout (-o -)")
    return named


def _loop(cfg, inference, batches, writer, how):
    """Each batch predicted and written; the number of rows. ``how``: (the rows' name in messages, the
    columns kept, whether a classifier writes probabilities)."""
    name, keep, probabilities = how
    heads = inference.heads or [inference]
    run = inference.run_heads if inference.heads else lambda feed: [inference.run(feed)]
    samples = 0
    for batch in batches:
        table = _table(name, batch)
        columns, _, notes = prepared_inputs(cfg, inference, table)
        for line in notes:
            note(f"{table.path} rows {samples + 1}-{samples + len(batch)}: {line}")
        values = run(columns)
        parts = [prediction_result(h, v, probabilities) + (h.label,) for h, v in zip(heads, values)]
        extra = {k: np.array(["" if v is None else str(v) for v in table.raw(k, ("keep",), ())]) for k in keep}
        writer.write(extra, parts)
        samples += len(batch)
    return samples
