"""Kernels of parameter-server mode's ops (pe_cli/ops/distributed.py), over pe_cli/distributed/pserver_link.py."""

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from ...distributed import pserver_link


def _link(attrs, op):
    if op in ("send", "recv") and not attrs["tags"]:
        raise PeError(
            f"{op}: an op of Fluid's gRPC parameter-server program (it has no tags): pe runs "
            f"parameter-server mode over MPI, with the programs of its own DistributeTranspiler"
        )
    return pserver_link.trainer_link(attrs["endpoints"], attrs["trainer_id"], attrs["trainers"])


def send(ins, attrs):
    link = _link(attrs, "send")
    for array, endpoint, tag in zip(ins["X"], attrs["epmap"], attrs["tags"]):
        link.send(array, endpoint, tag)
    return {}


def send_barrier(ins, attrs):
    _link(attrs, "send_barrier").wait_sends()
    return {}


def recv(ins, attrs, to_device=None):
    link = _link(attrs, "recv")
    out = [
        link.recv(ep, tag, tuple(shape), attrs["dtype"])
        for ep, tag, shape in zip(attrs["epmap"], attrs["tags"], attrs["shapes"])
    ]
    return {"Out": out if to_device is None else [to_device(a) for a in out]}


def fetch_barrier(ins, attrs):
    return {}


def listen_and_serv(ins, attrs):
    raise PeError(
        "listen_and_serv runs only as a parameter server's program: exe.run(pserver_program) "
        "with the program of DistributeTranspiler.get_pserver_program(endpoint)"
    )


# -- the id and table ops that compute in the trainer (ops/distributed.py) -----------------------------


def split_ids(ins, attrs, ctx):
    ids, n = ins["Ids"], ctx.output_counts["Out"]
    if isinstance(ids[0], SelectedRows):
        sr = ids[0]
        rows, values = sr.numpy()
        last = {int(r): i for i, r in enumerate(rows)}  # a row listed twice: its last values (Fluid's map)
        outs = []
        for k in range(n):
            mine = np.array([r for r in rows if r % n == k], dtype=np.int64)
            outs.append(
                SelectedRows(
                    mine, values[[last[int(r)] for r in mine]].reshape((len(mine),) + values.shape[1:]), sr.height
                )
            )
        return {"Out": outs}
    every = np.unique(np.concatenate([np.asarray(a).reshape(-1) for a in ids]))
    return {"Out": [every[every % n == k].reshape(-1, 1) for k in range(n)]}


def merge_ids(ins, attrs):
    where = {}
    for k, rows in enumerate(ins["Rows"]):
        for j, r in enumerate(np.asarray(rows).reshape(-1).tolist()):
            where.setdefault(r, (k, j))  # the first holder of a row, as Fluid's map insert
    xs, outs = ins["X"], []
    for ids in ins["Ids"]:
        flat = np.asarray(ids).reshape(-1).tolist()
        missing = [i for i in flat if i not in where]
        if missing:
            raise PeError(f"merge_ids: ids {missing[:3]} are in no Rows tensor")
        width = xs[0].shape[1]
        outs.append(np.array([xs[k][j] for k, j in (where[i] for i in flat)], dtype=xs[0].dtype).reshape(-1, width))
    return {"Out": outs}


def ref_by_trainer_id(ins, attrs):
    trainer = int(np.asarray(ins["TrainerId"]).reshape(-1)[0])
    if not 0 <= trainer < len(ins["X"]):
        raise PeError(f"ref_by_trainer_id: TrainerId {trainer} is outside X's {len(ins['X'])} tensors")
    return {"Out": np.array(ins["X"][trainer])}


def lookup_sparse_table(ins, attrs):
    table, ids = ins["W"], np.asarray(ins["Ids"]).reshape(-1)
    if not isinstance(table, SelectedRows):
        raise PeError("lookup_sparse_table: W must be a row-sparse table (SelectedRows)")
    rows, values = table.numpy()
    index = {int(r): i for i, r in enumerate(rows)}
    out = np.zeros((len(ids),) + values.shape[1:], values.dtype)
    grown = list(rows.tolist())
    for i, key in enumerate(ids.tolist()):
        if key not in index:
            if attrs["is_test"]:
                continue  # an id the table lacks reads zeros at test time
            if not attrs["auto_grown_table"]:
                raise PeError(f"lookup_sparse_table: id {key} is not in the table (auto_grown_table is off)")
            if len(grown) == values.shape[0]:
                raise PeError(f"lookup_sparse_table: the table is full ({values.shape[0]} rows); id {key} has no row")
            index[key] = len(grown)
            grown.append(key)
        out[i] = values[index[key]]
    table.rows = np.array(grown, dtype=np.int64)  # the table keeps the ids it gave rows (Fluid's auto-grown W)
    return {"Out": out}


# -- gRPC services pe's MPI link does not offer: one line naming the op and what it needs --------------


def _needs_grpc(op, what):
    raise PeError(
        f"op '{op}' {what} over Fluid's gRPC parameter-server service, which pe does not run (pe's "
        f"parameter servers talk MPI: DistributeTranspiler programs under pe launch, docs/DISTRIBUTED.md)"
    )


def distributed_lookup_table(ins, attrs):
    _needs_grpc("distributed_lookup_table", f"fetches table rows from the servers {attrs['endpoints']}")


def prefetch(ins, attrs):
    _needs_grpc("prefetch", f"fetches table rows from the servers {attrs['epmap']}")


def checkpoint_notify(ins, attrs):
    if attrs["epmap"]:
        _needs_grpc("checkpoint_notify", f"asks the servers {attrs['epmap']} to save '{attrs['lookup_table']}'")
    return {}


def recv_save(ins, attrs):
    _needs_grpc("recv_save", f"receives {attrs['remote_varnames']} from the servers {attrs['endpoints']}")


def fl_listen_and_serv(ins, attrs):
    _needs_grpc("fl_listen_and_serv", f"serves federated trainers at {attrs['endpoint']}")
