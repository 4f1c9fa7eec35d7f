"""Helpers shared by the summarize_*_fd.py scripts: a value for a table cell and the fitted
scaling exponent of a time against the model size."""
import math


def fmt(v, unit=1.0):
    return "—" if v is None else f"{v / unit:.3g}"


def fit(points):
    """Least-squares slope of log t against log N."""
    if len(points) < 2:
        return float("nan")
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
