"""CPU out-kernels of parameter-server mode's ops (pe_cli/ops/distributed.py; meta rules: shapes/distributed.py),
over pe_cli/distributed/pserver_link.py. Each kernel by name is its adapter, which CUDA's twins run on the host
(kernels/cuda/distributed.py's HOST_OPS); recv's takes the device's ``to_device`` too."""

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from ...distributed import pserver_link
from ...shapes import distributed as rules
from ..context import NO_CONTEXT
from ..structured import adapter


def _link(attrs, op):
    if op in ("send", "recv") and not attrs["tags"]:
        raise PeError(
            f"{op}: an op of Fluid's gRPC parameter-server program (it has no tags): pe runs "
            f"parameter-server mode over MPI, with the programs of its own DistributeTranspiler"
        )
    return pserver_link.trainer_link(attrs["endpoints"], attrs["trainer_id"], attrs["trainers"])


def send_out(ins, outs, attrs, meta):
    link = _link(attrs, "send")
    for array, endpoint, tag in zip(ins["X"], attrs["epmap"], attrs["tags"]):
        link.send(array, endpoint, tag)


def send_barrier_out(ins, outs, attrs, meta):
    _link(attrs, "send_barrier").wait_sends()


def recv_out(ins, outs, attrs, meta, to_device=None):
    """Out[i]: the block the server sends, handed over (moved by ``to_device`` where a device's twin gives one)."""
    link = _link(attrs, "recv")
    out = [
        link.recv(ep, tag, tuple(shape), attrs["dtype"])
        for ep, tag, shape in zip(attrs["epmap"], attrs["tags"], attrs["shapes"])
    ]
    outs["Out"] = out if to_device is None else [to_device(a) for a in out]


def fetch_barrier_out(ins, outs, attrs, meta):
    pass


def listen_and_serv_out(ins, outs, attrs, meta):
    raise PeError(
        "listen_and_serv runs only as a parameter server's program: exe.run(pserver_program) "
        "with the program of DistributeTranspiler.get_pserver_program(endpoint)"
    )


# -- the id and table ops that compute in the trainer (ops/distributed.py) -----------------------------


def split_ids_out(ins, outs, attrs, meta):
    """Out[k]: the ids server k holds, handed over (their count the values give; the Meta's, one per variable)."""
    ids, n = ins["Ids"], len(meta.outputs["Out"])
    if isinstance(ids[0], SelectedRows):
        sr = ids[0]
        rows, values = sr.numpy()
        last = {int(r): i for i, r in enumerate(rows)}  # a row listed twice: its last values (Fluid's map)
        outs["Out"] = []
        for k in range(n):
            mine = np.array([r for r in rows if r % n == k], dtype=np.int64)
            outs["Out"].append(
                SelectedRows(
                    mine, values[[last[int(r)] for r in mine]].reshape((len(mine),) + values.shape[1:]), sr.height
                )
            )
        return
    every = np.unique(np.concatenate([np.asarray(a).reshape(-1) for a in ids]))
    outs["Out"] = [every[every % n == k].reshape(-1, 1) for k in range(n)]


def merge_ids_out(ins, outs, attrs, meta):
    """Out[i] row r: X[k]'s row j where Rows[k][j] (its first holder) is Ids[i][r], into the buffers handed; an id
    in no Rows tensor is refused in one line."""
    where = {}
    for k, rows in enumerate(ins["Rows"]):
        for j, r in enumerate(np.asarray(rows).reshape(-1).tolist()):
            where.setdefault(r, (k, j))  # the first holder of a row, as Fluid's map insert
    xs = ins["X"]
    for ids, out in zip(ins["Ids"], outs["Out"]):
        flat = np.asarray(ids).reshape(-1).tolist()
        missing = [i for i in flat if i not in where]
        if missing:
            raise PeError(f"merge_ids: ids {missing[:3]} are in no Rows tensor")
        out[...] = np.array([xs[k][j] for k, j in (where[i] for i in flat)], dtype=out.dtype).reshape(out.shape)


def ref_by_trainer_id_out(ins, outs, attrs, meta):
    """Out: X[TrainerId]'s values, into the buffer handed ("copy") or its own copy ("pick": X's shapes differ)."""
    trainer = int(np.asarray(ins["TrainerId"]).reshape(-1)[0])
    if not 0 <= trainer < len(ins["X"]):
        raise PeError(f"ref_by_trainer_id: TrainerId {trainer} is outside X's {len(ins['X'])} tensors")
    if meta.fresh:
        outs["Out"] = np.array(ins["X"][trainer])
    else:
        np.copyto(outs["Out"], ins["X"][trainer])


def lookup_sparse_table_out(ins, outs, attrs, meta):
    """Out row i: W's row of Ids[i], into the buffer handed; an id W lacks takes W's next free row (W's rows grow
    by it, the table's state) unless is_test, where it reads zeros."""
    table, ids = ins["W"], np.asarray(ins["Ids"]).reshape(-1)
    rows, values = table.numpy()
    index = {int(r): i for i, r in enumerate(rows)}
    out = outs["Out"]
    out[...] = 0
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


# -- gRPC services pe's MPI link does not offer: one line naming the op and what it needs --------------


def _needs_grpc(op, what):
    raise PeError(
        f"op '{op}' {what} over Fluid's gRPC parameter-server service, which pe does not run (pe's "
        f"parameter servers talk MPI: DistributeTranspiler programs under pe launch, docs/DISTRIBUTED.md)"
    )


def distributed_lookup_table_out(ins, outs, attrs, meta):
    _needs_grpc("distributed_lookup_table", f"fetches table rows from the servers {attrs['endpoints']}")


def prefetch_out(ins, outs, attrs, meta):
    _needs_grpc("prefetch", f"fetches table rows from the servers {attrs['epmap']}")


def checkpoint_notify_out(ins, outs, attrs, meta):
    if attrs["epmap"]:
        _needs_grpc("checkpoint_notify", f"asks the servers {attrs['epmap']} to save '{attrs['lookup_table']}'")


def recv_save_out(ins, outs, attrs, meta):
    _needs_grpc("recv_save", f"receives {attrs['remote_varnames']} from the servers {attrs['endpoints']}")


def fl_listen_and_serv_out(ins, outs, attrs, meta):
    _needs_grpc("fl_listen_and_serv", f"serves federated trainers at {attrs['endpoint']}")


_RULES = {
    "send": rules.link_meta,
    "send_barrier": rules.link_meta,
    "recv": rules.recv_meta,
    "fetch_barrier": rules.link_meta,
    "listen_and_serv": rules.link_meta,
    "split_ids": rules.split_ids_meta,
    "merge_ids": rules.merge_ids_meta,
    "ref_by_trainer_id": rules.ref_by_trainer_id_meta,
    "lookup_sparse_table": rules.lookup_sparse_table_meta,
    "distributed_lookup_table": rules.distributed_lookup_table_meta,
    "prefetch": rules.prefetch_meta,
    "checkpoint_notify": rules.link_meta,
    "recv_save": rules.link_meta,
    "fl_listen_and_serv": rules.link_meta,
}
for _op in _RULES:
    globals()[_op + "_out"].launches = None
    # (the kernels by name CUDA's kernels are given: the adapters)
    globals()[_op] = adapter(_RULES[_op], globals()[_op + "_out"], _op)


def recv(ins, attrs, ctx=NO_CONTEXT, to_device=None):  # noqa: F811 -- recv's adapter, with the device's move
    """The kernel by name CUDA's twin runs on the host with its ``to_device``: the meta rule and out-kernel."""
    meta = rules.recv_meta(attrs, ins, ctx)
    outs = {}
    recv_out(ins, outs, attrs, meta, to_device)
    return outs
