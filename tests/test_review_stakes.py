"""A contract's business stakes in the queue: tiers and values weigh its items' priority."""
from __future__ import annotations

import math
from datetime import date
from pathlib import Path

import pytest

from pipelines.review.budget import Budget, ContractStakes, contract_stakes, priority, reranked
from pipelines.review.register import RegisterError, read_register
from pipelines.settings import Settings

TIERS = Settings().review_tiers


def test_tier_and_value_multiply_the_priority_and_show_on_the_item() -> None:
    plain, _ = priority("high", 0.4, Budget())
    stakes = contract_stakes("critical", 1_000_000, TIERS, 100_000)
    assert stakes.weight == 8.0  # tier 4 x (1 + log10(10))
    weighted, parts = priority("high", 0.4, Budget(contract=stakes))
    assert math.isclose(weighted, plain * 8.0, rel_tol=1e-3)
    assert parts["tier"] == "critical" and parts["value"] == 1_000_000 and parts["contract_weight"] == 8.0
    assert contract_stakes(None, 5_000, TIERS, 100_000).weight == 1.0  # a small contract is not pushed down
    assert contract_stakes(None, None, TIERS, 100_000) == ContractStakes()
    with pytest.raises(ValueError, match="unknown tier 'gold'"):
        contract_stakes("gold", None, TIERS, 100_000)


def test_an_item_keeps_its_contract_weight_as_it_ages() -> None:
    budget = Budget(due=date(2026, 12, 31), as_of=date(2026, 12, 1), contract=contract_stakes("important", None,
                                                                                              TIERS, 100_000))
    first, parts = priority("medium", 0.5, budget)
    later, _ = reranked(parts, date(2026, 12, 31))
    assert math.isclose(later / first, 2.0 / parts["urgency"], rel_tol=1e-3)
    assert later == priority("medium", 0.5, Budget(due=date(2026, 12, 31), as_of=date(2026, 12, 31),
                                                   contract=budget.contract))[0]


def test_a_register_is_read_from_the_teams_spreadsheet(tmp_path: Path) -> None:
    path = tmp_path / "register.csv"
    path.write_bytes("\ufeffFile,Counterparty,Tier,Value\nsupply.pdf,Ac\u00e9 SA,critical,\"\u20ac1,200,000\"\n"
                     "nda.pdf,Bob,,\nlicence.pdf,Zed,important,\n".encode("utf-8"))
    assert read_register(path, TIERS) == {"supply.pdf": {"tier": "critical", "value": 1_200_000.0},
                                          "licence.pdf": {"tier": "important"}}
    path.write_bytes("filename;x\n".encode())
    with pytest.raises(RegisterError, match="no `file`"):
        read_register(path, TIERS)
    path.write_text("file,tier\na.pdf,gold\n")
    with pytest.raises(RegisterError, match="row 2: tier 'gold'"):
        read_register(path, TIERS)
    path.write_text("file,value\na.pdf,lots\n")
    with pytest.raises(RegisterError, match="row 2: value 'lots'"):
        read_register(path, TIERS)


def test_an_audit_with_a_register_ranks_its_valuable_contract_first(sample_dir: Path, embedded_env: dict[str, str],
                                                                     tmp_path: Path) -> None:
    from conftest import TEXT_SAMPLES, run_cli, some_samples, sqlite_url
    from storage import schema
    from storage.database import session_scope

    folder = some_samples(sample_dir, tmp_path / "in", TEXT_SAMPLES)
    register = tmp_path / "register.csv"
    register.write_text("file,tier,value\ndistribution-brightwater-northwind.pdf,critical,2000000\n")
    bad = run_cli(["audit", str(folder), "--tier", "gold"], embedded_env)
    assert bad.returncode == 2 and "'gold' is not a tier" in bad.stderr
    result = run_cli(["audit", str(folder), "--out", str(tmp_path / "out"), "--batch-id", "st",
                      "--tier", "standard", "--register", str(register)], embedded_env)
    assert result.returncode == 0, result.stdout + result.stderr
    url = sqlite_url(embedded_env)
    with session_scope(url, write=False) as session:
        items = session.query(schema.ReviewItem, schema.Document.filename).join(schema.Document).all()
    weights = {filename: item.evidence["priority_parts"].get("contract_weight") for item, filename in items}
    assert math.isclose(weights.pop("distribution-brightwater-northwind.pdf"), 4 * (1 + math.log10(20)), rel_tol=1e-3)
    assert weights and set(weights.values()) == {1.0}
    for item, filename in items:
        parts = item.evidence["priority_parts"]
        # a value a coming deadline depends on is urgent by that deadline (pipelines/review/value_items.py)
        expected = parts["weight"] * parts["p_wrong"] * parts["contract_weight"] * parts.get("urgency", 1.0)
        assert math.isclose(item.priority, expected, rel_tol=1e-3, abs_tol=1e-4)
        assert parts["tier"] == ("critical" if filename.startswith("distribution-") else "standard")
