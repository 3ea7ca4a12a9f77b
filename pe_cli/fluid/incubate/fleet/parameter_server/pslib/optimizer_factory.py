"""``paddle.fluid.incubate.fleet.parameter_server.pslib.optimizer_factory``: DistributedAdam, pslib's
optimizer (pe has no pslib: making one says so in one line), and FLEET_GLOBAL_DICT, the embedding
bookkeeping pslib's fleet_embedding fills (plain data, as Fluid's)."""

from .....unsupported import PSLIB, unsupported

__all__ = ["DistributedAdam", "FLEET_GLOBAL_DICT"]

FLEET_GLOBAL_DICT = {
    "enable": False,
    "emb_to_table": {},
    "emb_to_accessor": {},
    "emb_to_size": {},
    "cur_sparse_id": 0,
    "cur_accessor": "",
    "click_name": "",
    "scale_sparse_grad": None,
}
DistributedAdam = unsupported("pslib.optimizer_factory.DistributedAdam", PSLIB)
