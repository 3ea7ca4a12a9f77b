"""``paddle.incubate.hapi.distributed``: DistributedBatchSampler(dataset, batch_size, shuffle=False,
drop_last=False): this trainer's batches (PADDLE_TRAINERS_NUM and PADDLE_TRAINER_ID, as the launcher
sets them): the indices padded to a multiple of the trainers, shuffled by epoch, dealt by batch."""

from ...io.samplers import DistributedBatchSampler as _Sampler

__all__ = ["DistributedBatchSampler"]


class DistributedBatchSampler(_Sampler):
    def __init__(self, dataset, batch_size, shuffle=False, drop_last=False):
        super().__init__(dataset, batch_size, shuffle=shuffle, drop_last=drop_last)
