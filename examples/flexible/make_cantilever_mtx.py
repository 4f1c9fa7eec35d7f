"""Writes mass.mtx and stiffness.mtx: a steel cantilever (1 m, 10 mm x 10 mm) of 4 planar
Euler-Bernoulli frame elements, clamped node removed, as a finite-element program exports
them (Matrix Market, coordinate, symmetric: the lower triangle). Used by cantilever_mtx.json
(docs/flexible.md). Run: /usr/bin/python3 make_cantilever_mtx.py"""
import numpy as np

E, A, I, rho, L, ne = 2.1e11, 1e-4, 1e-8 / 12, 7850.0, 1.0, 4
l = L / ne
n = 3 * (ne + 1)
M = np.zeros((n, n))
K = np.zeros((n, n))
ka = E * A / l * np.array([[1, -1], [-1, 1]])
ma = rho * A * l / 6 * np.array([[2, 1], [1, 2]])
kb = E * I / l**3 * np.array([[12, 6*l, -12, 6*l], [6*l, 4*l*l, -6*l, 2*l*l],
                              [-12, -6*l, 12, -6*l], [6*l, 2*l*l, -6*l, 4*l*l]])
mb = rho * A * l / 420 * np.array([[156, 22*l, 54, -13*l], [22*l, 4*l*l, 13*l, -3*l*l],
                                   [54, 13*l, 156, -22*l], [-13*l, -3*l*l, -22*l, 4*l*l]])
for e in range(ne):
    ax = [3*e, 3*e + 3]
    bd = [3*e + 1, 3*e + 2, 3*e + 4, 3*e + 5]
    K[np.ix_(ax, ax)] += ka
    M[np.ix_(ax, ax)] += ma
    K[np.ix_(bd, bd)] += kb
    M[np.ix_(bd, bd)] += mb
keep = list(range(3, n))  # node 0 clamped: its three coordinates removed


def write(name, A):
    A = A[np.ix_(keep, keep)]
    rows = [(i + 1, j + 1, A[i, j]) for j in range(len(A)) for i in range(j, len(A)) if A[i, j] != 0]
    with open(name, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write("% cantilever, 4 planar Euler-Bernoulli elements, node 0 clamped; SI units\n")
        f.write(f"{len(A)} {len(A)} {len(rows)}\n")
        for i, j, v in rows:
            f.write(f"{i} {j} {v:.17g}\n")


write("mass.mtx", M)
write("stiffness.mtx", K)
