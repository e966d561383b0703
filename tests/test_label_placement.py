"""The figures' collision pass (lab.figures.place_labels, one_x_label) against its plain definition.

The pass finds a label's place by interval arithmetic: the boxes in the label's columns become
merged intervals of blocked baselines, and a blocked candidate jumps to its interval's far side.
one_x_label also drops, once, the boxes that can block nothing in its band. The plain definition
below tries every candidate baseline in order, 2 px apart, against every box. The two must agree
exactly, on dense curves of small boxes (what the speedup charts pass) as on scattered ones.
"""

import random

from lab import figures
from lab.figures import MIN_TEXT, label_box, line_boxes, one_x_label, place_labels


def _clear(a, b, gap) -> bool:
    return not (a[0] < b[2] + gap and b[0] < a[2] + gap and a[1] < b[3] + gap and b[1] < a[3] + gap)


def plain_place_labels(labels, top, bottom, size=MIN_TEXT, obstacles=(), gap=2, travel=None):
    placed, boxes = [], list(obstacles)
    ascent, descent = 0.8 * size, 0.25 * size
    for x, y, words, anchor in labels:
        best = None
        for shift in range(0, int(bottom - top if travel is None else travel) + 2, 2):
            for c in ((y + shift, y - shift) if shift else (y,)):
                box = label_box((x, c, words, anchor), size)
                if top + ascent <= c <= bottom - descent and all(_clear(box, other, gap) for other in boxes):
                    best = c
                    break
            if best is not None:
                break
        placed.append(None if best is None else (x, best, words, anchor))
        if best is not None:
            boxes.append(label_box((x, best, words, anchor), size))
    return placed


def _curve(rng, width, height):
    points, y = [], rng.uniform(0, height)
    for x in range(0, width, rng.choice((4, 8, 16))):
        y = min(height, max(0.0, y + rng.uniform(-12, 12)))
        points.append((x, y))
    return points


def _scene(rng):
    width, height = rng.choice((320, 640, 960)), rng.uniform(120, 320)
    obstacles = []
    for _ in range(rng.randrange(4)):
        obstacles += line_boxes(_curve(rng, width, height))
    for _ in range(rng.randrange(6)):
        left, top = rng.uniform(0, width), rng.uniform(0, height)
        obstacles.append((left, top, left + rng.uniform(1, 120), top + rng.uniform(1, 40)))
    rng.shuffle(obstacles)
    return width, height, obstacles


def test_place_labels_is_its_plain_definition():
    rng = random.Random(20261202)
    for _ in range(400):
        width, height, obstacles = _scene(rng)
        labels = [(rng.uniform(0, width), rng.uniform(-20, height + 20), rng.choice(("1x", "vLLM 2.8x", "break-even")),
                   rng.choice(("start", "middle", "end"))) for _ in range(rng.randrange(1, 5))]
        travel = rng.choice((None, 0, 7, 30))
        top, bottom = rng.uniform(-10, 20), height + rng.uniform(-20, 10)
        assert place_labels(labels, top, bottom, obstacles=obstacles, travel=travel) == \
            plain_place_labels(labels, top, bottom, obstacles=obstacles, travel=travel)


def plain_one_x_label(x0, x1, y, wordings, obstacles=()):
    """one_x_label's search order, each try against every obstacle by the plain definition."""
    fitting = [words for words in wordings if figures.text_width(words) <= (x1 - x0) * 0.6] or [wordings[-1]]
    tries = [(words, x, anchor) for words in fitting for x, anchor in ((x0 + 4, "start"), (x1 - 4, "end"))]
    tries += [(words, x, "start") for words in fitting
              for x in range(int(x0) + 12, int(x1 - 4 - figures.text_width(words)), 8)]
    for words, x, anchor in tries:
        spot = plain_place_labels([(x, y + 14, words, anchor)], y - 40, y + 30, obstacles=obstacles)[0]
        if spot:
            return spot
    return (x1 - 4, y - 4, wordings[-1], "end")


def test_one_x_label_is_its_plain_definition():
    rng = random.Random(7)
    searched_along = 0
    for _ in range(120):
        width, height, obstacles = _scene(rng)
        # a flat curve along the line, as the trees chart at zero verification tax draws: both
        # ends blocked, so the label is searched for along the line
        y = rng.uniform(40, height - 40)
        if rng.random() < 0.5:
            obstacles += line_boxes([(x, y + rng.uniform(-3, 20)) for x in range(0, width, 4)])
        if rng.random() < 0.7:  # vertical marks through both ends (what sends the search along the line)
            for x in (40 + rng.uniform(0, 60), width - 10 - rng.uniform(0, 60)):
                obstacles.append(figures.column_box(x, 0, height))
        if rng.random() < 0.5:  # the middle of the band taken, small boxes about its edges
            obstacles.append((0, y - rng.uniform(10, 30), width, y + rng.uniform(0, 20)))
            for _ in range(rng.randrange(1, 6)):
                left, edge = rng.uniform(0, width), y + rng.choice((-40, 30)) + rng.uniform(-3, 3)
                obstacles.append((left, edge - rng.uniform(0, 4), left + rng.uniform(2, 60), edge))
        spot = one_x_label(40, width - 10, y, ("1x: break-even", "1x"), obstacles)
        assert spot == plain_one_x_label(40, width - 10, y, ("1x: break-even", "1x"), obstacles)
        searched_along += spot[0] not in (44, width - 14)
    assert searched_along >= 10  # the search along the line is exercised, not only its ends


def test_one_x_label_counts_boxes_just_outside_its_band():
    """Boxes within the 2 px gap outside the band the label searches (y - 40 to y + 30) still
    block its extreme places: the only free baseline, 126, sits above a box starting at 130.5; then
    the only free one, 70, under a box ending at 59.5."""
    taken = (0, 50, 500, 113)  # blocks every baseline below 124.6
    assert one_x_label(40, 400, 100, ("1x",), [taken]) == (44, 126, "1x", "start")
    assert one_x_label(40, 400, 100, ("1x",), [taken, (0, 130.5, 500, 140)]) == (396, 96, "1x", "end")
    assert plain_one_x_label(40, 400, 100, ("1x",), [taken, (0, 130.5, 500, 140)]) == (396, 96, "1x", "end")
    taken = (0, 75, 500, 200)  # blocks every baseline above 70
    assert one_x_label(40, 400, 100, ("1x",), [taken]) == (44, 70, "1x", "start")
    assert one_x_label(40, 400, 100, ("1x",), [taken, (0, 50, 500, 59.5)]) == (396, 96, "1x", "end")
