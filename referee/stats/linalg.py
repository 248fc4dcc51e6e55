"""Small dense linear algebra for the rating fit (a few hundred players at most).

Gauss-Jordan elimination with partial pivoting, in plain Python: the matrices are small, and a
numerical library is not worth a dependency here.
"""

from __future__ import annotations

Matrix = list[list[float]]


def solve(a: Matrix, b: list[float]) -> list[float]:
    """x with a x = b, for a square non-singular `a`."""
    columns = _eliminate(a, [[v] for v in b])
    return [row[0] for row in columns]


def inverse(a: Matrix) -> Matrix:
    """The inverse of a square non-singular matrix."""
    n = len(a)
    return _eliminate(a, [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)])


def _eliminate(a: Matrix, rhs: Matrix) -> Matrix:
    n = len(a)
    m = [list(map(float, a[i])) + list(rhs[i]) for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        if abs(m[pivot][col]) < 1e-300:
            raise ZeroDivisionError("singular matrix")
        m[col], m[pivot] = m[pivot], m[col]
        head = m[col][col]
        m[col] = [v / head for v in m[col]]
        for r in range(n):
            if r != col and m[r][col] != 0.0:
                factor = m[r][col]
                m[r] = [vr - factor * vc for vr, vc in zip(m[r], m[col], strict=True)]
    return [row[n:] for row in m]
