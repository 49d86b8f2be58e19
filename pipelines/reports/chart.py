"""An inline SVG bar chart of flagged categories, so report.html needs no script or network."""
from __future__ import annotations

from html import escape

from pipelines.playbook.severity import SEVERITIES, rank
from pipelines.reports.palette import SEVERITY_COLORS

_LABEL_W = 270
_BAR_W = 420
_ROW_H = 22
_TOP = 40


def category_chart(categories: dict[str, dict[str, int]], documents: int) -> str:
    """Horizontal stacked bars: per category, how many documents have it at each severity.

    `categories` is summarize_batch()'s "categories"; rows are ordered worst severity first,
    then by how many documents are affected, so what needs attention is on top.
    """
    if not categories or documents < 1:
        return '<p class="muted">No clauses found in any document.</p>'
    rows = sorted(
        categories.items(),
        key=lambda kv: (-max(rank(s) for s in kv[1]), -sum(kv[1].values()), kv[0]),
    )
    height = _TOP + _ROW_H * len(rows) + 10
    width = _LABEL_W + _BAR_W + 50
    scale = _BAR_W / documents
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="Documents per clause category by severity">',
        "<title>Documents per clause category, by the worst severity found</title>",
    ]
    x = _LABEL_W
    for severity in SEVERITIES:
        parts.append(f'<rect x="{x}" y="8" width="12" height="12" fill="{SEVERITY_COLORS[severity]}"/>'
                     f'<text x="{x + 16}" y="18" class="legend">{severity}</text>')
        x += 80
    for i, (category, counts) in enumerate(rows):
        y = _TOP + i * _ROW_H
        parts.append(f'<text x="{_LABEL_W - 8}" y="{y + 15}" text-anchor="end">{escape(category)}</text>')
        x = float(_LABEL_W)
        for severity in reversed(SEVERITIES):
            n = counts.get(severity, 0)
            if n:
                w = n * scale
                parts.append(f'<rect x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{_ROW_H - 6}" '
                             f'fill="{SEVERITY_COLORS[severity]}"><title>{escape(category)}: {n} document(s), '
                             f'{severity}</title></rect>')
                x += w
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 15}" class="count">{sum(counts.values())}</text>')
    parts.append("</svg>")
    return "".join(parts)
