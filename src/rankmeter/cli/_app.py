"""The ``rankmeter`` command group: subcommands load lazily so the CLI starts fast.

Each subcommand lives in its own module ``rankmeter.cli.<name>`` and exposes a
``click.Command`` called ``command``; add it to ``COMMANDS`` below. Errors that
rankmeter raises on purpose (:class:`rankmeter.RankmeterError`) become one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from typing import Any

import click

from .._errors import RankmeterError

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module, one-line help shown by `rankmeter --help`)
    "evaluate": ("rankmeter.cli.evaluate", "Evaluate a run against judgments (ranking metrics)."),
    "evaluate-ratings": ("rankmeter.cli.evaluate_ratings", "Evaluate predicted ratings against true ratings."),
    "compare": ("rankmeter.cli.compare", "Compare runs with significance tests and reports."),
    "explain-diff": ("rankmeter.cli.explain_diff",
                     "Why two specifications of one metric differ, per query, in parts that add up."),
    "fuse": ("rankmeter.cli.fuse", "Fuse runs into one run (RRF, CombSUM/CombMNZ, weighted sums tuned on judgments)."),
    "overlap": ("rankmeter.cli.overlap", "How similar two runs' rankings are, per query (RBO, tau_AP, Kendall)."),
    "compare-across": ("rankmeter.cli.compare_across", "Models across data sets: Friedman, meta-analysis."),
    "judges": ("rankmeter.cli.judges", "How far two judges agree, and whether the runs' order survives the change."),
    "pool": ("rankmeter.cli.pool", "The pool of runs to judge (depth-k union)."),
    "pool-bias": ("rankmeter.cli.pool_bias", "Leave one run out: how much a pool favours the runs that built it."),
    "split": ("rankmeter.cli.split",
              "Split interactions into train and test (hold-out, temporal, leave-k-out, k-fold)."),
    "run-experiment": ("rankmeter.cli.experiment", "Run a whole recommender evaluation experiment."),
    "demo": ("rankmeter.cli.demo", "Generate sample data and run the main experiment on it."),
    "metrics": ("rankmeter.cli.metrics", "List the registered metrics with their formulas."),
    "trec_eval": ("rankmeter.cli.trec_eval", "A drop-in for trec_eval 10.0 (and 9.0.8): same options, same output."),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return [name for name, (module, _) in COMMANDS.items() if _available(module)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS or not _available(COMMANDS[cmd_name][0]):
            return None
        module = importlib.import_module(COMMANDS[cmd_name][0])
        command: click.Command = module.command
        _running(command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except EOFError as exc:  # click would take it for Ctrl-D ("Aborted.", 130): an input that ended early
            from .._errors import InputError

            raise InputError(f"an input ended before its end ({exc}): a truncated or corrupt compressed file?") \
                from None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


_CURRENT: dict[str, Any] = {"command": None}


def _running(command: click.Command) -> None:
    """Remember the command being run: its options word the messages (``--duplicates max``)."""
    from . import _output
    from ._options import option_names

    _CURRENT["command"] = command
    _output.OPTIONS.clear()
    _output.OPTIONS.update(option_names(command))


def _error_text(exc: BaseException) -> str:
    """An error message the way the user wrote the command, safe for the terminal."""
    from ..report.terminal import terminal_text
    from ._options import cli_spelling, option_names

    return terminal_text(cli_spelling(str(exc), option_names(_CURRENT["command"])))


_NUMPY_WORDS = {
    "overflow encountered": "a number overflowed (too large for a float)",
    "invalid value encountered": "a computation gave an undefined value (NaN)",
    "divide by zero encountered": "a division by zero",
    "underflow encountered": "a number underflowed (too small for a float)",
    "Mean of empty slice": "a mean over no value",
    "Degrees of freedom <= 0": "a variance over fewer than two values",
}


def _report_warnings(caught: list[warnings.WarningMessage]) -> None:
    """One ``rankmeter: warning:`` line per distinct warning, counted; never a raw warning with source lines."""
    from ..report.terminal import terminal_text

    counts: dict[str, int] = {}
    for w in caught:
        text = str(w.message).strip().splitlines()[0] if str(w.message).strip() else type(w.message).__name__
        origin = (w.filename or "").replace("\\", "/")
        lib = "numpy" if "/numpy/" in origin else "scipy" if "/scipy/" in origin else \
            "pandas" if "/pandas/" in origin else "pyarrow" if "/pyarrow/" in origin else ""
        words = next((v for k, v in _NUMPY_WORDS.items() if text.startswith(k)), None)
        if words is not None:
            line = f"{words} ({lib + ': ' if lib else ''}{text}); the affected values may be inf or NaN"
        else:
            line = f"{lib + ': ' if lib else ''}{text}"
        counts[line] = counts.get(line, 0) + 1
    for line, n in counts.items():
        times = "" if n == 1 else f" ({n} times)"
        click.echo(f"rankmeter: warning: {terminal_text(line)}{times}", err=True)


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rankmeter")
def group() -> None:
    """rankmeter: offline evaluation of rankings and recommendations."""


def main(argv: list[str] | None = None) -> Any:
    """Entry point: run the group, turning rankmeter's errors into exit code 2.

    Warnings raised while a command runs (numpy's ``RuntimeWarning`` and the like)
    are collected and said once each, counted, as ``rankmeter: warning: ...`` lines.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        try:
            return _main(argv)
        finally:
            _report_warnings(caught)


def _main(argv: list[str] | None) -> Any:
    from . import _streams

    try:
        out = group.main(args=argv, prog_name="rankmeter", standalone_mode=False)
        _streams.flush()  # a full disk behind stdout is said here, like any other error
        return out
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.message = _shorten_values(exc.message)  # type: ignore[misc]  # click quotes a 5000-digit value whole
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except RankmeterError as exc:
        click.echo(f"rankmeter: error: {_error_text(exc)}", err=True)
        sys.exit(2)
    except BrokenPipeError:  # in the executable a closed pipe never gets here (rankmeter.cli._streams)
        sys.exit(0)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # a bug, not bad input: say so in one line unless debugging
        import os

        if os.environ.get("RANKMETER_DEBUG"):
            raise
        click.echo(f"rankmeter: internal error: {type(exc).__name__}: {_error_text(exc)} "
                   "(set RANKMETER_DEBUG=1 for the traceback, and please report it)", err=True)
        sys.exit(1)


def _shorten_values(text: str, limit: int = 60) -> str:
    """Quoted values longer than ``limit`` characters cut to their start and their length.

    >>> _shorten_values("'" + "9" * 5000 + "' is not a valid integer.")
    "'999999999999999999999999999999...' (5000 characters) is not a valid integer."
    """
    import re

    long_quoted = r"'([^'\n]{" + str(limit + 1) + r",})'"
    return re.sub(long_quoted, lambda m: f"'{m.group(1)[:limit // 2]}...' ({len(m.group(1))} characters)", text)


def _lean_memory() -> None:
    """Let the command line reuse the memory it frees (the executable only, not the library).

    Arrow allocates through malloc (its system pool rather than its own allocator,
    which holds on to freed buffers), and glibc's malloc keeps one arena for all
    threads: with one per thread, the buffers Arrow's CSV threads free are not reused
    by the main thread. Together they lower the peak memory of `rankmeter evaluate`
    on a 1M-line run by about 40 MB at no cost in time.

    Freed memory is also kept for reuse rather than given back to the system after
    each chunk (no trimming, and buffers up to 32 MB from the heap rather than fresh
    maps): every page the system hands out again costs a page fault, which on this
    project's 2-core virtual machine was a fifth of the CPU time of a 10M-line job.
    Measured: 158k -> 135k page faults and 1.43 -> 1.38 s at 10M lines, peak memory
    unchanged. Elsewhere (another libc) only the pool changes.
    """
    import pyarrow as pa

    pa.set_memory_pool(pa.system_memory_pool())
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
        mallopt(-8, 1)  # M_ARENA_MAX
        mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD (fixed: no longer adjusted, and trimming follows it otherwise)
        mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD
        mallopt(-2, 16 << 20)  # M_TOP_PAD
    except (OSError, AttributeError):
        pass


def console_main() -> None:
    """The ``rankmeter`` executable: :func:`main`, then a hard exit.

    First its output streams and signals are set up (:mod:`rankmeter.cli._streams`): a full
    disk is one message and exit status 2, a closed pipe ends the process quietly (SIGPIPE),
    an encoding that cannot show a character gets it escaped, and SIGTERM or SIGINT remove
    the temporary files being written and exit with 143 or 130.

    Output is flushed and the process ends without running interpreter
    finalisation, where native thread pools (Arrow's) have been seen to abort
    ("terminate called without an active exception") on a loaded machine, turning
    a clean exit code into a crash. Everything rankmeter writes is closed by then.
    """
    import os

    from . import _streams

    _streams.install()
    _lean_memory()
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    try:
        _streams.flush()
    except RankmeterError as exc:
        try:
            click.echo(f"rankmeter: error: {_error_text(exc)}", err=True)
            sys.stderr.flush()
        except (OSError, ValueError, RankmeterError):
            pass
        code = code or 2
    if code == 0 and _streams.stderr_failed():
        code = 2
    os._exit(code)
