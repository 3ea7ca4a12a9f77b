"""Where Paddle keeps its datasets: ``$PADDLE_DATA_HOME`` or ``~/.cache/paddle/dataset``, one folder
per dataset. pe reads what is there and downloads nothing."""
import os


def data_home():
    return os.environ.get("PADDLE_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")


def dataset_dir(name):
    return os.path.join(data_home(), name)
