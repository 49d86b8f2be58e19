"""Where the CLI talks to people: stderr for progress and messages, stdout for results."""
from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

console = Console(stderr=True)

_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def shown(text: str | None) -> Text:
    """A file name or other untrusted text for a rich table: never read as markup ("contract
    [final].pdf" lost its "[final]"), its control characters (an ESC that would reach the
    terminal, a newline, a direction override) written out as "\\x1b" or "[U+202E]"."""
    def visible(control: re.Match[str]) -> str:
        code = ord(control.group())
        return f"[U+{code:04X}]" if code > 0xFF else f"\\x{code:02x}"
    return Text(_CONTROLS.sub(visible, text or ""))

