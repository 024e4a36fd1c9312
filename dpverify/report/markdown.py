"""Markdown helpers for generated reports: escaping of anything that came from data or code.

Every cell or label written into a report goes through :func:`esc`, so text from
an untrusted data file (item labels) or a claim statement cannot inject markup,
links or HTML.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

__all__ = ["esc", "table", "code"]

_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~$])")


def esc(text: Any) -> str:
    """Escape Markdown/HTML metacharacters; newlines become spaces (table-safe)."""
    s = str(text).replace("\r", " ").replace("\n", " ").replace("&", "&amp;")
    return _SPECIAL.sub(r"\\\1", s)


def code(text: Any) -> str:
    """Inline code span that cannot be broken out of (backticks replaced)."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub table; cells must already be escaped (use :func:`esc`)."""
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out) + "\n"
