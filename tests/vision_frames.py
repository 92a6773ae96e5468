"""Hand-made test frames: a plain table and cards pasted on it at known quads."""
import cv2
import numpy as np


def table(h=720, w=1280, colour=(40, 90, 30), seed=0):
    """A plain cloth-like table: a colour, a soft light gradient and sensor noise."""
    rng = np.random.default_rng(seed)
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    gradient = np.linspace(0.8, 1.15, w, dtype=np.float32)[None, :, None]
    img = img * gradient + rng.normal(0, 4, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def place(frame, card_img, centre, height, angle_deg):
    """Paste a card (its own top-left first) at ``centre``, turned ``angle_deg`` clockwise; its quad."""
    h, w = card_img.shape[:2]
    s = height / h
    a = np.deg2rad(angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]]) * s
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    dst = (src - [(w - 1) / 2, (h - 1) / 2]) @ rot.T + centre
    paste(frame, card_img, dst)
    return dst


def paste(frame, card_img, quad):
    """Paste a card (its own top-left first) onto ``quad`` of the frame, in perspective."""
    h, w = card_img.shape[:2]
    src = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    m = cv2.getPerspectiveTransform(src, np.float32(quad))
    size = (frame.shape[1], frame.shape[0])
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), m, size) > 127
    frame[inside] = cv2.warpPerspective(card_img, m, size)[inside]


# demo cards whose quad, turned by 12 degrees or 20% too large, the shipped crop net reads in doubt
# (card id, the nudge that puts the quad off: vision.geometry.nudged_quads)
CARDS_WITH_QUADS_OFF = [("pine-crane", (12, 1, 0, 0)), ("cherry-curtain", (0, 1.2, 0, 0)),
                        ("wisteria-cuckoo", (0, 1.2, 0, 0)), ("iris-bridge", (0, 1.2, 0, 0))]


def card_with_quad_off(card, off):
    """A table with the demo card ``card`` on it: the frame, the card's quad and that quad put off."""
    from datasets.deck import render_card
    from vision.geometry import nudged_quads
    frame = table()
    quad = place(frame, render_card(card, 435), (640, 360), 230, 5)
    return frame, quad, nudged_quads([quad], [off])[0, 0]


def read_on_quads(monkeypatch, frame, quads, **options):
    """The shipped detector's detections when its quad stages give ``quads`` (no pieces, extensions or
    closer look; ``options`` for CardDetector)."""
    from vision.detector import CardDetector
    detector = CardDetector(split_merged=False, zoom=False, extend_parts=False, **options)
    monkeypatch.setattr(detector, "_whole_quads_timed", lambda f: (list(quads), (0.0,) * 5))
    return detector.detect(frame)
