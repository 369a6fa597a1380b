"""What the ``rankmeter`` executable sets before numpy loads (imported first by the package).

Its ``evaluate`` and ``trec_eval`` commands never call BLAS, but OpenBLAS's worker threads, started
when numpy loads, spin ~0.1 s of CPU at start, taken from the cores that parse and evaluate. For these
two commands only, ``OPENBLAS_NUM_THREADS=1`` is set before numpy loads (OpenBLAS reads it once), never
over a value the user set. So is ``NUMPY_MADVISE_HUGEPAGE=0`` (numpy's documented switch): these
commands make short-lived arrays of tens of MB, and asking the kernel for huge pages costs more system
time on first touch than the TLB saves (10M lines: ~0.05-0.1 s of CPU; the memory is the same). And
cloudpickle, which pyarrow loads at import when it is installed, is marked not importable: these commands
never pickle (~3 ms of every start).
Programs that import rankmeter, and every other command (the recommenders
of ``run-experiment`` multiply matrices), keep the usual setting.
"""

from __future__ import annotations

import os
import sys

NO_BLAS_COMMANDS = frozenset({"evaluate", "trec_eval"})


def one_blas_thread_for_commands(argv: list[str]) -> bool:
    """Set ``OPENBLAS_NUM_THREADS=1`` and ``NUMPY_MADVISE_HUGEPAGE=0``, and mark cloudpickle not importable,
    when ``argv`` is the executable running one of :data:`NO_BLAS_COMMANDS` and numpy has not loaded yet
    (see the module docstring); whether it did.

    >>> one_blas_thread_for_commands(["/usr/bin/python", "script.py"])
    False
    """
    if "numpy" in sys.modules or len(argv) < 2 or argv[1] not in NO_BLAS_COMMANDS:
        return False
    if argv[0] != "-m" and os.path.basename(argv[0]) not in ("rankmeter", "rankmeter.exe", "__main__.py"):
        return False
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
    # pyarrow pickles with cloudpickle when it is installed (scikit-learn's joblib brings it), loading it and
    # logging at import (~3 ms of every start); these commands never pickle: pyarrow takes the standard pickle
    sys.modules.setdefault("cloudpickle", None)  # type: ignore[arg-type]  # (None: "not importable", by design)
    return True


one_blas_thread_for_commands(sys.argv)
