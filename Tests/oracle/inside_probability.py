#!/usr/bin/env python3
"""Independent oracle for P(inside): scipy's noncentral chi-square CDF.

P(inside a circle of radius R | fix at distance d, sigma per axis)
    = 1 - Q1(d/sigma, R/sigma) = ncx2.cdf((R/sigma)^2, df=2, nc=(d/sigma)^2).

Reads "d R sigma" lines on standard input, writes "d R sigma p" with p in full precision
(repr). Where scipy's float routine is not trustworthy (far tails, huge R/sigma), mpmath's
40-digit integration of the Rice density gives the value instead.
"""
import sys

from scipy.stats import ncx2

try:
    import mpmath
    mpmath.mp.dps = 40
except ImportError:  # pragma: no cover
    mpmath = None


def mp_value(d, R, s):
    """1 - Q1 by direct integration of the Rice density, in 40-digit arithmetic."""
    a, b = mpmath.mpf(d) / s, mpmath.mpf(R) / s
    if b == 0:
        return mpmath.mpf(0)
    f = lambda r: r * mpmath.exp(-(r * r + a * a) / 2) * mpmath.besseli(0, a * r)
    lo, hi = max(mpmath.mpf(0), a - 60), min(b, a + 60)
    if lo >= hi:
        return mpmath.mpf(1) if b > a + 60 else mpmath.mpf(0)
    return mpmath.quad(f, [lo, (lo + hi) / 2, hi])


for line in sys.stdin:
    if not line.strip():
        continue
    d, R, s = (float(v) for v in line.split())
    p = float(ncx2.cdf((R / s) ** 2, 2, (d / s) ** 2))
    # scipy's float routine loses digits in the far tails and for huge R/sigma (errors near
    # 2e-12 at R/sigma = 40000): check those with mpmath.
    if mpmath is not None and (p < 1e-6 or p > 1 - 1e-6 or p != p or R / s > 1000 or d / s > 1000):
        p = float(mp_value(d, R, s))
    print(d, R, s, repr(p))
