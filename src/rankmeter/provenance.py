"""The record every saved result and report carries: what produced it, from which inputs, how.

One record type, :class:`Provenance`, written by every saver (``Result.save``, ``Comparison.save``
and ``to_json``, ``ExperimentResult.save``) and every HTML report, and read back by the loaders.
Its dictionary follows the sections of ir_metadata (Breuer et al., "ir_metadata: An Extensible
Metadata Schema for IR Experiments", SIGIR 2022, doi:10.1145/3477495.3531738) where they fit:
``implementation`` (software and version), ``platform`` (Python, threads), ``data`` (each input's
path, size and SHA-256) and ``method`` (metric specifications, options and seeds), plus the date.

Options that an evaluation did not use are left out, never written as null. A file input is
hashed when the record is first written (not while evaluating: hashing a large run would slow
every evaluation); a file that changed since it was read says so (``"changed": true``, no hash).

>>> p = Provenance.create(metrics=["ndcg@10"], options={"depth": None, "queries": "judged"}, threads=1)
>>> d = p.to_dict()
>>> d["implementation"]["software"], d["method"], d["platform"]["threads"]
('rankmeter', {'metrics': ['ndcg@10'], 'options': {'queries': 'judged'}}, 1)
>>> Provenance.from_dict(d) == p
True
"""

from __future__ import annotations

import datetime
import os
import platform
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping, TypeVar

__all__ = ["Provenance", "InputFile", "describe_input", "attach", "hash_ahead", "SCHEMA"]

SCHEMA = "rankmeter-provenance/1"
_HASHES: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> sha256, computed once per process
_AHEAD: dict[tuple[str, int, int], "_Digest"] = {}  # the same, being computed in the background


def _version() -> str:
    """rankmeter's version, as the package states it (``rankmeter.__version__``: no metadata lookup, which
    costs ~30 ms of a command's start; a test checks it equals the installed distribution's version)."""
    import rankmeter

    return str(rankmeter.__version__)


def _sha256(path: str) -> str:
    import hashlib  # (on first use: loading OpenSSL costs ~2 ms of every start, and most outputs hash nothing)

    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            h.update(block)  # (hashlib lets other threads run while it hashes a block)
    return h.hexdigest()


class _Digest:
    """The SHA-256 of one file, computed by a background thread at the lowest CPU priority."""

    def __init__(self, path: str) -> None:
        import threading

        self.path, self.value, self.error = path, "", False
        self.done = threading.Event()
        threading.Thread(target=self._run, name="rankmeter-sha256", daemon=True).start()

    def _run(self) -> None:
        try:
            import threading

            # niced, so that it takes only what the evaluation leaves of the cores (Linux: nice is per thread)
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        except (AttributeError, OSError):  # pragma: no cover - another system: the thread runs at normal priority
            pass
        try:
            self.value = _sha256(self.path)
        except OSError:
            self.error = True
        finally:
            self.done.set()


def _key(path: str) -> tuple[str, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (path, st.st_size, st.st_mtime_ns)


def hash_ahead(*paths: Any) -> None:
    """Start hashing the regular files among ``paths`` in the background, for a record that will be written.

    The evaluation does not wait for it: a run of 10M lines (350 MB) takes ~0.2 s to hash, which a thread
    at the lowest priority does while the evaluation leaves a core idle. :meth:`InputFile.hashed` then
    takes the digest (waiting for it only if it is not done yet). Streams and missing files are left alone.
    """
    import stat

    for value in paths:
        if not isinstance(value, (str, os.PathLike)):
            continue
        path = os.path.abspath(os.fspath(value))
        key = _key(path)
        if key is None or key in _HASHES or key in _AHEAD:
            continue
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                continue
        except OSError:  # pragma: no cover - removed between the two calls
            continue
        _AHEAD[key] = _Digest(path)


def _digest(key: tuple[str, int, int]) -> str:
    """The SHA-256 of the file ``key`` names: computed once per process, or taken from the background."""
    if key not in _HASHES:
        ahead = _AHEAD.pop(key, None)
        if ahead is not None:
            ahead.done.wait()
            if ahead.error or _key(key[0]) != key:  # unreadable, or changed while it was hashed
                raise OSError(key[0])
            _HASHES[key] = ahead.value
        else:
            _HASHES[key] = _sha256(key[0])
    return _HASHES[key]


@dataclass(frozen=True)
class InputFile:
    """One input: its role (``qrels``, ``run``, ``run:NAME``...), and for a file its path, size in bytes
    and SHA-256; an object given in memory has ``kind`` (its type) and no path."""

    role: str
    path: str | None = None
    size: int | None = None
    sha256: str | None = None
    kind: str | None = None
    mtime_ns: int | None = field(default=None, compare=False)
    changed: bool = False

    def hashed(self) -> "InputFile":
        """This input with its SHA-256 (computed once per file and process), or ``changed`` when the file
        is no longer what was read (another size or modification time), or gone."""
        if self.path is None or self.sha256 is not None or self.changed or self.kind is not None:
            return self
        try:
            st = os.stat(self.path)
        except OSError:
            return replace(self, changed=True)
        if self.size is not None and (st.st_size != self.size or (self.mtime_ns is not None
                                                                  and st.st_mtime_ns != self.mtime_ns)):
            return replace(self, changed=True)
        try:
            digest = _digest((self.path, st.st_size, st.st_mtime_ns))
        except OSError:
            return replace(self, changed=True)
        return replace(self, size=st.st_size, sha256=digest)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role}
        for key in ("path", "size", "sha256", "kind"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.changed:
            out["changed"] = True
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "InputFile":
        return cls(role=str(d["role"]), path=d.get("path"), size=d.get("size"), sha256=d.get("sha256"),
                   kind=d.get("kind"), changed=bool(d.get("changed", False)))


def describe_input(role: str, value: Any) -> InputFile:
    """The record of one input as given: a path (``str`` or ``os.PathLike``, or ``irds:ID``) or an object.

    >>> describe_input("qrels", {"q1": ["a"]}).to_dict()
    {'role': 'qrels', 'kind': 'dict'}
    """
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, bytes):  # pragma: no cover - bytes paths are not accepted by the readers
            path = os.fsdecode(path)
        if path.startswith("irds:"):  # a dataset of ir_datasets, by its id (its files are ir_datasets' business)
            return InputFile(role=role, path=path, kind="ir_datasets")
        if path == "-":
            return InputFile(role=role, path=path, kind="stdin")
        try:
            st = os.stat(path)
        except OSError:
            return InputFile(role=role, path=os.path.abspath(path), changed=True)
        return InputFile(role=role, path=os.path.abspath(path), size=st.st_size, mtime_ns=st.st_mtime_ns)
    return InputFile(role=role, kind=type(value).__name__)


_T = TypeVar("_T")


def attach(result: _T, *, qrels: Any, run: Any, metrics: Iterable[Any], options: Mapping[str, Any],
           threads: int | None = None, seeds: Mapping[str, Any] | None = None) -> _T:
    """``result`` (a frozen dataclass with a ``provenance`` field) with the record of this evaluation."""
    record = Provenance.create(inputs=[describe_input("qrels", qrels), describe_input("run", run)], metrics=metrics,
                               options=options, seeds=seeds, threads=threads)
    return replace(result, provenance=record)  # type: ignore[type-var]  # a dataclass with a provenance field


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat()


@dataclass(frozen=True)
class Provenance:
    """What produced a result: rankmeter's version, the date (UTC, ISO 8601), the inputs, the metric
    specifications as written, the options used, the seeds of random procedures and the thread count."""

    version: str
    date: str
    inputs: tuple[InputFile, ...] = ()
    metrics: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    seeds: Mapping[str, Any] = field(default_factory=dict)
    threads: int | None = None
    python: str = ""

    @classmethod
    def create(cls, *, inputs: Iterable[InputFile] = (), metrics: Iterable[Any] = (),
               options: Mapping[str, Any] | None = None, seeds: Mapping[str, Any] | None = None,
               threads: int | None = None) -> "Provenance":
        """A record made now; options and seeds that are None (not used) are left out."""
        return cls(version=_version(), date=_now(), inputs=tuple(inputs),
                   metrics=tuple(getattr(m, "text", m) for m in metrics),
                   options={k: v for k, v in (options or {}).items() if v is not None},
                   seeds={k: v for k, v in (seeds or {}).items() if v is not None},
                   threads=threads, python=platform.python_version())

    def merged(self, other: "Provenance", prefix: str = "") -> "Provenance":
        """This record with ``other``'s inputs added (their roles prefixed), e.g. a comparison's runs."""
        extra = tuple(replace(i, role=prefix + i.role) for i in other.inputs)
        known = {(i.role, i.path) for i in self.inputs}
        return replace(self, inputs=self.inputs + tuple(i for i in extra if (i.role, i.path) not in known))

    def with_inputs(self, inputs: Iterable[InputFile]) -> "Provenance":
        """This record with ``inputs`` in place of those of the same roles (e.g. the files a command read,
        where the library saw the objects read from them); other inputs kept, in order."""
        new = {i.role: i for i in inputs}
        kept = [new.pop(i.role, i) for i in self.inputs]
        return replace(self, inputs=tuple(kept) + tuple(new.values()))

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-ready data, in ir_metadata's sections; every file input hashed."""
        method: dict[str, Any] = {"metrics": list(self.metrics)}
        if self.options:
            method["options"] = {k: _plain(v) for k, v in self.options.items()}
        if self.seeds:
            method["seeds"] = {k: _plain(v) for k, v in self.seeds.items()}
        plat: dict[str, Any] = {"python": self.python}
        if self.threads is not None:
            plat["threads"] = self.threads
        return {
            "schema": SCHEMA,
            "implementation": {"software": "rankmeter", "version": self.version},
            "platform": plat,
            "data": {"inputs": [i.hashed().to_dict() for i in self.inputs]},
            "method": method,
            "date": self.date,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Provenance":
        """The record :meth:`to_dict` wrote."""
        method = d.get("method", {})
        plat = d.get("platform", {})
        return cls(version=str(d.get("implementation", {}).get("version", "unknown")), date=str(d.get("date", "")),
                   inputs=tuple(InputFile.from_dict(i) for i in d.get("data", {}).get("inputs", [])),
                   metrics=tuple(method.get("metrics", [])), options=dict(method.get("options", {})),
                   seeds=dict(method.get("seeds", {})), threads=plat.get("threads"), python=str(plat.get("python", "")))

    def __eq__(self, other: object) -> bool:  # inputs compare by what was written (hashes filled in)
        if not isinstance(other, Provenance):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.version, self.date, self.metrics))


def _plain(v: Any) -> Any:
    """JSON-ready: tuples as lists, sets sorted, numpy scalars as Python numbers, anything else as text."""
    if isinstance(v, (str, bool, int, float)) or v is None:
        return v
    if isinstance(v, Mapping):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, (set, frozenset)):
        return sorted(_plain(x) for x in v)
    item = getattr(v, "item", None)
    if callable(item):
        return _plain(item())
    return str(v)
