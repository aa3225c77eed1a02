"""The arrays of a PyTorch file (``torch.save``, zip format), read without torch and without
running anything the file names.

A ``torch.save`` file is a zip archive: ``<name>/data.pkl``, a pickle of the saved object, and
``<name>/data/<key>``, the raw bytes of each tensor's storage.  Unpickling it as torch does would
import and call whatever the pickle names (a model class, an optimiser, any function), so this
reader never imports anything: ``find_class`` answers every name with

* ``collections.OrderedDict`` itself (a dict),
* for ``torch._utils._rebuild_tensor_v2`` and ``_rebuild_parameter(_with_state)``, functions that
  build a NumPy array from the storage's bytes, its offset, shape and strides,
* for ``torch.<Type>Storage``, the NumPy dtype of that storage type,
* for anything else, an inert placeholder class (``Inert``): calling it or restoring its state
  only records the arguments, so a model object, a dataset or an optimiser in the file become
  ``Inert`` objects whose recorded ``state`` can be read as plain data.

The result is the saved object with every tensor a NumPy array.  Tensors of types NumPy has not
(bfloat16, complex halves, quantised) are refused with the type's name.  A whole module saved
with ``torch.save(module)`` becomes an ``Inert`` whose state is the module's ``__dict__``;
``module_arrays`` flattens it into the names a ``state_dict`` would use.
"""

from __future__ import annotations

import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path

import numpy as np

STORAGE_DTYPES = {
    "DoubleStorage": np.float64, "FloatStorage": np.float32, "HalfStorage": np.float16,
    "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
    "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
}


class Inert:
    """What the reader makes of a class or function the file names: it runs nothing, and keeps
    the arguments it was called with (``args``) and the state restored into it (``state``)."""

    name = "?"

    def __init__(self, *args, **kwargs):
        self.args = args
        self.state = None

    def __setstate__(self, state):
        self.state = state

    def __repr__(self) -> str:
        return f"<inert {self.name}>"


def _rebuild_tensor(storage, offset, size, stride, *_):
    """The tensor ``torch._utils._rebuild_tensor_v2`` would build, as a NumPy array (a copy)."""
    item = storage.itemsize
    if size and storage.size and (offset + sum((n - 1) * s for n, s in zip(size, stride,
                                                                           strict=True))
                                  >= storage.size):
        raise ValueError("a tensor reaches beyond its storage: the file is damaged")
    view = np.lib.stride_tricks.as_strided(storage[offset:], shape=tuple(size),
                                           strides=tuple(s * item for s in stride))
    return view.copy()


def _rebuild_parameter(data, *_):
    """``torch._utils._rebuild_parameter(_with_state)``: a parameter is its data."""
    return data


SAFE = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
}


class _Reader(pickle.Unpickler):
    def __init__(self, file, archive: zipfile.ZipFile, prefix: str, byteorder: str, path):
        super().__init__(file)
        self.archive, self.prefix, self.byteorder, self.path = archive, prefix, byteorder, path

    def find_class(self, module, name):
        if (module, name) in SAFE:
            return SAFE[module, name]
        if module == "torch" and name.endswith("Storage"):
            if name not in STORAGE_DTYPES:
                raise ValueError(f"{self.path}: holds a tensor of type torch.{name}, which has "
                                 "no NumPy equivalent; convert it to float32 before saving")
            return np.dtype(STORAGE_DTYPES[name])
        return type(name, (Inert,), {"name": f"{module}.{name}"})

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) >= 3 and pid[0] == "storage"
                and isinstance(pid[1], np.dtype)):
            raise ValueError(f"{self.path}: a storage reference this reader does not know "
                             f"({pid[:2]!r})")
        dtype = pid[1].newbyteorder("<" if self.byteorder == "little" else ">")
        return np.frombuffer(self.archive.read(f"{self.prefix}data/{pid[2]}"), dtype=dtype)


def read_torch_file(path) -> object:
    """The object saved in the PyTorch file ``path``, every tensor a NumPy array (the module
    docstring); ``ValueError`` naming the file for anything else."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path}: not a PyTorch zip file (torch.save's default since torch "
                         "1.6); load it with torch and save it again with torch.save")
    with zipfile.ZipFile(path) as archive:
        pickles = [n for n in archive.namelist() if n.endswith("data.pkl")]
        if len(pickles) != 1:
            raise ValueError(f"{path}: a zip file but not one torch.save wrote (it holds "
                             f"{len(pickles)} data.pkl)")
        prefix = pickles[0][:-len("data.pkl")]
        names = set(archive.namelist())
        byteorder = (archive.read(prefix + "byteorder").decode().strip()
                     if prefix + "byteorder" in names else "little")
        with archive.open(pickles[0]) as file:
            try:
                return _Reader(file, archive, prefix, byteorder, path).load()
            except (pickle.UnpicklingError, EOFError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}: cannot be read as a torch.save file ({exc})") from None


def module_arrays(module: Inert, max_depth: int = 16) -> dict:
    """The arrays of a module saved whole (``torch.save(module)``), by the names its
    ``state_dict`` would give them (``"rho.weight"``), plus the arrays it holds as plain
    attributes (ETM's fixed embeddings ``rho``), which a ``state_dict`` leaves out.  Submodules
    deeper than ``max_depth`` are not followed (a pickle can make a cycle)."""
    out: dict = {}
    _collect(module, "", out, max_depth)
    return out


def _collect(module, prefix: str, out: dict, depth: int) -> None:
    state = module.state if isinstance(module, Inert) else None
    if not isinstance(state, dict) or depth < 0:
        return
    for group in ("_parameters", "_buffers"):
        members = state.get(group)
        for name, value in (members.items() if isinstance(members, dict) else ()):
            if isinstance(value, np.ndarray):
                out[prefix + name] = value
    for name, value in state.items():
        if isinstance(name, str) and not name.startswith("_") and isinstance(value, np.ndarray):
            out[prefix + name] = value
    children = state.get("_modules")
    for name, child in (children.items() if isinstance(children, dict) else ()):
        _collect(child, f"{prefix}{name}.", out, depth - 1)
