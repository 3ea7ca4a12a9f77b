"""``paddle.fluid.distributed``: Fluid's first pslib trainer (Downpour over mpi4py and Baidu's pslib
parameter server, superseded by fleet). pe has no pslib: its classes exist and say so in one line;
pe's distributed training is fleet's and DistributeTranspiler's (docs/DISTRIBUTED.md)."""
