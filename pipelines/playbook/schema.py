"""What a playbook says, as validated values (see loader.py for the YAML it is read from)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from pipelines.assessment import Thresholds
from pipelines.playbook.severity import worst

CheckKind = Literal["allowed_values", "min_days", "auto_renewal"]
CHECK_KINDS: tuple[str, ...] = ("allowed_values", "min_days", "auto_renewal")


@dataclass(frozen=True)
class ClauseRule:
    """A clause the playbook requires (missing -> issue) or flags as risky (present -> issue).

    `reason` and `advice` are templates over {category} and {value}.  `except_types` names
    contract types (pipelines.contract_type values) the rule does not apply to: an amendment
    or a filing exhibit needs no liability cap of its own.
    """

    category: str
    severity: str
    reason: str
    advice: str | None = None
    except_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValueCheck:
    """A check of a key term's value.

    `reason` and `advice` are templates over {category}, {value}, {days}, {min_days}, {allowed}.
    """

    category: str
    kind: CheckKind
    severity: str
    reason: str
    advice: str | None = None
    allowed: tuple[str, ...] = ()
    min_days: int | None = None


@dataclass(frozen=True)
class Playbook:
    """A firm's position on each clause: how severe it is, what must be there, what must not."""

    name: str
    version: str
    severities: dict[str, str] = field(default_factory=dict)
    required: tuple[ClauseRule, ...] = ()
    risky: tuple[ClauseRule, ...] = ()
    value_checks: tuple[ValueCheck, ...] = ()
    thresholds: Thresholds = Thresholds()
    we: tuple[str, ...] = ()
    """Names the team signs as; a restraint that binds only another party is in our favour."""

    @property
    def label(self) -> str:
        """Name and version, recorded as the `version` of every finding the playbook makes."""
        return f"{self.name}@{self.version}"

    def for_type(self, contract_type: str | None) -> Playbook:
        """The playbook as it applies to a contract of `contract_type`: rules that except that
        type left out."""
        if contract_type is None:
            return self
        return replace(self, required=tuple(r for r in self.required if contract_type not in r.except_types),
                       risky=tuple(r for r in self.risky if contract_type not in r.except_types))

    def leaving_out(self, categories: frozenset[str]) -> Playbook:
        """The playbook without its positions on `categories`: taught clause types a batch does
        not run (retired, or not trained for its checkpoint), which it must not call missing."""
        if not categories:
            return self
        return replace(self, severities={c: s for c, s in self.severities.items() if c not in categories},
                       required=tuple(r for r in self.required if r.category not in categories),
                       risky=tuple(r for r in self.risky if r.category not in categories),
                       value_checks=tuple(c for c in self.value_checks if c.category not in categories))

    def as_party(self, names: tuple[str, ...]) -> Playbook:
        """The playbook applied from the side of `names` (`--party` outranks the file's `we:`)."""
        return replace(self, we=names) if names else self

    def severity(self, category: str) -> str:
        """Severity of the clause itself when found; categories the playbook omits are info."""
        return self.severities.get(category, "info")

    def stakes(self, category: str) -> str:
        """The worst severity the playbook attaches to a category in any role.

        Review priority uses it: a doubtful Cap On Liability matters as much as its absence.
        """
        return worst(
            [self.severity(category)]
            + [r.severity for r in (*self.required, *self.risky) if r.category == category]
            + [c.severity for c in self.value_checks if c.category == category]
        )
