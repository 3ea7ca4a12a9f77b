"""fluid.contrib's utilities: HDFSClient driving a `hadoop` command (a stand-in script over a local
directory, called as Hadoop's client is: `hadoop fs -D... -put/-get/-ls...`), its one-line error
where the command is missing, multi_upload / multi_download, distributed_batch_reader's share of
the batches, the lookup-table loaders, and the names that refuse."""

import os
import stat

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.fluid import contrib

# `hadoop fs [-Dk=v ...] <command> args` over the directory $FAKE_HDFS_ROOT (HDFS paths start with /)
_HADOOP = r"""#!/bin/sh
root="$FAKE_HDFS_ROOT"
shift
while case "$1" in -D*) true;; *) false;; esac; do shift; done
line() { if [ -d "$1" ]; then t=drwxr-xr-x; else t=-rw-r--r--; fi; echo "$t 1 u g 0 2020-01-01 00:00 ${1#$root}"; }
cmd=$1; shift
case $cmd in
  -test) if [ "$1" = -d ]; then [ -d "$root$2" ]; else [ -e "$root$2" ]; fi; exit $?;;
  -mkdir) mkdir -p "$root$1";;
  -put) cp "$1" "$root$2";;
  -get) cp "$root$1" "$2";;
  -ls) for p in "$root$1"/*; do line "$p"; done;;
  -lsr) find "$root$1" -mindepth 1 | sort | while read -r p; do line "$p"; done;;
  -rm) rm "$root$1";;
  -rmr) rm -r "$root$1";;
  -mv) mv "$root$1" "$root$2";;
  *) exit 2;;
esac
"""


@pytest.fixture()
def client(tmp_path, monkeypatch):
    home = tmp_path / "hadoop"
    (home / "bin").mkdir(parents=True)
    script = home / "bin" / "hadoop"
    script.write_text(_HADOOP)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    (tmp_path / "hdfs").mkdir()
    monkeypatch.setenv("FAKE_HDFS_ROOT", str(tmp_path / "hdfs"))
    return contrib.HDFSClient(str(home), {"fs.default.name": "hdfs://x:54310", "hadoop.job.ugi": "u,p"})


def test_hdfs_client_drives_hadoop_fs(client, tmp_path):
    local = tmp_path / "local"
    (local / "sub").mkdir(parents=True)
    (local / "a.txt").write_text("a")
    (local / "sub" / "b.txt").write_text("b")
    assert client.upload("/data", str(local / "a.txt"))
    assert client.is_exist("/data/a.txt") and client.is_dir("/data") and not client.is_dir("/data/a.txt")
    assert not client.upload("/data", str(local / "a.txt"))  # exists, overwrite=False
    assert client.ls("/data") == ["/data/a.txt"]
    assert client.rename("/data/a.txt", "/data/c.txt") and client.ls("/data") == ["/data/c.txt"]
    assert client.download("/data/c.txt", str(tmp_path / "back"))
    assert (tmp_path / "back" / "c.txt").read_text() == "a"
    assert client.delete("/data") and not client.is_exist("/data")
    contrib.multi_upload(client, "/up", str(local), multi_processes=2)
    assert sorted(client.lsr("/up")) == ["/up/a.txt", "/up/sub/b.txt"]
    got = contrib.multi_download(client, "/up", str(tmp_path / "down"), trainer_id=1, trainers=2, multi_processes=2)
    assert got == [str(tmp_path / "down" / "sub" / "b.txt")] and open(got[0]).read() == "b"


def test_hdfs_client_without_hadoop_names_the_missing_command(tmp_path):
    missing = contrib.HDFSClient(str(tmp_path / "nowhere"), {})
    with pytest.raises(PeError, match=r"nowhere/bin/hadoop' does not exist") as e:
        missing.ls("/x")
    assert "\n" not in str(e.value)


def test_distributed_batch_reader_gives_each_trainer_its_share(monkeypatch):
    def reader():
        yield from range(7)

    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    shares = []
    for tid in range(3):
        monkeypatch.setenv("PADDLE_TRAINER_ID", str(tid))
        shares.append(list(contrib.distributed_batch_reader(reader)()))
    assert shares == [[0, 3], [1, 4], [2, 5]]  # the last, incomplete run is dropped
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "1")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "0")
    assert list(contrib.distributed_batch_reader(reader)()) == list(range(7))


def test_lookup_table_loaders_load_the_table_from_its_own_file(tmp_path):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        ids = fluid.layers.data("ids", [1], dtype="int64")
        emb = fluid.layers.embedding(ids, [5, 2], param_attr=fluid.ParamAttr(name="table"))
        fluid.layers.fc(emb, 3, param_attr=fluid.ParamAttr(name="w"), bias_attr=False)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(start)
        fluid.io.save_persistables(exe, str(tmp_path / "model"), main)
        w, table = (np.array(scope.find_var(n).get_tensor()) for n in ("w", "table"))
        os.makedirs(tmp_path / "model" / "__lookup_table__")
        np.save(tmp_path / "model" / "__lookup_table__" / "table.npy", table + 1)
        np.save(tmp_path / "table_increment.npy", table + 2)
        exe.run(start)  # fresh values before loading
        assert contrib.load_persistables_for_inference(str(tmp_path / "model"), exe, main, "table") is main
        np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()), w)
        np.testing.assert_array_equal(np.array(scope.find_var("table").get_tensor()), table + 1)
        contrib.load_persistables_for_increment(
            str(tmp_path / "model"), exe, main, "table", str(tmp_path / "table_increment")
        )
        np.testing.assert_array_equal(np.array(scope.find_var("table").get_tensor()), table + 2)
    with pytest.raises(ValueError, match="no file named"):
        contrib.load_persistables_for_increment(str(tmp_path / "model"), exe, main, "table", str(tmp_path / "none"))
    assert contrib.convert_dist_to_sparse_program(main) is None
