"""The nearest-neighbour lookup (models/neighbours.py): votes, the combination, and old checkpoints."""
from __future__ import annotations

import torch

from models.neighbours import NeighbourIndex, combined_logits, fit_combination


def _index(pooled: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor, k: int = 2) -> NeighbourIndex:
    index = NeighbourIndex(pooled.shape[1], labels.shape[1], k=k, temperature=0.05)
    index.build(pooled, labels, weights, dims=pooled.shape[1])
    return index


def test_a_segment_like_a_labelled_key_votes_for_its_category() -> None:
    generator = torch.Generator().manual_seed(0)
    centres = torch.randn(3, 16, generator=generator) * 5
    pooled = torch.cat([centres[i] + 0.1 * torch.randn(10, 16, generator=generator) for i in range(3)])
    labels = torch.zeros(30, 3, dtype=torch.bool)
    for i in range(3):
        labels[10 * i:10 * (i + 1), i] = True
    index = _index(pooled, labels, torch.ones(30), k=5)
    assert index.keys.dtype == torch.int8 and index.rows == 30  # stored small
    votes = index.votes(centres + 0.1 * torch.randn(3, 16, generator=generator))
    assert torch.equal(votes.argmax(1), torch.arange(3))
    assert (votes.diagonal() > 0.99).all()


def test_weights_count_a_kept_negative_for_the_ones_it_stands_for() -> None:
    pooled = torch.tensor([[1.0, 0.0], [1.0, 0.05], [-1.0, 0.0]])
    labels = torch.tensor([[True], [False], [False]])
    query = torch.tensor([[1.0, 0.02]])
    even = _index(pooled, labels, torch.ones(3)).votes(query)
    sampled = _index(pooled, labels, torch.tensor([1.0, 9.0, 1.0])).votes(query)
    assert 0.3 < float(even) < 0.7 and float(sampled) < 0.15


def test_the_combination_starts_as_the_model_alone_and_an_empty_index_changes_nothing() -> None:
    probability = torch.tensor([[0.1, 0.8], [0.6, 0.02]])
    index = NeighbourIndex(4, 2, k=16, temperature=0.05)
    assert index.rows == 0 and torch.equal(index.refine(probability, torch.randn(2, 4)), probability)
    identity = combined_logits(probability, torch.full_like(probability, 0.5), index.combination)
    assert torch.allclose(torch.sigmoid(identity), probability, atol=1e-6)


def test_the_combination_learns_to_trust_a_vote_that_knows_the_label() -> None:
    generator = torch.Generator().manual_seed(1)
    labels = torch.rand(2000, 2, generator=generator) < 0.2
    model = torch.full((2000, 2), 0.2)  # the model knows nothing
    vote = torch.where(labels, torch.tensor(0.9), torch.tensor(0.05))
    vote[:, 1] = 0.3  # for the second category, neither does the vote
    combination = fit_combination(model, vote, labels, torch.ones(2000))
    assert combination[0, 1] > 1.0 and abs(float(combination[1, 1])) < 0.1
