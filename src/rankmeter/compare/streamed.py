"""A run that :func:`rankmeter.compare` reads from a stream: evaluated as it arrives, never held whole.

A run given as ``-``, a pipe or a FIFO (``/dev/stdin``, ``<(zcat run.gz)``) is read once,
in blocks, by the streaming engine (:func:`rankmeter.engines.stream.evaluate_stream`,
chunks of :data:`STREAM_CHUNK_ROWS` rows): the first malformed line, binary data or item
listed twice for a query ends the comparison with its error at once, whatever follows,
and memory is bounded by the chunk plus the per-query values, not by the length of the
stream. Its per-query values are the in-memory evaluation's, to the last bit.

What a stream cannot give: the run's rankings afterwards (``overlap`` and the HTML
report's metric@k curves read them), ``unjudged="bounds"``, and a run whose queries are
not grouped (all rows of a query together): the error says to write it to a file.

>>> StreamedRun("-", {"order": "score"}).options["order"]
'score'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

__all__ = ["StreamedRun", "STREAM_CHUNK_ROWS"]

#: rows per chunk of a streamed run: a fault is reported after at most about 5 MB of text
STREAM_CHUNK_ROWS = 100_000

_OPTIONS = ("order", "duplicates", "query", "item", "score", "rank")


@dataclass(frozen=True)
class StreamedRun(os.PathLike[str]):
    """A run on a stream, with the reader's options (``order``, ``duplicates``, ``query``, ``item``,
    ``score``, ``rank``: as :func:`rankmeter.read_run`)."""

    path: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.options) - set(_OPTIONS))
        if unknown:
            from .._errors import ParameterError

            raise ParameterError(f"StreamedRun: unknown reader option {unknown[0]!r} (expected one of "
                                 f"{', '.join(_OPTIONS)})")

    def __fspath__(self) -> str:
        return self.path

    def evaluate(self, qrels: Any, metrics: Sequence[Any], queries: Any, *, depth: int | None = None,
                 judged_only: bool = False, ties: str = "id") -> Any:
        """The :class:`~rankmeter.result.Result` of the stream, read as it arrives."""
        from ..engines.stream import evaluate_stream

        return evaluate_stream(qrels, self.path, list(metrics), queries=queries, chunk_rows=STREAM_CHUNK_ROWS,
                               depth=depth, judged_only=judged_only, ties=ties, progress=False, **self.options)

    def reader_notes(self, result: Any) -> list[str]:
        """What the run's reader skipped (its comment lines), as :attr:`rankmeter.data.Run.notes` says it."""
        from ..io.trec import comment_note

        cov = result.coverage
        n = int(cov.comment_lines.get("run", 0)) if cov is not None else 0
        return [comment_note(n, "<stdin>" if self.path == "-" else self.path)] if n else []
