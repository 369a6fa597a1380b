"""``rankmeter metrics``: the registry, as a table or in detail."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from rich.console import Console

EXAMPLES = """
\b
Examples:
  rankmeter metrics                     every metric
  rankmeter metrics --family ranking    one family
  rankmeter metrics P_10                one metric, by any name evaluate accepts
  rankmeter metrics --markdown > docs/metrics.md
"""


@click.command(name="metrics", context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXAMPLES)
@click.argument("name", required=False)
@click.option("--family", default=None, help="Only this family (ranking, ratings, correlation, beyond, ...).")
@click.option("--markdown", is_flag=True, help="Print the whole catalogue as Markdown (docs/metrics.md).")
def command(name: str | None, family: str | None, markdown: bool) -> None:
    """List the registered metrics, or describe one (NAME: any name evaluate accepts, e.g. P_10, ndcg@10)."""
    if markdown:
        from ..metrics.catalogue import render_markdown

        click.echo(render_markdown(), nl=False)
        return
    from rich.markup import escape
    from rich.table import Table

    from .._errors import ParameterError
    from ..metrics.registry import all_specs, families, parse_metric, trec_output_name

    console = _console()
    if name:
        metric = parse_metric(name)
        spec = metric.spec
        console.print(f"[bold]{escape(spec.name)}[/bold] ({escape(spec.family)}): {escape(spec.summary)}")
        if metric.canonical != spec.name:
            console.print(f"{escape(name.strip())} is {escape(metric.canonical)}")
        console.print(f"formula: {escape(spec.formula)}")
        if spec.convention:
            console.print(f"convention: {escape(spec.convention)}")
        console.print(f"reference: {escape(spec.citation)}")
        for p in spec.params:
            console.print(f"  {escape(p.name)} = {escape(repr(p.default))}  ({escape(p.expected)})  {escape(p.doc)}")
        if spec.aliases:
            console.print("aliases: " + escape(", ".join(spec.aliases)))
        if spec.trec_names:
            shown = ", ".join(t.name + ("_k" if t.cutoff else "") for t in spec.trec_names)
            console.print(f"trec_eval: {escape(shown)}")
            out = trec_output_name(metric)
            if out and out != name.strip():
                console.print(f"trec_eval prints {escape(name.strip())} as {escape(out)}")
        if spec.sql_name:
            console.print("SQL function: " + escape(", ".join([spec.sql_name, *spec.sql_aliases])))
        facts = [f"cutoff @k: {'yes' if spec.cutoff else 'no'}", f"higher is better: {spec.higher_is_better}"]
        if spec.count:
            facts.append("a count (summed over queries in trec_eval's output)")
        console.print(escape(";  ".join(facts)))
        return
    known = families()
    if family is not None and family not in known:
        raise ParameterError(f"--family {family!r} is not a metric family; the families are {', '.join(known)}")
    table = Table(title="rankmeter metrics")
    for col in ("name", "family", "params", "aliases", "summary"):
        table.add_column(col)
    for spec in all_specs():
        if family and spec.family != family:
            continue
        params = ", ".join(f"{p.name}={p.default}" for p in spec.params)
        table.add_row(escape(spec.name + ("@k" if spec.cutoff else "")), escape(spec.family), escape(params),
                      escape(", ".join(spec.aliases)), escape(spec.summary))
    console.print(table)


def _console() -> Console:
    """A rich console whose closed pipe (``| head -1``) ends the command quietly.

    rich's default exits with code 1 on a broken pipe; this one raises BrokenPipeError,
    which the app turns into a clean exit.
    """
    import os
    import sys

    from rich.console import Console

    class _PipeConsole(Console):
        def on_broken_pipe(self) -> None:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            raise BrokenPipeError

    return _PipeConsole()
