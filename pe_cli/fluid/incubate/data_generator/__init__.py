"""``paddle.fluid.incubate.data_generator``: a user's generator of MultiSlot text, the format
Fluid's datasets (``fluid.DatasetFactory``'s InMemoryDataset / QueueDataset, pe_cli/data/dataset.py)
read through their ``pipe_command``.

Subclass MultiSlotDataGenerator, write ``generate_sample(line)`` returning a function that yields
samples ``[(slot name, [values...]), ...]`` (None to skip), and run ``run_from_stdin()`` (the
pipe command) or ``run_from_memory()`` (``generate_sample(None)``). Each sample becomes one line:
per slot, its number of values then the values (``3 1 2 3 1 0``). Samples go through
``generate_batch(samples)`` in groups of ``set_batch(n)`` (32) first, for generators that regroup
them. MultiSlotDataGenerator checks that every sample has the same slots in the same order and
records each slot's type (uint64, or float once a float appears); MultiSlotStringDataGenerator
writes the values as given, unchecked."""

import numbers
import sys

__all__ = ["MultiSlotDataGenerator", "MultiSlotStringDataGenerator"]


class DataGenerator:
    def __init__(self):
        self._proto_info = None
        self.batch_size_ = 32

    def _set_line_limit(self, line_limit):
        if not isinstance(line_limit, int):
            raise ValueError(f"line_limit{type(line_limit)} must be in int type")
        if line_limit < 1:
            raise ValueError("line_limit can not less than 1")
        self._line_limit = line_limit

    def set_batch(self, batch_size):
        """How many samples go to ``generate_batch`` at a time."""
        self.batch_size_ = batch_size

    def _write(self, samples):
        for sample in self.generate_batch(samples)():
            sys.stdout.write(self._gen_str(sample))

    def _run(self, lines):
        batch = []
        for line in lines:
            for sample in self.generate_sample(line)():
                if sample is None:
                    continue
                batch.append(sample)
                if len(batch) == self.batch_size_:
                    self._write(batch)
                    batch = []
        if batch:
            self._write(batch)

    def run_from_memory(self):
        """Writes the samples of ``generate_sample(None)`` to stdout, one line each."""
        self._run([None])

    def run_from_stdin(self):
        """Writes the samples of ``generate_sample(line)`` for each line of stdin to stdout."""
        self._run(sys.stdin)

    def _gen_str(self, line):
        raise NotImplementedError("pls use MultiSlotDataGenerator or PairWiseDataGenerator")

    def generate_sample(self, line):
        raise NotImplementedError(
            "Please rewrite this function to return a list or tuple: "
            "[(name, [feasign, ...]), ...] or ((name, [feasign, ...]), ...)"
        )

    def generate_batch(self, samples):
        """A function yielding the samples of a batch (override it to regroup or transform them)."""

        def local_iter():
            yield from samples

        return local_iter


class MultiSlotStringDataGenerator(DataGenerator):
    def _gen_str(self, line):
        if not isinstance(line, (list, tuple)):
            raise ValueError(
                "the output of process() must be in list or tuple type"
                "Examples: [('words', ['1926', '08', '17']), ('label', ['1'])]"
            )
        return " ".join(" ".join([str(len(elements))] + list(elements)) for _, elements in line) + "\n"


class MultiSlotDataGenerator(DataGenerator):
    def _slot(self, index, name, elements, first):
        if not isinstance(name, str):
            raise ValueError(f"name{type(name)} must be in str type")
        if not isinstance(elements, list):
            raise ValueError(f"elements{type(elements)} must be in list type")
        if not elements:
            raise ValueError("the elements of each field can not be empty, you need padding it in process().")
        if first:
            self._proto_info.append((name, "uint64"))
        elif name != self._proto_info[index][0]:
            raise ValueError(
                f"the field name of two given line are not match: require<{self._proto_info[index][0]}>, get<{name}>."
            )
        for elem in elements:
            if not first and self._proto_info[index][1] == "float":
                continue
            if isinstance(elem, numbers.Real) and not isinstance(elem, numbers.Integral):
                self._proto_info[index] = (name, "float")
            elif not isinstance(elem, numbers.Integral):
                raise ValueError(f"the type of element{type(elem)} must be in int or float")
        return " ".join([str(len(elements))] + [str(e) for e in elements])

    def _gen_str(self, line):
        if not isinstance(line, (list, tuple)):
            raise ValueError(
                "the output of process() must be in list or tuple type"
                "Example: [('words', [1926, 08, 17]), ('label', [1])]"
            )
        first = self._proto_info is None
        if first:
            self._proto_info = []
        elif len(line) != len(self._proto_info):
            raise ValueError("the complete field set of two given line are inconsistent.")
        return " ".join(self._slot(i, name, elements, first) for i, (name, elements) in enumerate(line)) + "\n"
