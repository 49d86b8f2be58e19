"""Colours for severities and risk levels, shared by the HTML stylesheet and the SVG chart."""
from __future__ import annotations

SEVERITY_COLORS: dict[str, str] = {
    "info": "#6b7280",
    "low": "#2563eb",
    "medium": "#d97706",
    "high": "#dc2626",
    "critical": "#7f1d1d",
}

LEVEL_COLORS: dict[str, str] = {
    "low": "#15803d",
    "medium": "#d97706",
    "high": "#dc2626",
    "critical": "#7f1d1d",
}
