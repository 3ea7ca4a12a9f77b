"""Fluid 1.8's ``contrib.reader.distributed_batch_reader``."""

import os

__all__ = ["distributed_batch_reader"]


def distributed_batch_reader(batch_reader):
    """A reader of this trainer's batches: of each run of PADDLE_TRAINERS_NUM batches, the
    (PADDLE_TRAINER_ID + 1)-th; an incomplete run at the end is dropped, so every trainer reads as
    many batches. With one trainer, every batch."""
    trainers_num = int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
    trainer_id = int(os.getenv("PADDLE_TRAINER_ID", "0"))
    assert trainer_id < trainers_num

    def decorate_for_multi_process():
        if trainers_num > 1:
            print(f"start data reader (trainers_num: {trainers_num}, trainer_id: {trainer_id})")
        train_data, idx = None, 1
        for data in batch_reader():
            if trainers_num <= 1:
                yield data
                continue
            if idx == trainer_id + 1:
                train_data = data
            if idx < trainers_num:
                idx += 1
                continue
            assert train_data is not None, "train data should not be None."
            yield train_data
            train_data, idx = None, 1

    return decorate_for_multi_process
