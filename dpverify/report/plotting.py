"""One deterministic way to draw the report's PNGs (same data -> byte-identical pages).

Every figure is drawn inside :func:`plot_style`, which starts from matplotlib's defaults
(``style.context("default")``) and applies the figure's own rcParams in a scoped
``rc_context``.  Nothing leaks between figures: the bytes of a PNG depend on its data and
its module's style only, not on which figures the same process drew before (before this
helper, ``dpverify.report.figures`` set ``font.size`` globally and the experiments PNGs came out
different under ``dpverify verify`` than under ``dpverify report``).  :func:`save_png`
writes without the ``Software`` chunk (no matplotlib version in the file).
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping

__all__ = ["plot_style", "save_png", "BASE_RC"]

#: applied on top of matplotlib's defaults for every report figure
BASE_RC: Mapping[str, Any] = {"svg.hashsalt": "dpverify", "path.simplify": False}


@contextmanager
def plot_style(rc: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """Yield ``matplotlib.pyplot`` (Agg backend) with defaults + :data:`BASE_RC` + ``rc``, restored on exit."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # keys are any rc names the caller passes (matplotlib types them as a Literal of known names)
    params: dict[Any, Any] = {**BASE_RC, **(rc or {})}
    with matplotlib.style.context("default"), matplotlib.rc_context(params):
        yield plt


def save_png(fig: Any, path: Path | str, dpi: int, *, tight: bool = True) -> None:
    """Write ``fig`` as PNG with no version/date metadata and close it; call inside :func:`plot_style`."""
    import matplotlib.pyplot as plt

    if tight:
        fig.tight_layout()
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    plt.close(fig)
