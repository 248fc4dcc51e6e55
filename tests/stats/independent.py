"""An independent computation of the match statistics, for the tests to check the production
code against, written from the published definitions (fishtest's `LLR_logistic` and
`LLR_normalized` with their 0.001 regularisation, Wilks' likelihood-ratio interval) and not
from the production code:

- the log-likelihood ratios by direct numerical maximisation over the distribution itself
  (scipy's SLSQP on p = softmax(z) under the mean or t-value constraint: no secular equation);
- the interval and the LOS, whose counts may have empty cells (the maximum then lies on the
  simplex's edge, where SLSQP is unreliable), through the other closed form of the same
  maximum: the convex dual min over theta of sum c ln(c/N) - sum c ln(1 + theta (x - s)),
  theta kept where every 1 + theta (x_j - s) >= 0, minimised by scipy's bounded Brent method;
  its level crossings by Brent's root finder; quantiles from scipy.stats.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy import optimize, stats

LEVEL = 0.95
CHI2 = float(stats.chi2.ppf(LEVEL, df=1))
NT = 800 / np.log(10)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return np.asarray(e / e.sum())


def _maximise(
    counts: Sequence[float],
    constraint: Callable[[np.ndarray], tuple[float, np.ndarray]],
    start: np.ndarray,
) -> float:
    """max sum c ln p (every count positive) over the probability vectors p = softmax(z) with
    constraint(p) = 0; `constraint` gives its value and its gradient in p. SLSQP is started
    from `start`, then, if it fails there, from the observed frequencies and from the uniform
    distribution, and last by the trust-region method on p itself."""
    c = np.asarray(counts, dtype=float)
    assert np.all(c > 0)
    found = []
    for begin in (start, c / c.sum(), np.full(len(c), 1.0 / len(c))):
        try:
            found.append(_maximise_inside(c, constraint, begin))
        except AssertionError:
            continue
        break
    return max(found) if found else _maximise_trust_region(c, constraint)


def _maximise_trust_region(
    c: np.ndarray, constraint: Callable[[np.ndarray], tuple[float, np.ndarray]]
) -> float:
    conditions = optimize.NonlinearConstraint(
        lambda p: [float(np.sum(p) - 1.0), constraint(p)[0]], 0.0, 0.0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its quasi-Newton updates warn on flat steps
        result = optimize.minimize(
            lambda p: -float(np.sum(c * np.log(np.maximum(p, 1e-300)))),
            np.full(len(c), 1.0 / len(c)),
            jac=lambda p: -c / np.maximum(p, 1e-300),
            method="trust-constr",
            constraints=[conditions],
            bounds=[(1e-15, 1.0)] * len(c),
            options={"xtol": 1e-15, "gtol": 1e-13, "maxiter": 20000},
        )
    assert result.status in (1, 2), result.message
    _check(result, float(np.sum(result.x) - 1.0), constraint(result.x)[0])
    return -float(result.fun)


def _maximise_inside(
    c: np.ndarray, constraint: Callable[[np.ndarray], tuple[float, np.ndarray]], start: np.ndarray
) -> float:
    total = c.sum()

    def minus(z: np.ndarray) -> tuple[float, np.ndarray]:
        logp = z - z.max() - np.log(np.sum(np.exp(z - z.max())))
        return float(-np.dot(c, logp)), -(c - total * np.exp(logp))

    def value(z: np.ndarray) -> float:
        return constraint(_softmax(z))[0]

    def jacobian(z: np.ndarray) -> np.ndarray:
        p = _softmax(z)
        g = constraint(p)[1]
        return np.asarray(p * (g - np.dot(p, g)))  # the chain rule through softmax

    result = optimize.minimize(
        minus,
        np.log(np.maximum(start, 1e-12)),
        jac=True,
        method="SLSQP",
        constraints=[{"type": "eq", "fun": value, "jac": jacobian}],
        options={"ftol": 1e-15, "maxiter": 5000},
    )
    _check(result, value(result.x), 0.0)
    return -float(result.fun)


def _check(result: optimize.OptimizeResult, *residuals: float) -> None:
    # Status 8 (no ascent direction left for the line search) is SLSQP at the limit of its
    # precision: accepted when the constraints hold.
    assert result.success or result.status == 8, result.message
    assert all(abs(r) < 1e-9 for r in residuals), residuals


def _start(values: Sequence[float], s: float) -> np.ndarray:
    """A distribution with mean s and every cell positive: a mix of the uniform one and the
    two-point one on the extremes."""
    n = len(values)
    uniform = np.full(n, 1.0 / n)
    mean = float(np.dot(uniform, values))
    target = min(values) if s < mean else max(values)
    extreme = np.zeros(n)
    extreme[list(values).index(target)] = 1.0
    weight = (s - mean) / (target - mean) if target != mean else 0.0
    return np.asarray((1 - weight) * uniform + weight * extreme)


def profile(counts: Sequence[float], values: Sequence[float], s: float) -> float:
    """max sum c ln p over the distributions on `values` with mean s."""
    x = np.asarray(values, dtype=float)

    def mean(p: np.ndarray) -> tuple[float, np.ndarray]:
        return float(np.dot(p, x) - s), x

    return _maximise(counts, mean, _start(values, s))


def profile_t(counts: Sequence[float], values: Sequence[float], t: float) -> float:
    """max sum c ln p over the distributions whose (mean - 1/2) / sd is t."""
    x = np.asarray(values, dtype=float)

    def t_value(p: np.ndarray) -> tuple[float, np.ndarray]:
        mean = float(np.dot(p, x))
        sd = float(np.sqrt(max(np.dot(p, (x - mean) ** 2), 1e-300)))
        # d mean / dp = x; d var / dp = (x - mean)^2 (the mean's own change cancels)
        return mean - 0.5 - t * sd, x - t * (x - mean) ** 2 / (2 * sd)

    return _maximise(counts, t_value, np.full(len(values), 1.0 / len(values)))


def dual_profile(counts: Sequence[float], values: Sequence[float], s: float) -> float:
    """The same maximum as `profile`, any counts, through its convex dual (module docstring)."""
    c = np.asarray(counts, dtype=float)
    d = np.asarray(values, dtype=float) - s
    used = c > 0
    constant = float(np.sum(c[used] * np.log(c[used] / c.sum())))

    def dual(theta: float) -> float:
        inside = 1 + theta * d[used]
        if np.any(inside <= 0):
            return np.inf
        return constant - float(np.sum(c[used] * np.log(inside)))

    low, high = -1 / d.max(), -1 / d.min()
    found = optimize.minimize_scalar(
        dual, bounds=(low, high), method="bounded", options={"xatol": 1e-14}
    )
    # The minimum may be at an end (a value never observed takes mass there): D is convex.
    return min(float(found.fun), dual(low), dual(high))


def regularised(counts: Sequence[int]) -> list[float]:
    return [float(c) if c else 1e-3 for c in counts]


def logistic_score(elo: float) -> float:
    return float(1 / (1 + 10 ** (-elo / 400)))


def llr_logistic(counts: Sequence[int], values: Sequence[float], elo0: float, elo1: float) -> float:
    r = regularised(counts)
    return profile(r, values, logistic_score(elo1)) - profile(r, values, logistic_score(elo0))


def llr_normalized(
    counts: Sequence[int], values: Sequence[float], nelo0: float, nelo1: float
) -> float:
    r = regularised(counts)
    scale = np.sqrt(2) if len(values) == 5 else 1.0
    t0, t1 = (nelo / NT * scale for nelo in (nelo0, nelo1))
    return profile_t(r, values, t1) - profile_t(r, values, t0)


def top(counts: Sequence[float]) -> float:
    c = np.asarray([x for x in counts if x > 0], dtype=float)
    return float(np.sum(c * np.log(c / c.sum())))


def interval(counts: Sequence[int], values: Sequence[float]) -> tuple[float, float]:
    """Where 2 (l(s_hat) - l(s)) crosses the chi-square(1) 95% point, on each side of s_hat."""
    c = [float(v) for v in counts]
    mean = float(np.dot(c, values) / sum(c))
    best = top(c)

    def excess(s: float) -> float:
        return 2 * (best - dual_profile(c, values, s)) - CHI2

    return _crossing(excess, mean, -1.0), _crossing(excess, mean, 1.0)


def _crossing(excess: Callable[[float], float], mean: float, direction: float) -> float:
    """The root of `excess` (negative at `mean`) on one side, bracketed by growing steps."""
    step = 0.01
    inner = mean
    outer = mean + direction * step
    while excess(outer) < 0:
        inner, step = outer, 2 * step
        outer = min(max(mean + direction * step, 1e-9), 1 - 1e-9)
    low, high = sorted((inner, outer))
    return float(optimize.brentq(excess, low, high, xtol=1e-15, rtol=1e-15))


def los(counts: Sequence[int], values: Sequence[float]) -> float:
    c = [float(v) for v in counts]
    mean = float(np.dot(c, values) / sum(c))
    statistic = max(0.0, 2 * (top(c) - dual_profile(c, values, 0.5)))
    return float(stats.norm.cdf(np.sign(mean - 0.5) * np.sqrt(statistic)))


def normal_interval(counts: Sequence[int], values: Sequence[float]) -> tuple[float, float]:
    """fishtest's and fastchess's interval: mean +- z sd / sqrt(N)."""
    c = np.asarray(counts, dtype=float)
    x = np.asarray(values, dtype=float)
    n = c.sum()
    mean = float(np.dot(c, x) / n)
    sd = float(np.sqrt(np.dot(c, (x - mean) ** 2) / n))
    z = float(stats.norm.ppf(0.5 + LEVEL / 2))
    return mean - z * sd / np.sqrt(n), mean + z * sd / np.sqrt(n)
