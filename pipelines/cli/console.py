"""Where the CLI talks to people: stderr for progress and messages, stdout for results."""
from __future__ import annotations

from rich.console import Console

console = Console(stderr=True)
