"""``privcheck plugins``: the plugins (built-in and installed) and what each contributes."""

from __future__ import annotations


def plugins() -> None:
    """List the plugins (built-in and installed) and what each contributes."""
    from rich.console import Console
    from rich.table import Table

    from privcheck.plugins import plugin_rows

    table = Table(title="privcheck plugins", show_edge=False)
    for col in ("plugin", "source", "provides"):
        table.add_column(col)
    for row in plugin_rows():
        table.add_row(row["name"], row["source"], row["provides"])
    Console(width=120).print(table)
