"""``paddle.distributed.checkpoint``: Paddle 2.6's sharded state dicts of auto-parallel (dygraph) training:
each rank saves its shards of every tensor with their offsets (metadata.py) and a load reshards them. pe's
distributed runs are static programs with whole parameters per rank (pe launch): saving and loading refuse
in one line naming themselves (save_state_dict.py, load_state_dict.py); the metadata records are Paddle's."""

from . import load_state_dict, metadata, save_state_dict, utils  # noqa: F401 -- modules, as in Paddle 2.6.2
