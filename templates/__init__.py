"""jinja2 templates shipped with the package: code/ (box code per rule kind), prompts/."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

__all__ = ["render"]


@cache
def _environment() -> jinja2.Environment:
    import jinja2  # on first render: importing the package stays cheap

    return jinja2.Environment(
        loader=jinja2.PackageLoader("templates", "."),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # renders Python source and prompts, never HTML
    )


def render(name: str, **context: Any) -> str:
    """Render ``templates/<name>`` (e.g. ``code/eri/caesar.py.j2``) with ``context``."""
    return _environment().get_template(name).render(**context)
