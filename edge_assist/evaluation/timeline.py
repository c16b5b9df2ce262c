"""One PNG per recording: ground truth and each system's spoken services over time."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from edge_assist.evaluation.annotations import GTEvent, Prediction
from edge_assist.evaluation.scorer import Matching
from edge_assist.events import SubType

if TYPE_CHECKING:
    from matplotlib.axes import Axes

_COLOURS = {st: f"C{i}" for i, st in enumerate(SubType)}


def plot_timeline(
    path: Path,
    title: str,
    gt: Sequence[GTEvent],
    systems: Sequence[tuple[str, Sequence[Prediction], Matching]],
    captions: Sequence[tuple[float, float]] = (),
    duration_s: float = 0.0,
) -> Path:
    """GT windows as bars; predictions as markers at their window centre, filled when matched."""
    import matplotlib

    matplotlib.use("Agg")  # headless: CI and the glasses' host have no display
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    lanes = ["ground truth", *[name for name, _, _ in systems]]
    fig, ax = plt.subplots(figsize=(11, 1.0 + 0.55 * len(lanes)))
    top = len(lanes) - 1
    for t0, _t1 in captions:
        ax.axvline(t0, color="0.88", lw=0.8, zorder=0)
    used = _draw_lanes(ax, top, gt, systems)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(list(reversed(lanes)))
    ax.set_ylim(-0.6, top + 0.6)
    end = max(
        [duration_s]
        + [g.t1 for g in gt]
        + [p.t1 for _, ps, _ in systems for p in ps]
        + [t1 for _, t1 in captions]
    )
    ax.set_xlim(0, end * 1.01 if end > 0 else 1)
    ax.set_xlabel("stream time (s)")
    ax.set_title(title, fontsize=10)
    handles = [
        Line2D([0], [0], marker="s", ls="", color=_COLOURS[st], label=st.label)
        for st in SubType
        if st in used
    ]
    handles.append(Line2D([0], [0], marker="o", ls="", mfc="none", mec="k", label="unmatched"))
    handles.append(Line2D([0], [0], marker="o", ls="", color="k", label="matched"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _draw_lanes(
    ax: Axes, top: int, gt: Sequence[GTEvent], systems: Sequence[tuple[str, Sequence[Prediction], Matching]]
) -> set[SubType]:
    """The ground truth's bars in the top lane, each system's markers below; the kinds drawn."""
    used: set[SubType] = set()
    for g in gt:
        colour = _COLOURS[g.sub_type]
        ax.barh(top, g.t1 - g.t0, left=g.t0, height=0.5, color=colour, alpha=0.55, edgecolor="k", lw=0.5)
        used.add(g.sub_type)
    for lane, (_, preds, m) in enumerate(systems):
        y = top - 1 - lane
        hit = {id(p.prediction) for p in m.correct_pairs}
        for p in preds:
            colour = _COLOURS[p.sub_type]
            ax.plot(p.centre, y, "o", ms=7, mec=colour, mew=1.5, mfc=colour if id(p) in hit else "none")
            used.add(p.sub_type)
    return used
