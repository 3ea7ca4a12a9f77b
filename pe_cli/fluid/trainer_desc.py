"""``paddle.fluid.trainer_desc``: what ``train_from_dataset`` runs, described. Fluid fills a
TrainerDesc protobuf for its C++ trainers; pe's datasets run the program themselves
(pe_cli/data/dataset.py), so these classes keep the same settings as plain fields and ``_desc()``
prints them, for scripts that build or inspect one."""

import types

__all__ = ["TrainerDesc", "MultiTrainer", "DistMultiTrainer", "PipelineTrainer"]


# The dump, MPI and CVM fields of Fluid's TrainerDesc proto, with its defaults: ``_set_<field>(value)``
# records one, for scripts (and Fluid's fleet code) that set and read them in ``proto_desc``; pe's
# dataset runs do not act on them.
_PROTO_FIELDS = dict(
    dump_fields=[],
    dump_fields_path="",
    dump_file_num=16,
    dump_converter="",
    dump_param=[],
    dump_slot=False,
    mpi_rank=-1,
    mpi_size=-1,
    use_cvm=False,
    no_cvm=False,
    scale_datanorm=-1,
    thread_barrier=False,
    check_nan_var_names=[],
    loss_names=[],
)


class TrainerDesc:
    """The settings of a trainer: threads, debug, fetched variables, device worker and program."""

    class_name = "TrainerDesc"
    device_worker_name = "Hogwild"

    def __init__(self):
        self.thread_num = 1
        self.debug = False
        self.fetch_var_names, self.fetch_info, self.print_period = [], [], 100
        self._device_worker = None
        self._program = None
        self._infer = False
        self.proto_desc = types.SimpleNamespace(
            **{k: list(v) if isinstance(v, list) else v for k, v in _PROTO_FIELDS.items()}
        )

    def _set_proto(self, **fields):
        """Sets proto fields; a repeated field (a list) is extended, as Fluid appends to it."""
        for name, value in fields.items():
            if isinstance(getattr(self.proto_desc, name), list):
                getattr(self.proto_desc, name).extend(value)
            else:
                setattr(self.proto_desc, name, value)

    def _set_fetch_var_and_info(self, fetch_vars, fetch_info, print_period):
        self.fetch_var_names = [getattr(v, "name", v) for v in fetch_vars]
        self.fetch_info = list(fetch_info)
        self.print_period = print_period

    def _set_debug(self, debug):
        self.debug = bool(debug)

    def _set_thread(self, thread_num):
        self.thread_num = int(thread_num)

    def _set_device_worker(self, device_worker):
        self._device_worker = device_worker

    def _set_infer(self, infer):
        self._infer = bool(infer)

    def _set_program(self, program):
        self._program = program

    def _gen_trainer_desc(self):
        return self._desc()

    def _desc(self):
        fields = [
            ("class_name", self.class_name),
            ("device_worker_name", self.device_worker_name),
            ("thread_num", self.thread_num),
            ("debug", self.debug),
            ("infer", self._infer),
            ("print_period", self.print_period),
        ]
        lines = [f"{k}: {v!r}" if isinstance(v, str) else f"{k}: {str(v).lower()}" for k, v in fields]
        lines += [f'fetch_var_names: "{n}"' for n in self.fetch_var_names]
        return "\n".join(lines) + "\n"


def _proto_setter(field):
    def setter(self, value=_PROTO_FIELDS[field]):
        self._set_proto(**{field: value})

    setter.__name__ = f"_set_{field}"
    setter.__doc__ = f"Records the TrainerDesc proto's {field} (a list: appended to)."
    return setter


for _field in _PROTO_FIELDS:
    setattr(TrainerDesc, f"_set_{_field}", _proto_setter(_field))


class MultiTrainer(TrainerDesc):
    """Threads of one process, each running the whole program on its share of the data."""

    class_name = "MultiTrainer"


class DistMultiTrainer(TrainerDesc):
    """MultiTrainer of a distributed (parameter-server) job."""

    class_name = "DistMultiTrainer"
    device_worker_name = "DownpourSGD"


class PipelineTrainer(TrainerDesc):
    """The trainer of a PipelineOptimizer's program (its sections in order, in pe)."""

    class_name = "PipelineTrainer"
    device_worker_name = "Section"
