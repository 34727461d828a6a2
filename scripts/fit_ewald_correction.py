#!/usr/bin/python3
"""Fits the rational approximations the Ewald cluster kernels use (run once; prints
C++ constants for engine/src/nonbonded/simd/ewald_correction.h).

With z = beta r and w = z^2, the real-space Ewald pair terms are

  potential  qq (k/r - beta G(w)),      G(w) = erf(z) / z
  force/r    qq (k/r^3 - beta^3 H(w)),  H(w) = (erf(z) - 2 z exp(-z^2)/sqrt(pi)) / z^3

(k = 1 for interacting, 0 for excluded pairs). Both G and H are smooth even
functions of z, so rational functions of w fit them well on [0, W_MAX] without
exp, erf or a square root: a few FMAs and one reciprocal per pair. We fit
P(w)/Q(w) by iterated linearised least squares minimising the relative error,
then report the maximum relative error on a dense grid.
"""
import math

import numpy as np
from scipy.special import erf

W_MAX = 16.0  # z up to 4: erfc(4) = 1.5e-8, enough for ewald_rtol >= 1e-8


def G(w):
    z = np.sqrt(w)
    out = np.where(w > 1e-12, erf(z) / np.where(z > 0, z, 1), 2 / math.sqrt(math.pi))
    return out


def H(w):
    z = np.sqrt(w)
    small = w < 1e-3
    zs = np.where(small, 1.0, z)
    big = (erf(zs) - 2 * zs * np.exp(-zs * zs) / math.sqrt(math.pi)) / zs**3
    # Series for small w: 2/sqrt(pi) (2/3 - 2w/5 + w^2/7 - w^3/27)
    series = 2 / math.sqrt(math.pi) * (2 / 3 - 2 * w / 5 + w * w / 7 - w**3 / 27)
    return np.where(small, series, big)


def fit(f, p_deg, q_deg, iterations=30):
    w = np.concatenate([np.linspace(0, W_MAX, 6000), W_MAX * (np.linspace(0, 1, 2000) ** 2)])
    y = f(w)
    q = np.ones_like(w)
    for _ in range(iterations):
        # P(w) - y Q1(w) = y with Q = 1 + Q1; weight 1/(y q) for relative error
        cols = [w**k for k in range(p_deg + 1)] + [-y * w**k for k in range(1, q_deg + 1)]
        A = np.stack(cols, axis=1) / (y * q)[:, None]
        b = y / (y * q)
        coef, *_ = np.linalg.lstsq(A, b, rcond=None)
        p = coef[: p_deg + 1]
        qc = np.concatenate([[1.0], coef[p_deg + 1 :]])
        q = np.polyval(qc[::-1], w)
    dense = np.linspace(0, W_MAX, 200001)
    approx = np.polyval(p[::-1], dense) / np.polyval(qc[::-1], dense)
    rel = np.max(np.abs(approx / f(dense) - 1))
    return p, qc, rel


def emit(name, p, q, rel):
    print(f"// {name}: max relative error {rel:.2e} on [0, {W_MAX}]")
    print(f"inline constexpr float k{name}P[] = {{" + ", ".join(f"{c:.9e}f" for c in p) + "};")
    print(f"inline constexpr float k{name}Q[] = {{" + ", ".join(f"{c:.9e}f" for c in q) + "};")


if __name__ == "__main__":
    for name, f in (("G", G), ("H", H)):
        best = None
        for pd, qd in ((4, 4), (5, 4), (5, 5), (6, 5), (6, 6)):
            p, q, rel = fit(f, pd, qd)
            print(f"// {name} degrees ({pd},{qd}): {rel:.2e}")
            if rel < 2e-7 and best is None:
                best = (p, q, rel)
        if best is None:
            best = (p, q, rel)
        emit(name, *best)
