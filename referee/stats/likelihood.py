"""The distribution of scores of largest likelihood under a constraint, for counts observed on a
few score values (a pair's 0, 1/4, 1/2, 3/4, 1 per game, or a game's 0, 1/2, 1).

Everything the match statistics say comes from one function of a score s, the profile
log-likelihood: the largest log-likelihood of the observed counts c_i over the distributions p
on the score values x_i whose mean is s,
    l(s) = max { sum_i c_i ln p_i : sum_i p_i = 1, sum_i p_i x_i = s, p_i >= 0 }.
The GSPRT's log-likelihood ratio is l(s1) - l(s0), the 95% interval is the set of s with
2 (l(s_hat) - l(s)) <= 3.84, and the LOS reads the same difference at s = 1/2.

The maximum (M. Van den Bergh, "Support of the MLE of a multinomial with a given expectation",
cantate.be/Fishtest/support_MLE_multinomial.pdf, Proposition 1.1) is p_i = f_i / (1 + theta d_i)
with f the observed frequencies, d_i = x_i - s, and theta the root of
    g(theta) = sum_i f_i d_i / (1 + theta d_i) = 0
between -1/max(d) and -1/min(d), where g falls. A value never observed keeps p_i = 0, except
that the largest (smallest) value may take the mass that is missing when g has no root there:
the likelihood is then largest with theta at that end (a sample of won pairs only, say, is
best explained at a mean s < 1 by wins and some losses). `mle_with_t_value` is the normalised
Elo's variant (the same paper series, "Normalized Elo practical", section 4.1).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

_STEPS = 2000  # bisection steps at most (never reached: the interval stops shrinking first)
_TOLERANCE = 4e-16  # relative width at which a bisection stops


def _g(observed: Sequence[tuple[float, float]], theta: float) -> float:
    """g(theta) = sum f d / (1 + theta d) over the observed (frequency, d) cells."""
    return sum(f * d / (1.0 + theta * d) for f, d in observed)


def _root(observed: Sequence[tuple[float, float]], low: float, high: float) -> float:
    """The root of the falling g strictly between low and high, by bisection down to the
    precision of a float."""
    for _ in range(_STEPS):
        middle = (low + high) / 2.0
        if middle in (low, high) or high - low <= _TOLERANCE * max(1.0, abs(middle)):
            return middle
        total = _g(observed, middle)
        if total > 0.0:
            low = middle
        elif total < 0.0:
            high = middle
        else:
            return middle
    return (low + high) / 2.0


def mle_zero_mean(weights: Sequence[float], phi: Sequence[float]) -> list[float]:
    """The probabilities p of largest likelihood sum_i w_i ln p_i among those with
    sum_i p_i phi_i = 0 (min(phi) < 0 < max(phi); weights >= 0, not all 0)."""
    total = sum(weights)
    observed = [(w / total, d) for w, d in zip(weights, phi, strict=True) if w > 0.0]
    low, high = -1.0 / max(phi), -1.0 / min(phi)
    spare: int | None = None  # the extreme cell that takes the missing mass, if any
    top = [i for i, d in enumerate(phi) if d == max(phi)]
    bottom = [i for i, d in enumerate(phi) if d == min(phi)]
    if all(weights[i] == 0.0 for i in top) and _g(observed, low) <= 0.0:
        theta, spare = low, top[0]
    elif all(weights[i] == 0.0 for i in bottom) and _g(observed, high) >= 0.0:
        theta, spare = high, bottom[0]
    else:
        theta = _root(observed, low, high)
    p = [
        w / total / (1.0 + theta * d) if w > 0.0 else 0.0 for w, d in zip(weights, phi, strict=True)
    ]
    if spare is not None:
        p[spare] = max(0.0, 1.0 - sum(p))
    return p


def mle_with_mean(weights: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """The distribution on `values` of largest likelihood for `weights` among those with mean
    `s`; at or beyond the smallest (largest) value, all the mass on it."""
    if s <= min(values):
        return [1.0 if v == min(values) else 0.0 for v in values]
    if s >= max(values):
        return [1.0 if v == max(values) else 0.0 for v in values]
    return mle_zero_mean(weights, [v - s for v in values])


def log_likelihood(counts: Sequence[float], p: Sequence[float]) -> float:
    """sum_i c_i ln p_i (a cell never observed adds nothing; -inf if an observed one has p 0)."""
    total = 0.0
    for c, q in zip(counts, p, strict=True):
        if c > 0.0:
            if q <= 0.0:
                return -math.inf
            total += c * math.log(q)
    return total


def profile(counts: Sequence[float], values: Sequence[float], s: float) -> float:
    """l(s): the largest log-likelihood of the counts among the distributions with mean s."""
    return log_likelihood(counts, mle_with_mean(counts, values, s))


def largest(counts: Sequence[float]) -> float:
    """The log-likelihood at the observed frequencies (the largest of all): sum c ln(c / n)."""
    n = sum(counts)
    return sum(c * math.log(c / n) for c in counts if c > 0.0)


def mean_and_variance(weights: Sequence[float], values: Sequence[float]) -> tuple[float, float]:
    total = sum(weights)
    mean = sum(w * v for w, v in zip(weights, values, strict=True)) / total
    variance = sum(w * (v - mean) ** 2 for w, v in zip(weights, values, strict=True)) / total
    return mean, variance


def mle_with_t_value(
    weights: Sequence[float], values: Sequence[float], reference: float, t: float
) -> list[float]:
    """The distribution of largest likelihood among those whose t-value (mean - reference) /
    standard deviation is `t` (every weight > 0). Fixed point of the mean-type problem with
    phi_i = x_i - reference - t sigma (1 + ((x_i - mu) / sigma)^2) / 2, mu and sigma those of
    the previous iterate, from the uniform distribution (Van den Bergh, "Normalized Elo
    practical", section 4.1)."""
    p = [1.0 / len(values)] * len(values)
    for _ in range(100):
        mu, variance = mean_and_variance(p, values)
        sigma = math.sqrt(variance)
        phi = [x - reference - t * sigma * (1.0 + ((x - mu) / sigma) ** 2) / 2.0 for x in values]
        new = mle_zero_mean(weights, phi)
        change = max(abs(a - b) for a, b in zip(new, p, strict=True))
        p = new
        if change < 1e-13:
            break
    return p
