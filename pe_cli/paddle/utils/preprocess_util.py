"""``paddle.utils.preprocess_util``: Paddle's old dataset batcher: list a folder per class, shuffle
(or interleave by label), and pickle batches of samples (``<prefix>batch_000``...) with their list
files, a label set and a meta file. ``DatasetCreater`` is the base of preprocess_img's creator."""

import collections
import math
import os
import pickle
import random


def save_file(data, filename):
    with open(filename, "wb") as f:
        pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)


def save_list(l, outfile):  # noqa: E741 -- Fluid's argument name
    with open(outfile, "w") as f:
        f.write("\n".join(l))


def exclude_pattern(f):
    """True for hidden and backup files (``.x``, ``x~``)."""
    return f.startswith(".") or f.endswith("~")


def list_dirs(path):
    return [os.path.join(path, d) for d in next(os.walk(path))[1] if not exclude_pattern(d)]


def list_files(path):
    return [
        os.path.join(path, d)
        for d in os.listdir(path)
        if os.path.isfile(os.path.join(path, d)) and not exclude_pattern(d)
    ]


def list_images(path, exts=frozenset(["jpg", "png", "bmp", "jpeg"])):
    return [p for p in list_files(path) if os.path.splitext(p)[-1][1:] in exts]


def get_label_set_from_dir(path):
    """{class folder name: label}, labels in the folders' sorted order."""
    return {os.path.basename(d): i for i, d in enumerate(sorted(list_dirs(path)))}


class Label:
    def __init__(self, label, name):
        self.label, self.name = label, name

    def convert_to_paddle_format(self):
        return int(self.label)

    def __hash__(self):
        return hash(self.label)


class Dataset:
    """Samples (tuples, one item per key) and the keys naming their items."""

    def __init__(self, data, keys):
        self.data, self.keys = data, keys

    def check_valid(self):
        for d in self.data:
            assert len(d) == len(self.keys)

    def permute(self, key_id, num_per_batch):
        if key_id is None:
            self.uniform_permute()
        else:
            self.permute_by_key(key_id, num_per_batch)

    def uniform_permute(self):
        random.shuffle(self.data)

    def permute_by_key(self, key_id, num_per_batch):
        """Interleaves the labels: each round takes up to num_per_batch / labels samples of each."""
        by_label = collections.defaultdict(list)
        for idx, sample in enumerate(self.data):
            by_label[sample[key_id].label].append(idx)
        for indices in by_label.values():
            random.shuffle(indices)
        per_label = math.ceil(num_per_batch / float(len(by_label)))
        if per_label < 2:
            raise Exception("The number of data in a batch is too small")
        permuted, read = [], collections.defaultdict(int)
        while len(permuted) < len(self.data):
            for label, indices in by_label.items():
                begin, end = read[label], int(min(read[label] + per_label, len(indices)))
                permuted.extend(self.data[indices[i]] for i in range(begin, end))
                read[label] = end
        self.data = permuted


class DataBatcher:
    def __init__(self, train_data, test_data, label_set):
        self.train_data, self.test_data, self.label_set = train_data, test_data, label_set
        self.num_per_batch = 5000
        assert self.train_data.keys == self.test_data.keys

    def create_batches_and_list(self, output_path, train_list_name, test_list_name, label_set_name):
        train = self.create_batches(self.train_data, output_path, "train_", self.num_per_batch)
        test = self.create_batches(self.test_data, output_path, "test_", self.num_per_batch)
        save_list(train, os.path.join(output_path, train_list_name))
        save_list(test, os.path.join(output_path, test_list_name))
        save_file(self.label_set, os.path.join(output_path, label_set_name))

    def create_batches(self, data, output_path, prefix="", num_data_per_batch=5000):
        """Pickles {key: [items]} per batch of samples; returns the batch files' paths."""
        data.check_valid()
        names = []
        for i in range(int(math.ceil(len(data.data) / float(num_data_per_batch)))):
            name = os.path.join(output_path, f"{prefix}batch_{i:03d}")
            batch = data.data[i * num_data_per_batch : (i + 1) * num_data_per_batch]
            save_file({k: [s[j].convert_to_paddle_format() for s in batch] for j, k in enumerate(data.keys)}, name)
            names.append(name)
        return names


class DatasetCreater:
    """Reads ``<data_path>/train`` and ``test`` (create_dataset, in a subclass) and writes the
    batches, lists, label set and meta file under ``<data_path>/batches``."""

    def __init__(self, data_path):
        self.data_path = data_path
        self.train_dir_name, self.test_dir_name, self.batch_dir_name = "train", "test", "batches"
        self.num_per_batch = 50000
        self.meta_filename, self.train_list_name, self.test_list_name = "batches.meta", "train.list", "test.list"
        self.label_set_name = "labels.pkl"
        self.output_path = os.path.join(self.data_path, self.batch_dir_name)
        self.overwrite = False
        self.permutate_key = "labels"
        self.from_list = False

    def create_meta_file(self, data):
        raise NotImplementedError

    def create_dataset(self, path):
        return self.create_dataset_from_list(path) if self.from_list else self.create_dataset_from_dir(path)

    def create_dataset_from_list(self, path):
        raise NotImplementedError

    def create_dataset_from_dir(self, path):
        raise NotImplementedError

    def create_batches(self):
        out_path = os.path.join(self.data_path, self.batch_dir_name)
        os.makedirs(out_path, exist_ok=True)
        if self.overwrite or not os.path.exists(os.path.join(out_path, self.train_list_name)):
            train_data, train_labels = self.create_dataset(os.path.join(self.data_path, self.train_dir_name))
            test_data, test_labels = self.create_dataset(os.path.join(self.data_path, self.test_dir_name))
            train_data.permute(self.keys.index(self.permutate_key), self.num_per_batch)
            assert train_labels == test_labels
            batcher = DataBatcher(train_data, test_data, train_labels)
            batcher.num_per_batch = self.num_per_batch
            batcher.create_batches_and_list(
                self.output_path, self.train_list_name, self.test_list_name, self.label_set_name
            )
            self.num_classes = len(train_labels)
            self.create_meta_file(train_data)
        return out_path
