"""Every reader is bounded by the one set of limits (pe_cli/base/limits.py) and refuses what it
cannot mean: .npy headers and .npz members are checked against the file's size and the memory limit
before a byte of data is read; text, complex and object arrays are refused; MultiSlot ids beyond
int64 and empty files are one-line errors; FIFOs are refused by every reader, a Dataset's file list
included; counts of devices and threads stop at the machine's limit; a YAML control character and a
symlink loop are named. Each error is one line that names the file or key."""

import re
import io
import os
import zipfile

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base import limits
from pe_cli.base.errors import PeError
from pe_cli.base.places import cpu_device_count
from pe_cli.compiler.strategy import ExecutionStrategy
from pe_cli.config import ConfigError, load_config
from pe_cli.config.yamlfile import load_yaml
from pe_cli.data.multislot import MultiSlotReader
from pe_cli.data.readers import DataError, read_npy, read_npz
from pe_cli.data.sources import load_source
from paths import REPO


def _header(shape, descr="<f4"):
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": False, "shape": shape})
    return out.getvalue()


def _bomb(path):
    """An .npz whose compressed member claims 1 GiB of floats (the zeros after its header inflate
    as far as a reader asks: a reader that trusts the header allocates the whole GiB)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z, z.open("x.npy", "w", force_zip64=True) as f:
        f.write(_header((1 << 28,)))
        f.write(bytes(16 << 20))


NPY_CASES = {
    "header-claims-1e12-rows": (lambda p: p.write_bytes(_header((10**12, 4)) + bytes(64)), "needs 14.6 TiB"),
    "truncated": (lambda p: p.write_bytes(_header((100, 4)) + bytes(64)), "1,600 bytes of data) but the file holds 64"),
    "strings": (lambda p: np.save(p, np.array(["a", "b"])), "holds text"),
    "complex": (lambda p: np.save(p, np.ones(3, complex)), "holds complex numbers"),
    "objects": (lambda p: np.save(p, np.array([{}, 1], dtype=object), allow_pickle=True), "pe never unpickles"),
    "fifo": (lambda p: os.mkfifo(p), "is a FIFO, not a regular file"),
}


@pytest.mark.parametrize("case", NPY_CASES)
def test_an_npy_file_is_checked_before_it_is_read(tmp_path, case):
    make, message = NPY_CASES[case]
    path = tmp_path / "d.npy"
    make(path)
    with pytest.raises(DataError, match=re.escape(message)) as e:
        read_npy(str(path))
    assert message in e.value.message and "\n" not in e.value.message


def test_an_npz_bomb_is_refused_from_its_header(tmp_path, monkeypatch):
    """Under a 256 MiB data limit the 1 GiB member is refused from its header, before it is
    inflated; a complex member is refused by name; an archive within the limit loads."""
    monkeypatch.setenv("PE_MAX_DATA_BYTES", str(256 << 20))
    _bomb(tmp_path / "bomb.npz")
    with pytest.raises(
        DataError,
        match=r"bomb.npz \[x.npy\]: an array of shape \[268435456\] .* needs 1.0 GiB"
        r".*PE_MAX_DATA_BYTES=N",
    ):
        read_npz(str(tmp_path / "bomb.npz"))
    np.savez(tmp_path / "ok.npz", a=np.ones((3, 2)), b=np.ones(3, complex))
    with pytest.raises(DataError, match=r"ok.npz \[b.npy\]: the array holds complex numbers"):
        read_npz(str(tmp_path / "ok.npz"))
    np.savez(tmp_path / "ok.npz", a=np.ones((3, 2)))
    assert read_npz(str(tmp_path / "ok.npz"))["a"].shape == (3, 2)


class _Desc:
    slots = [("ids", "uint64", False, True), ("label", "uint64", True, True)]
    batch_size, proto_file = 2, "the test's slots"


@pytest.mark.parametrize(
    "line, ok",
    [
        ("2 9223372036854775807 3 1 1", True),
        ("2 9223372036854775808 3 1 1", False),
        ("2 18446744073709551616 3 1 1", False),
    ],
)
def test_multislot_ids_beyond_int64_are_refused_by_both_parsers(tmp_path, line, ok):
    path = tmp_path / "part"
    path.write_text(line + "\n")
    reader = MultiSlotReader(_Desc())
    if ok:
        assert reader.parse_file(str(path))[0]["ids"][0] == 2**63 - 1
        assert next(reader.batches_of([("f", 1, line)]))["label"].tolist() == [[1]]
        return
    for parse in (lambda: reader.parse_file(str(path)), lambda: list(reader.batches_of([(str(path), 1, line)]))):
        with pytest.raises(PeError, match=r"part:1: slot 'ids' \(uint64\): .*integers from -2\^63 to 2\^63-1"):
            parse()


def test_an_empty_multislot_file_is_one_error(tmp_path):
    (tmp_path / "empty").write_text("\n\n")
    src = {"format": "multislot", "path": str(tmp_path / "empty")}
    specs = {f: type("S", (), {"dtype": "int64", "lod_level": 0}) for f in ("a", "b")}
    with pytest.raises(DataError, match="holds no samples"):
        load_source(src, ["a", "b"], specs)


@pytest.mark.parametrize("kind", ["QueueDataset", "InMemoryDataset"])
def test_a_fifo_in_a_datasets_file_list_is_refused_unread(tmp_path, kind):
    """It blocked the reader for ever; the subprocess twin with a time limit is in tests/cli."""
    os.mkfifo(tmp_path / "fifo")
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.layers.data("x", [1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.cast(x, "float32"))
    ds = fluid.DatasetFactory().create_dataset(kind)
    ds.set_use_var([x])
    ds.set_filelist([str(tmp_path / "fifo")])
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(PeError, match="fifo is a FIFO, not a regular file"):
        if kind == "InMemoryDataset":
            ds.load_into_memory()
        exe.train_from_dataset(main, ds, fetch_list=[loss])


def test_counts_stop_at_the_machines_limits(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "100000")
    with pytest.raises(limits.LimitError, match="CPU_NUM is 100,000, above pe's limit of .* PE_MAX_DEVICES=N"):
        cpu_device_count()
    with pytest.raises(limits.LimitError, match="ExecutionStrategy.num_threads is 100,000.*PE_MAX_THREADS"):
        ExecutionStrategy().num_threads = 100000
    with pytest.raises(limits.LimitError, match="set_thread is 100,000"):
        fluid.DatasetFactory().create_dataset().set_thread(100000)
    with pytest.raises(limits.LimitError, match="DistributeTranspiler.transpile's trainers is 100,000"):
        fluid.DistributeTranspiler().transpile(
            0, program=fluid.Program(), startup_program=fluid.Program(), trainers=100000
        )
    monkeypatch.setenv("PE_MAX_THREADS", "200000")
    ExecutionStrategy().num_threads = 100000  # raised by its variable, it is accepted
    assert limits.limit("devices") >= 64 and limits.limit("processes") >= 1


RUN = os.path.join(REPO, "configs", "mnist_mlp.yaml")


@pytest.mark.parametrize(
    "override, message",
    [
        ("epochs=0", "epochs: must be >= 1, got 0"),
        ("seed=18446744073709551616", "seed: must be <= 4,294,967,295"),
        ("data.seed=4294967296", "data.seed: must be <= 4,294,967,295"),
        ("max_steps=100000000000000000000000", "max_steps: must be <= 1,000,000,000,000"),
        ("data.batch_size=1000000000000", "data.batch_size: a batch of 1,000,000,000,000 samples of 3,144 bytes needs"),
        ("devices=100000", "devices: the count is 100,000, above pe's limit"),
        ("build_strategy.num_trainers=10000", "build_strategy.num_trainers: the count is 10,000"),
        ("exec_strategy.thread_num=100000", "exec_strategy.thread_num: the count is 100,000"),
    ],
)
def test_values_that_cannot_be_meant_are_refused_naming_the_key(override, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        load_config(RUN, [override])
    assert message in e.value.line() and "\n" not in e.value.line()


def test_a_yaml_control_character_and_a_symlink_loop_are_named(tmp_path):
    (tmp_path / "c.yaml").write_bytes(b"model: m.yaml\nseed: 1\x01\n")
    with pytest.raises(
        ConfigError,
        match=r"c\.yaml:2:8: YAML does not allow the character U\+0001 \(a control or non-character\); remove it \(tabs, newlines",
    ) as e:
        load_yaml(str(tmp_path / "c.yaml"), "run config")
    assert "c.yaml:2:8: YAML does not allow the character U+0001" in e.value.line()
    os.symlink("b.yaml", tmp_path / "a.yaml")
    os.symlink("a.yaml", tmp_path / "b.yaml")
    with pytest.raises(ConfigError, match="a.yaml is a symlink loop"):
        load_yaml(str(tmp_path / "a.yaml"), "run config")


def test_every_limit_is_documented_with_its_variable():
    with open(os.path.join(REPO, "docs", "LIMITS.md"), encoding="utf-8") as f:
        text = f.read()
    assert all(f"`{spec.env}=N" in text for spec in limits.LIMITS.values())


@pytest.mark.parametrize(
    "name, text, read",
    [
        ("d.csv", "a,b\n" + "1,2\n" * 2000, lambda p: load_source({"format": "csv", "path": p}, ["a"])),
        ("part", "1 1 1 1\n" * 2000, lambda p: MultiSlotReader(_Desc()).parse_file(p)),
        ("d.jsonl", '{"a": 1}\n' * 1000, lambda p: load_source({"format": "jsonl", "path": p}, ["a"])),
    ],
)
def test_a_text_file_whose_values_would_pass_the_memory_limit_is_refused_unread(
    tmp_path, monkeypatch, name, text, read
):
    (tmp_path / name).write_text(text)
    monkeypatch.setenv("PE_MAX_DATA_BYTES", str(64 << 10))
    with pytest.raises(
        PeError,
        match=rf"{name} \(a (CSV|MultiSlot|JSON Lines) file of (8,004|16,000|9,000) bytes\) needs .* "
        rf"above pe's limit of 64.0 KiB .*\(set by PE_MAX_DATA_BYTES\)",
    ):
        read(str(tmp_path / name))


def test_image_files_are_regular_and_bounded_before_decoding(tmp_path, monkeypatch):
    from PIL import Image
    from pe_cli.data.images import load_images

    os.mkfifo(tmp_path / "fifo.png")
    with pytest.raises(PeError, match="fifo.png is a FIFO, not a regular file"):
        load_images([str(tmp_path / "fifo.png")])
    Image.fromarray(np.zeros((32, 32, 3), np.uint8)).save(tmp_path / "a.png")
    monkeypatch.setenv("PE_MAX_DATA_BYTES", str(64 << 10))
    assert load_images([str(tmp_path / "a.png")] * 5).shape == (5, 3, 32, 32)  # 5 x 12 KiB fit in 64 KiB
    with pytest.raises(PeError, match=r"6 images of \(3, 32, 32\) .*above pe's limit"):
        load_images([str(tmp_path / "a.png")] * 6)
