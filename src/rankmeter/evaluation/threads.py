"""How many threads rankmeter uses: ``RANKMETER_THREADS``, a keyword, or both cores at most.

Chunks are cut by their number of rows, never by the number of threads, and their
outputs are combined in input order, so results are the same to the last bit
whatever the thread count (a test runs with 1 and 2 threads and compares).

>>> resolve_threads(1)
1
"""

from __future__ import annotations

import os

from .._errors import ParameterError

__all__ = ["resolve_threads", "ENV"]

ENV = "RANKMETER_THREADS"


def resolve_threads(threads: int | None = None, func: str = "evaluate") -> int:
    """``threads`` if given, else ``RANKMETER_THREADS``, else min(2, CPUs); checked (an int >= 1).

    When ``RANKMETER_THREADS`` is set, Arrow's own thread pool (the CSV reader's) is
    capped to it too.
    """
    env = os.environ.get(ENV)
    if threads is None and env is not None and env.strip():
        try:
            threads = int(env)
        except ValueError:
            raise ParameterError(f"{ENV} must be a whole number >= 1. Got {env!r} instead.") from None
        if threads < 1:
            raise ParameterError(f"{ENV} must be a whole number >= 1. Got {env!r} instead.")
        import pyarrow as pa

        if pa.cpu_count() > threads:
            pa.set_cpu_count(threads)
        return threads
    if threads is None:
        return max(1, min(2, os.cpu_count() or 1))
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ParameterError(f"The 'threads' parameter of {func} must be an int >= 1. Got {threads!r} instead.")
    return threads
