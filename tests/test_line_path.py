"""lab.figures.line_path: the compact relative path data every line chart uses lands on the
points it was given, to the 0.05 px its rounding allows, however long the line."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from lab.figures import line_path

NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)")


def absolute_points(d: str) -> list[tuple[float, float]]:
    """Parse 'M x y l dx dy dx dy ...' (the subset line_path writes) back to absolute points."""
    assert re.fullmatch(r"M[^Ml]*(l[^Ml]*)?", d), d
    head, _, tail = d[1:].partition("l")
    x, y = map(float, NUMBER.findall(head))
    points = [(x, y)]
    steps = [float(n) for n in NUMBER.findall(tail)]
    assert len(steps) % 2 == 0 and "".join(NUMBER.findall(tail)) == re.sub(r"\s", "", tail)
    for dx, dy in zip(steps[::2], steps[1::2]):
        x, y = x + dx, y + dy
        points.append((x, y))
    return points


coordinate = st.floats(-2000, 2000, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=300))
def test_line_path_lands_on_every_point(points):
    back = absolute_points(line_path(points))
    assert len(back) == len(points)
    for (x, y), (bx, by) in zip(points, back):
        assert abs(x - bx) <= 0.05 + 1e-6 and abs(y - by) <= 0.05 + 1e-6


def test_line_path_is_shorter_than_absolute_coordinates():
    curve = [(44 + 4.3125 * i, 100 - 50 * (1 - 0.97 ** i)) for i in range(128)]
    absolute = "M" + "L".join(f"{x:.1f} {y:.1f}" for x, y in curve)
    assert len(line_path(curve)) < 0.75 * len(absolute)
