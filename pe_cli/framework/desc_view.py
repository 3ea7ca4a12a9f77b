"""What the desc faces (ProgramDesc, BlockDesc, OpDesc, VarDesc) share: each is a view of one pe
object (a Program, Block, Operator or Variable), equal to every other view of that object of the
same kind and hashed by it, as Fluid's pybind handles of one C++ desc compare equal."""


class DescView:
    def __init__(self, viewed):
        self._viewed = viewed

    def __eq__(self, other):
        return type(other) is type(self) and other._viewed is self._viewed

    def __hash__(self):
        return id(self._viewed)
