"""``rankmeter metrics``: the registry, as a table or in detail."""

from __future__ import annotations

import click


@click.command(name="metrics", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name", required=False)
@click.option("--family", default=None, help="Only this family (ranking, ratings, correlation, beyond, ...).")
@click.option("--markdown", is_flag=True, help="Print the whole catalogue as Markdown (docs/metrics.md).")
def command(name: str | None, family: str | None, markdown: bool) -> None:
    """List the registered metrics, or describe one (NAME)."""
    if markdown:
        from ..metrics.catalogue import render_markdown

        click.echo(render_markdown(), nl=False)
        return
    from rich.console import Console
    from rich.table import Table

    from ..metrics.registry import all_specs, get_spec

    console = Console()
    if name:
        spec = get_spec(name.split("@")[0].split("(")[0])
        console.print(f"[bold]{spec.name}[/bold] ({spec.family}): {spec.summary}")
        console.print(f"formula: {spec.formula}")
        if spec.convention:
            console.print(f"convention: {spec.convention}")
        console.print(f"reference: {spec.citation}")
        for p in spec.params:
            choices = f" one of {', '.join(map(str, p.choices))}" if p.choices else ""
            console.print(f"  {p.name} = {p.default!r}{choices}  {p.doc}")
        if spec.aliases:
            console.print("aliases: " + ", ".join(spec.aliases))
        console.print(f"cutoff @k: {'yes' if spec.cutoff else 'no'};  higher is better: {spec.higher_is_better}")
        return
    table = Table(title="rankmeter metrics")
    for col in ("name", "family", "params", "aliases", "summary"):
        table.add_column(col)
    for spec in all_specs():
        if family and spec.family != family:
            continue
        params = ", ".join(f"{p.name}={p.default}" for p in spec.params)
        table.add_row(spec.name + ("@k" if spec.cutoff else ""), spec.family, params,
                      ", ".join(spec.aliases), spec.summary)
    console.print(table)
