"""paddle.vision.datasets and paddle.text.datasets offline (issue 86, item 3): MNIST (both image
backends), Cifar10 and UCIHousing read the same files as Paddle 2.6.2 and give a program what it gives
(tests/data/paddle_vision/datasets_paddle.json: Paddle's output of datasets_case.py on the files this test
writes), through ``pe fluid``; with nothing in Paddle's cache, one line names the file to place and
where Paddle downloads it; the classes pe does not build say so in one line."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np

from pe_cli.data.idx import write_idx
from tests.paddle.test_datasets import py2_batch, write_tar

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "paddle_vision")


def _write_files(folder):
    """The files datasets_paddle.json was recorded on (the same seed, the same order)."""
    rng = np.random.RandomState(3)
    write_idx(str(folder / "imgs.gz"), rng.randint(0, 256, (100, 28, 28)).astype(np.uint8))
    write_idx(str(folder / "labels.gz"), (np.arange(100) % 10).astype(np.uint8))
    batch = {
        name: py2_batch(rng.randint(0, 256, (n, 3072)).astype(np.uint8), labels)
        for name, n, labels in (("data_batch_2", 2, [7, 8]), ("data_batch_1", 3, [0, 1, 2]), ("test_batch", 1, [9]))
    }
    write_tar(str(folder / "cifar-10-python.tar.gz"), {f"cifar-10-batches-py/{k}": v for k, v in batch.items()})
    np.savetxt(str(folder / "housing.data"), rng.uniform(0, 10, (10, 14)), fmt="%.4f")


def _pe_fluid(cwd, script, home):
    env = dict(os.environ, PYTHONPATH=ROOT, HOME=str(home))
    env.pop("PADDLE_DATA_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=cwd,
    )


def test_datasets_give_what_paddle_gives(tmp_path):
    _write_files(tmp_path)
    shutil.copy(os.path.join(DATA, "datasets_case.py"), tmp_path / "case.py")
    proc = _pe_fluid(tmp_path, tmp_path / "case.py", tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    with open(os.path.join(DATA, "datasets_paddle.json"), encoding="utf-8") as f:
        assert json.loads(proc.stdout.strip().splitlines()[-1]) == json.load(f)


def test_the_cache_is_read_and_an_absent_file_is_one_line(tmp_path):
    cache = tmp_path / ".cache" / "paddle" / "dataset"
    (cache / "cifar").mkdir(parents=True)
    _write_files(tmp_path)
    shutil.move(str(tmp_path / "cifar-10-python.tar.gz"), str(cache / "cifar"))
    script = tmp_path / "prog.py"
    script.write_text(
        "from paddle.vision.datasets import Cifar10, MNIST\nprint(len(Cifar10(mode='test')))\nMNIST(mode='test')\n"
    )
    proc = _pe_fluid(tmp_path, script, tmp_path)
    assert proc.stdout.split() == ["1"], proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    absent = cache / "mnist" / "t10k-images-idx3-ubyte.gz"
    assert lines[0] == (
        f"pe fluid: prog.py:3: error: paddle.vision.datasets.MNIST: {absent} is absent and pe "
        f"downloads nothing: put t10k-images-idx3-ubyte.gz in {cache / 'mnist'} (Paddle downloads it "
        f"from https://dataset.bj.bcebos.com/mnist/t10k-images-idx3-ubyte.gz)"
    ), lines[0]


def test_the_classes_pe_does_not_build_say_so(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text("import paddle\nfrom paddle.text.datasets import Imdb\nImdb(mode='train')\n")
    proc = _pe_fluid(tmp_path, script, tmp_path)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert "paddle.text.datasets.Imdb: pe does not build this Dataset class yet" in lines[0], lines[0]
