"""``paddle.fluid.incubate.fleet.parameter_server.pslib.ps_pb2`` (``pe fluid`` maps that name here:
a module name of pe never ends in a digit): pslib's protobuf messages, which configure Baidu's pslib
parameter server. Its two enums are plain values here (PsCmdID, TableType and their members); the
messages need pslib, which pe does not have, and say so in one line."""

import enum
import sys  # noqa: F401 -- Fluid's module has these names

from .....unsupported import PSLIB, optional_module, refuse

descriptor_pb2 = optional_module("google.protobuf.descriptor_pb2", "protobuf")
enum_type_wrapper = optional_module("google.protobuf.internal.enum_type_wrapper", "protobuf")


class PsCmdID(enum.IntEnum):
    PS_PULL_DENSE_TABLE, PS_PUSH_DENSE_TABLE, PS_PULL_SPARSE_TABLE, PS_PUSH_SPARSE_TABLE = 0, 1, 2, 3
    PS_SHRINK_TABLE, PS_SAVE_ONE_TABLE, PS_SAVE_ALL_TABLE, PS_LOAD_ONE_TABLE, PS_LOAD_ALL_TABLE = 4, 5, 6, 7, 8
    PS_CLEAR_ONE_TABLE, PS_CLEAR_ALL_TABLE, PS_PUSH_DENSE_PARAM, PS_STOP_SERVER = 9, 10, 11, 12
    PS_SAVE_ONE_CACHE_TABLE, PS_GET_CACHE_THRESHOLD, PS_CACHE_SHUFFLE, PS_COPY_TABLE = 13, 14, 15, 16
    PS_COPY_TABLE_BY_FEASIGN, PS_PULL_SPARSE_TABLE_WITH_DEPENDENCY = 17, 18
    PS_PUSH_SPARSE_TABLE_WITH_DEPENDENCY, PS_PRINT_TABLE_STAT, PS_S2S_MSG = 19, 20, 101


class TableType(enum.IntEnum):
    PS_SPARSE_TABLE, PS_DENSE_TABLE = 0, 1


globals().update({m.name: int(m) for m in PsCmdID})
globals().update({m.name: int(m) for m in TableType})
refuse(
    globals(),
    "pslib.ps_pb2",
    [
        "AdamSGDParameter",
        "DESCRIPTOR",
        "DenseSGDRuleParameter",
        "DenseTableParameter",
        "DownpourServerParameter",
        "DownpourTableAccessorParameter",
        "DownpourTrainerParameter",
        "DownpourWorkerParameter",
        "FsClientParameter",
        "MovingAverageRuleParameter",
        "NaiveSGDParameter",
        "PSParameter",
        "ProgramConfig",
        "PsRequestMessage",
        "PsResponseMessage",
        "ServerParameter",
        "ServerServiceParameter",
        "SparseAdagradSGDRuleParameter",
        "SparseAdamSGDParameter",
        "SparseCommonSGDRuleParameter",
        "SparseNaiveSGDRuleParameter",
        "SparseSGDRuleParameter",
        "SparseTableParameter",
        "SummarySGDParameter",
        "TableAccessorParameter",
        "TableAccessorSaveParameter",
        "TableParameter",
        "WorkerParameter",
    ],
    PSLIB,
)
