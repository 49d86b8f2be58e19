"""The playbook: a firm's clause positions, and the checks that turn them into issues."""
from pipelines.playbook.loader import DEFAULT_PLAYBOOK, PlaybookError, load_playbook, parse_playbook
from pipelines.playbook.schema import ClauseRule, Playbook, ValueCheck

__all__ = [
    "DEFAULT_PLAYBOOK", "ClauseRule", "Playbook", "PlaybookError", "ValueCheck",
    "load_playbook", "parse_playbook",
]
