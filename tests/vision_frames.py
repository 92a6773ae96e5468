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
