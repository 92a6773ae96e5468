"""Training samples for both nets, made from the synthetic scenes and crops of datasets/.

Mask samples: a scene scaled so its long side is ~320 px (with scale jitter), cut to a fixed patch,
with two targets at half that resolution: each card's interior shrunk to SHRINK (drawn in stacking
order with a cleared rim so touching cards stay apart) and the union of all visible cards.
Crop samples: datasets.crops' warped crops (faces, backs, hard negatives), each randomly turned 180
degrees with the orientation label flipped; and the crops of the quads the detector itself finds in a
scene, labelled by matching them to the scene's cards (``label_candidate``).
"""
from __future__ import annotations

import cv2
import numpy as np

from models.labels import CLASS_INDEX, MASK_STRIDE, NONE, SHRINK

PATCH_H, PATCH_W = 192, 320
MIN_VISIBLE = 0.5  # cards less visible than this are neither targets nor penalised


def mask_targets(labels: dict, scale_x: float, scale_y: float, out_h: int, out_w: int,
                 stride: int = MASK_STRIDE, shrink: float = SHRINK) -> tuple[np.ndarray, np.ndarray]:
    """(targets [2,h,w] float32 in 0..1, weight [h,w] float32) for a scene's labels, in a map that is
    the frame scaled by (scale_x, scale_y) then divided by ``stride``. Drawn at 4x and averaged down,
    so a map pixel holds the share of it that is covered (the decoder's 0.5 level is the true edge)."""
    up = 4
    hh, ww = out_h * up, out_w * up
    interior = np.zeros((hh, ww), np.uint8)
    card = np.zeros((hh, ww), np.uint8)
    weight = np.ones((hh, ww), np.uint8)
    f = 1 << 4  # sub-pixel drawing
    for c in labels["cards"]:
        q = np.asarray(c["quad"], np.float64).reshape(4, 2)
        q = (q + 0.5) * np.array([scale_x, scale_y]) / stride * up - 0.5
        full = np.round(q * f).astype(np.int32)
        cv2.fillConvexPoly(card, full, 1, cv2.LINE_8, 4)
        centre = q.mean(axis=0)
        inner = np.round((centre + (q - centre) * shrink) * f).astype(np.int32)
        if c.get("visible", 1.0) >= MIN_VISIBLE:
            # clear a rim around it first (so a card below stays apart), then fill it whole
            cv2.polylines(interior, [inner], True, 0, 2 * up + 1, cv2.LINE_8, 4)
            cv2.fillConvexPoly(interior, inner, 1, cv2.LINE_8, 4)
            cv2.fillConvexPoly(weight, inner, 1, cv2.LINE_8, 4)
        else:
            # a mostly hidden card: whatever the net says about its interior is not wrong
            cv2.fillConvexPoly(weight, inner, 0, cv2.LINE_8, 4)
            cv2.fillConvexPoly(interior, inner, 0, cv2.LINE_8, 4)
    down = [cv2.resize(m.astype(np.float32), (out_w, out_h), interpolation=cv2.INTER_AREA)
            for m in (interior, card, weight)]
    return np.stack(down[:2]), (down[2] > 0.5).astype(np.float32)


def centre_targets(interior: np.ndarray) -> np.ndarray:
    """The centre map of stored interior targets (N x H x W, uint8 0..255, or one H x W map): in each
    card's interior the distance to its edge over the largest distance in that interior, so 1 at its
    middle and falling to 0 at its edge; 0 outside. Two touching cards whose interiors the net runs
    together still give two peaks with a wide valley between them, which a net at this resolution
    can draw where it cannot draw the interiors' thin gap. float32, the shape of ``interior``."""
    maps = np.asarray(interior)
    if maps.ndim == 2:
        return centre_targets(maps[None])[0]
    out = np.zeros(maps.shape, np.float32)
    for i, m in enumerate(maps):
        binary = (m > 127).astype(np.uint8)
        n, labels = cv2.connectedComponents(binary, connectivity=4)
        if n < 2:
            continue
        # the map's border counts as an edge (a card cut by it peaks inside what is seen)
        padded = cv2.copyMakeBorder(binary, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
        dist = cv2.distanceTransform(padded, cv2.DIST_L2, 3)[1:-1, 1:-1]
        peak = np.zeros(n, np.float32)
        np.maximum.at(peak, labels.ravel(), dist.ravel())
        out[i] = np.where(labels > 0, dist / np.maximum(peak[labels], 1e-6), 0.0)
    return out


def mask_sample(rng: np.random.Generator, image: np.ndarray, labels: dict):
    """One training patch (3xPHxPW uint8 BGR) with targets and weights at stride MASK_STRIDE."""
    h, w = image.shape[:2]
    cards = [c for c in labels["cards"] if c.get("visible", 1.0) >= MIN_VISIBLE]
    focus = None
    if cards and rng.random() < 0.2:
        # a close-up: one card fills much of the view (a phone photo, a camera low over the table)
        c = cards[int(rng.integers(len(cards)))]
        q = np.asarray(c["quad"], np.float64).reshape(4, 2)
        card_h = max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2]), 1.0)
        scale = PATCH_H * float(rng.uniform(0.45, 0.95)) / card_h
        focus = q.mean(axis=0)
    else:
        scale = PATCH_W * float(rng.uniform(0.7, 1.5)) / max(h, w)
    nw, nh = max(PATCH_W // 2, round(w * scale)), max(PATCH_H // 2, round(h * scale))
    small = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    sx, sy = nw / w, nh / h
    # pad (edge replicate, as the run time does) then cut a patch
    ph, pw = max(0, PATCH_H - nh), max(0, PATCH_W - nw)
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    if focus is not None:
        y0 = int(np.clip(focus[1] * sy - PATCH_H / 2 + rng.uniform(-30, 30), 0, small.shape[0] - PATCH_H))
        x0 = int(np.clip(focus[0] * sx - PATCH_W / 2 + rng.uniform(-60, 60), 0, small.shape[1] - PATCH_W))
    else:
        y0 = int(rng.integers(0, small.shape[0] - PATCH_H + 1))
        x0 = int(rng.integers(0, small.shape[1] - PATCH_W + 1))
    patch = small[y0:y0 + PATCH_H, x0:x0 + PATCH_W]
    shifted = {"cards": [dict(c, quad=(np.asarray(c["quad"], np.float64) - np.array([x0 / sx, y0 / sy])).tolist())
                         for c in labels["cards"]]}
    targets, weight = mask_targets(shifted, sx, sy, PATCH_H // MASK_STRIDE, PATCH_W // MASK_STRIDE)
    if rng.random() < 0.5:  # the same table seen from the other side
        patch, targets, weight = patch[::-1, ::-1], targets[:, ::-1, ::-1], weight[::-1, ::-1]
    patch = photometric(rng, np.ascontiguousarray(patch))
    return patch.transpose(2, 0, 1).copy(), np.ascontiguousarray(targets), np.ascontiguousarray(weight)


def photometric(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Camera-like changes: gain, contrast, colour cast, blur, noise, JPEG."""
    out = img.astype(np.float32)
    if rng.random() < 0.8:
        out = (out - 128.0) * rng.uniform(0.7, 1.3) + 128.0 + rng.uniform(-35, 35)
        out *= rng.uniform(0.85, 1.15, size=3).astype(np.float32)
    if rng.random() < 0.3:
        k = int(rng.choice([3, 5]))
        out = cv2.GaussianBlur(out, (k, k), 0)
    if rng.random() < 0.4:
        out += rng.normal(0, rng.uniform(2, 8), size=out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 90))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# how far art_style_shift turns hues (OpenCV's 0..179 scale: 8 is 16 degrees; a red ribbon stays red,
# far from a blue one) and scales saturation
STYLE_HUE_SHIFT = 8
STYLE_SATURATION = (0.6, 1.3)


def art_style_shift(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """The same card in another print's colours: hue turned a little, saturation and the mid-tones'
    brightness (gamma) changed. Art sets differ this way (a scan of printed cards against drawings),
    and the art held out of training is one such set."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hue = (hsv[..., 0].astype(np.int16) + int(rng.integers(-STYLE_HUE_SHIFT, STYLE_HUE_SHIFT + 1))) % 180
    saturation = np.clip(hsv[..., 1].astype(np.float32) * rng.uniform(*STYLE_SATURATION), 0, 255)
    value = 255.0 * (hsv[..., 2].astype(np.float32) / 255.0) ** rng.uniform(0.75, 1.33)
    hsv = np.stack([hue.astype(np.uint8), saturation.astype(np.uint8), np.clip(value, 0, 255).astype(np.uint8)], axis=2)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def crop_label(label) -> tuple[int, int]:
    """(class index, orientation 0/1) from one datasets.crops label (a dict or a face string)."""
    if isinstance(label, str):
        return CLASS_INDEX[label], 0
    face = label.get("face") or NONE
    orientation = label.get("orientation", 0)
    upside_down = int(orientation in (2, 180, "180", "upside-down", True) or orientation == 1)
    return CLASS_INDEX[face], upside_down


def crop_batch(rng: np.random.Generator, crops: np.ndarray, labels,
               style_shift: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops (N,3,96,64 uint8), class indices, orientation labels (-1 where it means nothing),
    with random 180-degree turns and camera-like changes; a ``style_shift`` share of them also in
    other colours (art_style_shift)."""
    xs, ys, os_ = [], [], []
    for crop, label in zip(crops, labels):
        cls, turned = crop_label(label)
        if rng.random() < 0.5:
            crop, turned = crop[::-1, ::-1], 1 - turned
        crop = np.ascontiguousarray(crop)
        if style_shift and rng.random() < style_shift:
            crop = art_style_shift(rng, crop)
        crop = photometric(rng, crop)
        xs.append(crop.transpose(2, 0, 1))
        ys.append(cls)
        os_.append(turned if cls < CLASS_INDEX["back"] else -1)
    return np.stack(xs), np.array(ys, np.int64), np.array(os_, np.int64)


# a finder quad that overlaps a card this much is that card, as the evaluation counts it
# (vision.evaluate.MATCH_IOU); between AMBIGUOUS_IOU and that it is left out of training: the
# crop net should not be taught a hard line where the two answers are nearly as right
AMBIGUOUS_IOU = 0.4


def label_candidate(quad, labels: dict) -> dict | None:
    """The crop label of a quad the detector found in a rendered scene: the face and orientation of
    the card it matches (IoU >= MATCH_IOU; orientation 180 when the quad starts at the card's
    bottom-right), ``none`` when it matches no card, None (not a training sample) when it is a
    mostly hidden card or nearly a match."""
    from vision.evaluate import MATCH_IOU, quad_iou
    q = np.asarray(quad, np.float64).reshape(4, 2)
    scored = [(quad_iou(q, c["quad"]), c) for c in labels["cards"]]
    # a card in view that the quad matches comes before a hidden one it fits better, as the
    # evaluation matches them (the top card of a pile and the cards under it)
    in_view = [m for m in scored if m[0] >= MATCH_IOU and m[1].get("visible", 1.0) >= MIN_VISIBLE]
    best_iou, best = max(in_view or scored, key=lambda m: m[0], default=(0.0, None))
    if best is None or best_iou < AMBIGUOUS_IOU:
        return {"face": NONE, "card": None, "orientation": 0}
    if best_iou < MATCH_IOU or best.get("visible", 1.0) < MIN_VISIBLE:
        return None
    truth = np.asarray(best["quad"], np.float64).reshape(4, 2)
    start = int(np.argmin(np.linalg.norm(truth - q[0], axis=1)))
    if start not in (0, 2):  # a quad turned by a quarter: no orientation to teach
        return None
    return {"face": best["face"], "card": best.get("card"), "orientation": 90 * start}


def mask_window_batch(rng: np.random.Generator, x: np.ndarray, t: np.ndarray, w: np.ndarray,
                      idx: np.ndarray, patch: tuple[int, int], centres: bool):
    """One mask-net batch from stored patches (x: N x 3 x PATCH_H x PATCH_W uint8; t: N x 2 x h x w
    uint8 0..255; w: N x h x w uint8): the samples ``idx`` cut to a random window of ``patch`` (one
    window for the batch: more, cheaper steps for the same time). Returns (x uint8, targets float32
    0..1 with the centre map as a third channel when ``centres``, weights float32)."""
    ph, pw = patch
    oy = 2 * int(rng.integers(0, (x.shape[2] - ph) // 2 + 1))
    ox = 2 * int(rng.integers(0, (x.shape[3] - pw) // 2 + 1))
    rows, cols = slice(oy // 2, (oy + ph) // 2), slice(ox // 2, (ox + pw) // 2)
    xb = np.ascontiguousarray(x[idx, :, oy:oy + ph, ox:ox + pw])
    tb = t[idx][:, :, rows, cols].astype(np.float32) / 255.0
    if centres:
        # from the whole stored patch, then cut: a card cut by the window keeps its own middle
        tb = np.concatenate([tb, centre_targets(t[idx, 0])[:, None, rows, cols]], axis=1)
    return xb, np.ascontiguousarray(tb), w[idx][:, rows, cols].astype(np.float32)
