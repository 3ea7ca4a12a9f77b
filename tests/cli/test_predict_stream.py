"""Rows piped in (issue 97, item 7): ``pe predict --data -`` reads CSV or JSON Lines rows from stdin
(or a FIFO) and writes each batch's predictions to stdout as soon as it is predicted, the model
loaded once; a client writes a row and reads its answer before it writes the next. Real ``pe``
processes on one short run of configs/penguins_features.yaml."""

import csv
import io
import json
import os
import select
import subprocess
import time

import pytest

from tests.cli.test_helpers import PE, REPO, pe

CONFIG = f"{REPO}/configs/penguins_features.yaml"
TABLE = f"{REPO}/data/penguins/penguins.csv"
HEADER = "species,island,bill_length_mm,bill_depth_mm,flipper_length_mm,body_mass_g,sex,year\n"
ROWS = ["Adelie,Torgersen,39.1,18.7,181,3750,male,2007\n", "Gentoo,Biscoe,47.5,15.0,217,5076,female,2009\n"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("stream")
    proc = pe("train", CONFIG, "--out", root / "run", "--max-steps", "2", "-q")
    assert proc.returncode == 0, proc.stderr
    proc = pe("predict", CONFIG, "-c", root / "run", "--data", TABLE, "-o", root / "p.csv", "-q")
    assert proc.returncode == 0, proc.stderr
    return root


def _pe(*args, data=b""):
    env = dict(os.environ)
    env.pop("PE_DEBUG", None)
    return subprocess.run(PE + [str(a) for a in args], input=data, capture_output=True, timeout=120, env=env, cwd=REPO)


def _start(*args):
    env = dict(os.environ)
    env.pop("PE_DEBUG", None)
    cmd = PE + ["predict", CONFIG] + [str(a) for a in args]
    return subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def _line(proc, buf, timeout=90):
    """The next line pe wrote to stdout (bytes), waiting at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    fd = proc.stdout.fileno()
    while b"\n" not in buf[0]:
        left = deadline - time.monotonic()
        assert left > 0 and select.select([fd], [], [], left)[0], f"no answer within {timeout} s"
        chunk = os.read(fd, 4096)
        assert chunk, f"pe ended: {proc.stderr.read().decode()}"
        buf[0] += chunk
    line, _, buf[0] = buf[0].partition(b"\n")
    return line.decode() + "\n"


def test_piped_csv_rows_give_the_file_predictions(run):
    expected = (run / "p.csv").read_bytes()
    assert expected.count(b"\n") == 345  # the header and 344 penguins
    with open(TABLE, "rb") as f:
        piped = _pe("predict", CONFIG, "-c", run / "run", "--data", "-", "-o", "-", "-q", data=f.read())
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == expected
    told = _pe("predict", CONFIG, "-c", run / "run", "--data", TABLE, "-o", "-")  # a file's rows to stdout
    assert told.returncode == 0, told.stderr
    assert told.stdout == expected
    assert b"predicted 344 rows (csv)" in told.stderr and b"Traceback" not in told.stderr


def test_json_lines_in_json_lines_out_with_the_csv_columns(run):
    with open(run / "p.csv", newline="") as f:
        expected = list(csv.DictReader(f))
    with open(TABLE, newline="") as f:  # numbers as JSON numbers, NA as null
        rows = [{k: _value(k, v) for k, v in r.items()} for r in csv.DictReader(f)]
    text = "".join(json.dumps(r) + ("\n\n" if i == 3 else "\n") for i, r in enumerate(rows))  # a blank line too
    proc = _pe("predict", CONFIG, "-c", run / "run", "--data", "-", data=text.encode())  # sniffed: '{'
    assert proc.returncode == 0, proc.stderr
    got = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(got) == 344 and list(got[0]) == list(expected[0])
    for answer, want in zip(got, expected):
        assert answer["species"] == want["species"] and answer["species_id"] == int(want["species_id"])
        for column in want:
            if column.startswith("species_prob_"):
                assert answer[column] == float(want[column])  # full precision, a number in JSON


def _value(column, field):
    if field == "NA":
        return None
    return field if column in ("species", "island", "sex") else float(field)


def test_one_row_is_answered_before_the_next_is_sent(run):
    proc = _start("-c", run / "run", "--data", "-", "-q")
    buf = [b""]
    try:
        proc.stdin.write((HEADER + ROWS[0]).encode())
        proc.stdin.flush()
        assert _line(proc, buf).startswith("species,species_id,species_prob_")
        first = _line(proc, buf)
        assert first.startswith(("Adelie,", "Chinstrap,", "Gentoo,"))
        proc.stdin.write(ROWS[1].encode())
        proc.stdin.flush()
        second = _line(proc, buf)
        assert second.count(",") == first.count(",")
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
        assert buf[0] + proc.stdout.read() == b"" and proc.stderr.read() == b""  # nothing else, -q
    finally:
        proc.kill()
        proc.wait()


def test_a_fifo_gives_rows_as_stdin_does(run, tmp_path):
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    proc = _start("-c", run / "run", "--data", fifo, "-q")
    try:
        deadline = time.monotonic() + 90
        while True:  # pe opens the FIFO once its model is loaded
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read()
                time.sleep(0.1)
        os.set_blocking(fd, True)
        os.write(fd, (HEADER + "".join(ROWS)).encode())
        os.close(fd)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    rows = list(csv.reader(io.StringIO(out.decode())))
    assert rows[0][:2] == ["species", "species_id"] and len(rows) == 3


def test_a_bad_row_mid_stream_ends_with_one_line_naming_it(run):
    proc = _start("-c", run / "run", "--data", "-", "-q")
    buf = [b""]
    try:
        proc.stdin.write((HEADER + ROWS[0]).encode())
        proc.stdin.flush()
        _line(proc, buf), _line(proc, buf)  # the header and row 2's answer
        proc.stdin.write(b"Adelie,Dream,abc,18.7,181,3750,male,2007\n")
        proc.stdin.flush()
        assert proc.wait(timeout=30) == 1
        err = proc.stderr.read().decode()
    finally:
        proc.kill()
        proc.wait()
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("pe: error: stdin:3: the field 'abc' of column 'bill_length_mm' is not a number")
    bad = _pe("predict", CONFIG, "-c", run / "run", "--data", "-", data=b'{"island": "Dream"}\n[1, 2]\n')
    assert bad.returncode == 1 and bad.stdout == b""
    assert bad.stderr.decode().splitlines() == [
        "pe: error: stdin:2: a JSON list, not an object; JSON Lines: one object per line, its keys the columns"
    ]


def test_a_bad_row_mid_stream_leaves_an_earlier_output_file_whole(run, tmp_path):
    """-o FILE: the rows go to a temporary sibling renamed over FILE only when all are written, so a run
    that fails midway replaces nothing (here a file the user kept from before)."""
    out = tmp_path / "kept.csv"
    out.write_text("the user's earlier file\n")
    bad = HEADER + ROWS[0] + "Adelie,Dream,abc,18.7,181,3750,male,2007\n"
    proc = _pe("predict", CONFIG, "-c", run / "run", "--data", "-", "-o", out, "-q", data=bad.encode())
    assert proc.returncode == 1 and b"stdin:3" in proc.stderr, proc.stderr
    assert out.read_text() == "the user's earlier file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.csv"]  # no temporary file left behind
    good = _pe("predict", CONFIG, "-c", run / "run", "--data", "-", "-o", out, "-q", data=(HEADER + ROWS[0]).encode())
    assert good.returncode == 0, good.stderr
    assert out.read_text().splitlines()[0].startswith("species,species_id,")
    assert len(out.read_text().splitlines()) == 2
