"""``mcevaluate formats``: the problem formats the grader reads, as the registry has them."""

from __future__ import annotations

import click

from evaluator.formats import formats as known_formats

__all__ = ["formats"]


@click.command()
def formats() -> None:
    """List the problem formats: each one's name (for --format and `dataset convert --from`),
    its source and the fields that recognise its records, in the order detection tries them."""
    rows = list(known_formats().values())
    width = max(len(fmt.name) for fmt in rows)
    for fmt in rows:
        click.echo(f"{fmt.name:{width}}  {fmt.title}: {fmt.shape}")
