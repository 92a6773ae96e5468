"""The mask geometry: training targets drawn from labels decode back to the labelled quads."""
import cv2
import numpy as np
import pytest

from models.data import mask_targets
from models.labels import MASK_STRIDE, SHRINK
from vision.evaluate import quad_iou
from vision.quads import MapGeometry, QuadFinder, order_clockwise_portrait


def card_quad(cx, cy, angle_deg, h=200.0):
    w = h * 54 / 87
    pts = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    a = np.deg2rad(angle_deg)
    r = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return pts @ r.T + [cx, cy]


def test_order_is_clockwise_and_starts_on_a_short_side():
    q = card_quad(300, 200, 100)
    for k in range(4):
        o = order_clockwise_portrait(np.roll(q, k, axis=0)[::-1])
        assert cv2.contourArea(o.astype(np.float32), oriented=True) > 0  # clockwise on screen (y down)
        assert np.linalg.norm(o[1] - o[0]) < np.linalg.norm(o[2] - o[1])


@pytest.mark.parametrize("angles", [(0, 0, 0), (15, -30, 90), (180, 45, 7)])
def test_targets_decode_to_the_labelled_quads_even_when_cards_touch(angles):
    # three cards side by side, the first two touching
    quads = [card_quad(200, 300, angles[0]), card_quad(200 + 124, 300, angles[1] * 0.1),
             card_quad(800, 350, angles[2])]
    labels = {"cards": [{"quad": q.tolist(), "visible": 1.0} for q in quads]}
    scale = 0.25  # a 1280x720 frame seen by the net at 320x180
    targets, _ = mask_targets(labels, scale, scale, 720 // 4 // MASK_STRIDE, 1280 // 4 // MASK_STRIDE)
    step = MASK_STRIDE / scale
    found = QuadFinder(shrink=SHRINK).find(targets[0], MapGeometry(step, step))
    assert len(found) == 3
    for q in quads:
        best = max(quad_iou(q, f) for f in found)
        assert best > 0.9


def test_hidden_cards_are_not_targets():
    labels = {"cards": [{"quad": card_quad(300, 300, 0).tolist(), "visible": 0.2}]}
    targets, weight = mask_targets(labels, 0.25, 0.25, 90, 160)
    assert targets[0].sum() == 0 and targets[1].sum() > 0
    assert weight.min() == 0  # neither rewarded nor penalised there
