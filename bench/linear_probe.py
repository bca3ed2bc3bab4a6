"""A linear probe: multinomial logistic regression in torch, for what a vector tells about a label.

One nn.Linear on standardised features (mean and spread of the training features only), cross-entropy plus an L2
penalty on the weights, minimised by full-batch LBFGS for a fixed number of iterations from a seeded start. The
penalty is chosen from a short list on a slice of the training data; the test data is scored once. Used by
bench/abstraction_probe.py; model-free, so a test can hold it to synthetic data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

WEIGHT_DECAYS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)  # the L2 penalties tried, on a validation slice of the training texts


@dataclass(frozen=True)
class Probe:
    """A multinomial logistic regression on standardised features."""

    mean: torch.Tensor  # (d,) the training features' mean
    scale: torch.Tensor  # (d,) their standard deviation (1 where a feature is constant)
    linear: nn.Linear  # d → n_classes

    @torch.no_grad()
    def predict(self, x: torch.Tensor) -> torch.Tensor:
        return self.linear((x - self.mean) / self.scale).argmax(dim=-1)


def fit_probe(
    x: torch.Tensor, y: torch.Tensor, n_classes: int, *, weight_decay: float = 1e-2, steps: int = 100, seed: int = 0
) -> Probe:
    """Cross-entropy + weight_decay/2 · |W|² minimised by at most `steps` full-batch LBFGS iterations."""
    torch.manual_seed(seed)
    mean, scale = x.mean(dim=0), x.std(dim=0)
    scale = torch.where(scale > 1e-8, scale, torch.ones_like(scale))
    z = (x - mean) / scale
    linear = nn.Linear(x.shape[1], n_classes)
    optimizer = torch.optim.LBFGS(linear.parameters(), lr=1.0, max_iter=steps, line_search_fn="strong_wolfe")

    def closure() -> torch.Tensor:
        optimizer.zero_grad()
        loss = F.cross_entropy(linear(z), y) + weight_decay / 2 * linear.weight.pow(2).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return Probe(mean, scale, linear)


@dataclass(frozen=True)
class Score:
    """A probe's result on the held-out texts."""

    predicted: torch.Tensor  # (n_test,) the class it gives each held-out text
    accuracy: float
    balanced: float  # the mean over classes of the share of each class's texts found
    weight_decay: float  # the L2 penalty chosen


def accuracies(predicted: torch.Tensor, y: torch.Tensor, n_classes: int) -> tuple[float, float]:
    """(accuracy, balanced accuracy)."""
    recalls = [(predicted[y == c] == c).float().mean().item() for c in range(n_classes) if (y == c).any()]
    return (predicted == y).float().mean().item(), sum(recalls) / len(recalls)


def probe_score(
    x_train: torch.Tensor, y_train: torch.Tensor, x_test: torch.Tensor, y_test: torch.Tensor, n_classes: int, steps: int
) -> Score:
    """The penalty is picked (by balanced accuracy) on every fifth training text held aside, then the probe is
    refitted on all of them and scored once on the test texts."""
    aside = torch.arange(len(y_train)) % 5 == 4

    def on_aside(wd: float) -> float:
        probe = fit_probe(x_train[~aside], y_train[~aside], n_classes, weight_decay=wd, steps=steps)
        return accuracies(probe.predict(x_train[aside]), y_train[aside], n_classes)[1]

    best = max(WEIGHT_DECAYS, key=on_aside)
    predicted = fit_probe(x_train, y_train, n_classes, weight_decay=best, steps=steps).predict(x_test)
    return Score(predicted, *accuracies(predicted, y_test, n_classes), best)


def paired(a: Score, b: Score, y: torch.Tensor) -> dict[str, float]:
    """McNemar's exact test of two probes on the same held-out texts: how many texts only `a` gets right, how many
    only `b`, and the two-sided p-value that they are equally good."""
    right_a, right_b = a.predicted == y, b.predicted == y
    only_a, only_b = int((right_a & ~right_b).sum()), int((right_b & ~right_a).sum())
    n = only_a + only_b
    tail = sum(math.comb(n, k) for k in range(min(only_a, only_b) + 1)) / 2**n if n else 1.0
    return {"only_this": only_a, "only_other": only_b, "p": round(min(1.0, 2 * tail), 4)}
