"""Quad geometry shared by the detector, the scene generator and the tracker."""
from __future__ import annotations

import cv2
import numpy as np

# Card crops are upright portrait images of the card's proportions (54 x 87 mm).
CROP_WIDTH = 64
CROP_HEIGHT = 96


def warp_card(frame: np.ndarray, quad, width: int = CROP_WIDTH, height: int = CROP_HEIGHT) -> np.ndarray:
    """The card inside ``quad`` (top-left first, clockwise) warped to an upright width x height crop."""
    src = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    dst = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(frame, m, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


# the quad net (vision.detector.QuadStage) sees a card's quad grown by this about its centre: a card
# with some table around it, so that corners the quad cut off (a quad too small, turned or shifted)
# are in view
CONTEXT_GROW = 1.3


def context_warp(frame: np.ndarray, quad, grow: float = CONTEXT_GROW, width: int = CROP_WIDTH,
                 height: int = CROP_HEIGHT) -> tuple[np.ndarray, np.ndarray]:
    """The quad grown by ``grow`` about its centre, warped to an upright width x height crop, and the
    3x3 transform from frame pixels to the crop's."""
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    src = np.float32(centre + (q - centre) * grow)
    dst = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    crop = cv2.warpPerspective(frame, m, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return crop, m


def context_corners(grow: float = CONTEXT_GROW, width: int = CROP_WIDTH, height: int = CROP_HEIGHT) -> np.ndarray:
    """Where a quad's own corners lie in its context_warp crop (4 x 2, shares of the crop's width and
    height): the quad net's answer for a quad that is right."""
    cx, cy = (width - 1) / 2, (height - 1) / 2
    hx, hy = cx / grow, cy / grow
    return np.array([[cx - hx, cy - hy], [cx + hx, cy - hy], [cx + hx, cy + hy], [cx - hx, cy + hy]]) / [width, height]


def rotate_quad(quad, quarter_turns: int) -> np.ndarray:
    """The same quad with its starting corner moved ``quarter_turns`` corners clockwise."""
    q = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    return np.roll(q, -quarter_turns, axis=0)


def nudged_quads(quads, nudges) -> np.ndarray:
    """Each quad moved by each nudge (K quads x N nudges x 4 x 2). A nudge is (turn in degrees,
    scale, shift across, shift down): the quad turned and scaled about its centre, then moved by
    those shares of its own top side (across) and left side (down)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    n = np.asarray(nudges, np.float64).reshape(-1, 4)
    centre = q.mean(axis=1)  # K x 2
    rel = (q - centre[:, None])[:, None]  # K x 1 x 4 x 2
    turn = np.deg2rad(n[:, 0])
    cos, sin, scale = np.cos(turn)[:, None], np.sin(turn)[:, None], n[:, 1][:, None]
    x, y = rel[..., 0], rel[..., 1]
    turned = np.stack([(cos * x - sin * y) * scale, (sin * x + cos * y) * scale], axis=-1)
    shift = n[:, 2, None] * (q[:, 1] - q[:, 0])[:, None] + n[:, 3, None] * (q[:, 3] - q[:, 0])[:, None]
    return turned + (centre[:, None] + shift)[:, :, None]


def quad_area(quad) -> float:
    return float(abs(cv2.contourArea(np.asarray(quad, dtype=np.float32).reshape(4, 2))))
