"""pairwise: pair-interaction simulations from Python.

Submodules (each a thin client of the C++ library's public API, include/pairwise/):
  pairwise.nbody     direct-summation gravity (Henon units)
  pairwise.md        Lennard-Jones molecular dynamics (LAMMPS units lj)
  pairwise.fredholm  Fredholm equations of the second kind (Nystrom)
  pairwise.ljc       all-pairs LJ + Coulomb molecules in implicit solvent
  pairwise.potmap    electrostatic potential maps on lattices
  pairwise.plot      matplotlib pictures of thermo CSVs, potential maps and benchmark JSON

Errors: bad arrays or parameters raise ValueError, failed runs raise pairwise.Error (a
RuntimeError), out of memory raises MemoryError; messages are the command line's.
"""

from ._pairwise import Error, __version__, cuda_available  # noqa: F401
from . import fredholm, ljc, md, nbody, potmap  # noqa: F401

# pairwise.plot (matplotlib) is imported on demand: `import pairwise.plot`.

__all__ = ["Error", "__version__", "cuda_available", "md", "nbody", "fredholm", "ljc", "potmap"]
