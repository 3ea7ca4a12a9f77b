"""No attribute of a Paddle 2.x program is ever guessed (issue 96, item 4; issue 99's "accepted nonsense"):
models Paddle 2.6.2 saved (tests/data/paddle26_saved/, tools/paddle26_saved_models.py) with their
ProgramDesc edited to hold what no Paddle writer writes are refused in one line naming the file, the op
(type and index), the attribute and the value, never run with a default:

- a ``Scalar`` attribute (framework.proto's SCALAR, SCALARS) of a type framework.proto does not define
  (read as 0 before: the linear model's scale 0 gave every output 0);
- an enum-valued attribute outside the values Paddle 2.6.2 distinguishes (``padding_algorithm: BOGUS``
  ran as EXPLICIT, ``data_format: BOGUS`` as NCHW);
- an ``op_version_map`` entry newer than the version pe implements for the op type."""

from paths import REPO
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.base.fluid_proto import messages

SAVED = Path(REPO) / "tests" / "data" / "paddle26_saved"


def _model(tmp_path, case, edit):
    """The Paddle-saved model ``case`` with its ProgramDesc edited by ``edit(desc)``, in tmp_path."""
    desc = messages()["ProgramDesc"]()
    desc.ParseFromString((SAVED / case / "model.pdmodel").read_bytes())
    edit(desc)
    (tmp_path / "model.pdmodel").write_bytes(desc.SerializePartialToString())
    if (SAVED / case / "model.pdiparams").exists():
        (tmp_path / "model.pdiparams").write_bytes((SAVED / case / "model.pdiparams").read_bytes())
    return str(tmp_path / "model")


def _load(prefix):
    import pe_cli.paddle as paddle

    return paddle.static.load_inference_model(prefix, paddle.static.Executor(paddle.CPUPlace()))


def _op(desc, op_type):
    return next(op for op in desc.blocks[0].ops if op.type == op_type)


def _index(desc, op_type):
    return next(n for n, op in enumerate(desc.blocks[0].ops) if op.type == op_type)


def _replace(op, name, attr_type):
    """The op's attribute ``name`` replaced by a new, empty one of framework.proto type ``attr_type``."""
    keep = [a for a in op.attrs if a.name != name]
    del op.attrs[:]
    op.attrs.extend(keep)
    return op.attrs.add(name=name, type=attr_type)


def _scalar_of_type(number, value=2.5):
    """A Scalar message's bytes whose type is ``number`` (one framework.proto may not define: protobuf keeps
    it as an unknown field, as it reads it from a file), holding the double ``value``."""
    return b"\x08" + bytes([number]) + b"\x21" + np.float64(value).tobytes()


# -- SCALAR / SCALARS -------------------------------------------------------------------------------------


def _scale_as_scalar(scalar):
    def edit(desc):
        _replace(_op(desc, "scale"), "scale", 16).scalar.MergeFromString(scalar)

    return edit


def test_every_scalar_kind_of_paddle26_reads_as_its_value(tmp_path):
    """framework.proto's four Scalar kinds: FLOAT64 (3) and LONG (2) as scale's factor, read as the value."""
    for number, value, field in ((3, 2.5, "r"), (2, 3, "i")):
        scalar = messages()["Scalar"](type=number, **{field: value}).SerializeToString()
        program, _, _ = _load(_model(tmp_path, "linear", _scale_as_scalar(scalar)))
        got = next(op for op in program.global_block().ops if op.type == "scale").attrs["scale"]
        assert got == value and type(got) is type(value)


@pytest.mark.parametrize("number", [0, 5, 99])
def test_a_scalar_of_a_type_framework_proto_lacks_is_refused(tmp_path, number):
    """Before: the Scalar's type read as BOOLEAN and its value as False, so scale multiplied by 0."""
    prefix = _model(tmp_path, "linear", _scale_as_scalar(_scalar_of_type(number)))
    n = _index(messages()["ProgramDesc"].FromString((Path(prefix + ".pdmodel")).read_bytes()), "scale")
    with pytest.raises(PeError) as e:
        _load(prefix)
    assert str(e.value) == (
        f"{prefix}.pdmodel: block 0 op {n} (scale): attribute 'scale' holds a Scalar of type {number}, which "
        "framework.proto (Paddle 2.6.2: 1 BOOLEAN, 2 LONG, 3 FLOAT64, 4 COMPLEX128) does not define, so pe "
        "cannot read its value"
    )


def test_a_scalars_attribute_with_one_unknown_scalar_is_refused(tmp_path):
    def edit(desc):
        attr = _replace(_op(desc, "scale"), "scale", 17)
        attr.scalars.add(type=3, r=1.0)
        attr.scalars.add().MergeFromString(_scalar_of_type(7))

    with pytest.raises(PeError, match=r"\(scale\): attribute 'scale' holds a Scalar of type 7, which"):
        _load(_model(tmp_path, "linear", edit))


def test_a_scalar_attribute_without_its_scalar_is_refused(tmp_path):
    with pytest.raises(PeError, match=r"\(scale\): attribute 'scale' holds no Scalar value, which"):
        _load(_model(tmp_path, "linear", lambda d: _replace(_op(d, "scale"), "scale", 16)))


def test_pe_infer_refuses_an_unknown_scalar_in_one_line(tmp_path):
    prefix = _model(tmp_path, "linear", _scale_as_scalar(_scalar_of_type(9)))
    data = tmp_path / "in.npz"
    np.savez(data, x0=np.ones([3, 8], "float32"))
    run = subprocess.run(
        [sys.executable, "-m", "pe_cli", "infer", prefix, "--data", str(data), "-o", str(tmp_path / "o.npz")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": REPO},
    )
    assert run.returncode != 0 and not (tmp_path / "o.npz").exists()
    assert "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert "(scale): attribute 'scale' holds a Scalar of type 9" in run.stderr
