"""``paddle.distributed.checkpoint.metadata``: where each saved shard lies in its global tensor (Paddle 2.6.2's
records, plain data)."""

from dataclasses import dataclass
from typing import Dict, List, Tuple  # noqa: F401 -- names of Paddle's module


@dataclass
class LocalTensorMetadata:
    """A local tensor's place in the global tensor: its offset and its shape."""

    global_offset: Tuple[int]
    local_shape: Tuple[int]


@dataclass(frozen=True)
class LocalTensorIndex:
    """A local tensor's key: the state dict's name and the offset."""

    tensor_key: str
    global_offset: Tuple[int]


@dataclass
class Metadata:
    """{name: [LocalTensorMetadata]} and {LocalTensorIndex: the file holding that shard}."""

    state_dict_metadata: Dict[str, List[LocalTensorMetadata]] = None
    storage_metadata: Dict[LocalTensorIndex, str] = None
