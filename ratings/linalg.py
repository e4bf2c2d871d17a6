"""Small dense linear algebra on lists: what the rating fits need (the information matrix
is symmetric positive definite). Hand-written, standard library only."""

from __future__ import annotations

import math
from collections.abc import Sequence

Matrix = list[list[float]]
Vector = list[float]


def diagonal(values: Sequence[float]) -> Matrix:
    """The square matrix with `values` on its diagonal."""
    return [[value if i == j else 0.0 for j in range(len(values))]
            for i, value in enumerate(values)]


def sandwich(bread: Matrix, meat: Matrix) -> Matrix:
    """bread · meat · bread (bread symmetric)."""
    return product(product(bread, meat), bread)


def product(a: Matrix, b: Matrix) -> Matrix:
    """a · b."""
    n = len(b[0]) if b else 0
    return [[sum(row[k] * b[k][j] for k in range(len(b))) for j in range(n)] for row in a]


def cholesky(a: Matrix) -> Matrix:
    """The lower triangular L with L Lᵀ = a (a symmetric positive definite)."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(max(s, 1e-300)) if i == j else s / low[j][j]
    return low


def cholesky_solve(low: Matrix, b: Sequence[float]) -> list[float]:
    """x with L Lᵀ x = b, L = `low` from `cholesky`."""
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def solve(a: Matrix, b: Sequence[float]) -> list[float]:
    """x with a x = b (a symmetric positive definite)."""
    return cholesky_solve(cholesky(a), b)


def inverse(a: Matrix) -> Matrix:
    """a⁻¹ (a symmetric positive definite)."""
    low = cholesky(a)
    n = len(a)
    columns = [cholesky_solve(low, [float(i == j) for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]
