"""Teaching a clause type: its examples, and a draw of segments from audited contracts as the
clause it is not, trained into a new version of its add-on (models/addon_training.py).

The service between the rows (storage/clause_types.py) and the model (models/); the CLI calls it.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipelines.clause_types.examples import MIN_EXAMPLES, decision_quotes
from pipelines.clause_types.names import ClauseTypeError
from pipelines.settings import Settings
from storage import clause_types as store
from storage.database import session_scope

POOL_PER_EXAMPLE = 60
"""Negatives drawn per example: about one clause among sixty other segments, as in a contract."""
MIN_POOL, MAX_POOL = 300, 3000
MIN_POOL_CONTRACTS = 3
SHIPPED_ADDONS = Path(__file__).resolve().parents[2] / "models" / "checkpoint" / "types"
"""The shipped types' versions, trained for the shipped checkpoint (ops/benchmarks/taught_types.py ship)."""


@dataclass(frozen=True)
class Taught:
    name: str
    number: int
    version: str
    metrics: dict


def fold_decisions(settings: Settings, name: str, by: str) -> store.Added:
    """Reviewers' standing decisions on the type's items (and on items corrected to it) become
    its examples and counter-examples (examples.decision_quotes); repeatable."""
    from sqlalchemy import select

    from storage import repository, schema

    with session_scope(settings.effective_database_url) as session:
        clause_type = store.get_type(session, name)
        trails = repository.item_trails(session)
        documents = {row["document_id"] for trail in trails.values() for row in trail}
        paths = dict(session.execute(select(schema.Document.id, schema.Document.path)
                                     .where(schema.Document.id.in_(documents))).all())
        quotes = decision_quotes(clause_type.name, trails.values(), paths)
        return store.add_examples(session, clause_type, quotes, by, from_decisions=True)


def teach(settings: Settings, name: str, by: str, log: Callable[[str], None]) -> Taught:
    """Train the type named `name` on its examples; store and return the new version."""
    url = settings.effective_database_url
    with session_scope(url, write=False) as session:
        clause_type = store.get_type(session, name)
        lines = store.examples_of(session, clause_type)
        positives = sum(line.label for line in lines)
        if positives < MIN_EXAMPLES:
            raise ClauseTypeError(f"{clause_type.name} has {positives} example(s); training needs at least "
                                  f"{MIN_EXAMPLES} (and 25 to be trusted): add more with `clausemill clauses add`")
        size = min(MAX_POOL, max(MIN_POOL, POOL_PER_EXAMPLE * positives))
        seed = int(hashlib.sha256(clause_type.slug.encode()).hexdigest()[:8], 16)
        pool = store.negative_pool(session, clause_type, size, seed)
        number = store.next_version_number(session, clause_type)
        type_name, slug = clause_type.name, clause_type.slug
    contracts = len({segment.document_id for segment in pool})
    if len(pool) < MIN_POOL or contracts < MIN_POOL_CONTRACTS:
        raise ClauseTypeError(f"training draws the clause's opposite from audited contracts, and there are "
                              f"{len(pool)} segments in {contracts} contract(s): audit a few contracts first "
                              f"(at least {MIN_POOL} segments in {MIN_POOL_CONTRACTS} contracts)")
    from models.addon_training import AddonRows, train_addon
    from models.addons import save_addon
    from models.checkpoint import DEFAULT_CHECKPOINT, load_checkpoint

    checkpoint = load_checkpoint(settings.model_checkpoint or DEFAULT_CHECKPOINT)
    examples = AddonRows([line.text for line in lines], np.array([line.label for line in lines], dtype=bool),
                         np.arange(len(lines)))
    negatives = AddonRows([segment.text for segment in pool], np.zeros(len(pool), dtype=bool),
                          np.array([segment.document_id for segment in pool]))
    log(f"{type_name}: {positives} examples, {len(lines) - positives} counter-examples, {len(pool)} segments "
        f"of {contracts} audited contracts as negatives")
    trained = train_addon(checkpoint, examples, negatives, name=type_name, slug=slug, number=number,
                          cache=settings.data_dir / "clause_types" / "cache", log=log)
    addon = trained.addon
    with session_scope(url) as session:
        store.add_version(session, store.get_type(session, type_name), number, addon.version, checkpoint.version,
                          save_addon(addon), addon.metrics, by)
    return Taught(type_name, number, addon.version, addon.metrics)


def install_shipped(settings: Settings, cuad: Path, by: str, log: Callable[[str], None]) -> None:
    """Install the clause types clausemill ships (pipelines/clause_types/shipped.py): each type,
    its examples read from CUAD's folder `cuad` when it is there, and its version trained for
    the shipped checkpoint (models/checkpoint/types/).  Repeatable: what is there stays."""
    from models.addons import load_addon
    from models.checkpoint_version import DEFAULT_CHECKPOINT, checkpoint_version
    from pipelines.clause_types.examples import Quote
    from pipelines.clause_types.shipped import shipped_types

    base = checkpoint_version(settings.model_checkpoint or DEFAULT_CHECKPOINT)
    for shipped in shipped_types():
        refs = [(r, True) for r in shipped.examples] + [(r, False) for r in shipped.counter_examples]
        quotes = [Quote(text, label, "shipped", f"cuad:{ref.file}", ref.start, ref.end)
                  for ref, label in refs if (text := ref.read(cuad)) is not None]
        addon_file = SHIPPED_ADDONS / f"{shipped.slug}.safetensors"
        with session_scope(settings.effective_database_url) as session:
            clause_type, created = store.define_type(session, shipped.name, shipped.description, by)
            added = store.add_examples(session, clause_type, quotes, by)
            line = f"{shipped.name}: {'installed' if created else 'already there'}; {added.added} example(s) added"
            if len(quotes) < len(refs):
                line += f" ({len(refs) - len(quotes)} not read: CUAD is not at {cuad}, so retraining it needs them there)"
            if not addon_file.is_file():
                line += "; no trained version ships with it: `clausemill clauses train` it"
            else:
                data = addon_file.read_bytes()
                try:
                    addon = load_addon(data, base)
                except ValueError:
                    line += "; its shipped version was trained for another checkpoint: `clausemill clauses train` it"
                else:
                    if store.version_weights(session, addon.version) is None:
                        store.add_version(session, clause_type, store.next_version_number(session, clause_type),
                                          addon.version, base, data, addon.metrics, by)
                        line += f"; version {addon.version} installed"
        log(line)
