"""A second, closer look at the places of a frame where the first reading is in doubt.

The mask net sees a 1280x720 frame at a long side of 448 px: a card of a 9-card table is about 45 px
long there, and its interior map (at half that) about 16 map pixels. A card whose look fools the net
at that size (the black hill of a susuki card, a dark back on a dark table) leaves a blob over only
part of it, and the crop net reads that quad as no card or in doubt. Seen again in a square window
around the doubtful quad, centred and a little larger, the same mask net usually outlines the whole
card (models/MODEL.md, stage 2e, and models/HISTORY.md, "The figures now: a closer look").

``zoom_windows`` chooses the windows (frame pixels); ``inside_window`` keeps the quads found in a
window that its border does not cut (vision.detector ``CardDetector._zoomed_quads`` runs the look).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# a window's side, in the doubtful quad's longer extent (its bounding box's longer side): a card with
# half a card of table around it, so a whole card the quad is part of still fits
ZOOM_FACTOR = 2.2
# the side of the square the mask net is given for each window (a multiple of 16): on 240 evaluation
# scenes 128, 160 and 192 found as many cards (857 to 862 of 934); 128 costs least
ZOOM_INPUT = 128
# the most windows a frame is given (the most doubtful quads first)
ZOOM_MOST = 4


@dataclass(frozen=True)
class ZoomWindow:
    """A square of the frame: from column ``x``, row ``y``, ``side`` pixels each way."""
    x: int
    y: int
    side: int

    def contains(self, quad: np.ndarray, margin: float = 0.0) -> bool:
        """Whether every corner of ``quad`` lies inside the window, ``margin`` pixels in from its sides."""
        q = np.asarray(quad, np.float64).reshape(4, 2)
        lo = np.array([self.x, self.y], np.float64) + margin
        hi = np.array([self.x + self.side, self.y + self.side], np.float64) - margin
        return bool(np.all(q >= lo) and np.all(q <= hi))


def zoom_windows(quads: list[np.ndarray], look_again: list[bool], frame_shape: tuple[int, ...],
                 factor: float = ZOOM_FACTOR, most: int = ZOOM_MOST,
                 order: list[float] | None = None) -> list[ZoomWindow]:
    """Square windows around the quads that ``look_again`` marks, each ``factor`` times the quad's
    longer extent (shifted to lie inside the frame, at most the frame's shorter side), at most
    ``most`` of them, the quads taken by ``order`` (lowest first; their order in ``quads`` without
    it). A quad lying well inside a window already chosen gets none of its own: that look covers it."""
    if len(look_again) != len(quads):
        raise ValueError(f"look_again says which of the {len(quads)} quads to look at again, "
                         f"but has {len(look_again)} entries")
    h, w = frame_shape[:2]
    candidates = [k for k, again in enumerate(look_again) if again]
    if order is not None:
        candidates.sort(key=lambda k: order[k])
    windows: list[ZoomWindow] = []
    for k in candidates:
        if len(windows) >= most:
            break
        q = np.asarray(quads[k], np.float64).reshape(4, 2)
        lo, hi = q.min(axis=0), q.max(axis=0)
        extent = float(max(hi - lo))
        if any(win.contains(q, margin=0.1 * extent) for win in windows):
            continue
        side = int(round(min(factor * extent, h, w)))
        if side < 16:
            continue
        cx, cy = (lo + hi) / 2
        x = int(round(min(max(cx - side / 2, 0), w - side)))
        y = int(round(min(max(cy - side / 2, 0), h - side)))
        windows.append(ZoomWindow(x, y, side))
    return windows


def inside_window(quads: list[np.ndarray], window: ZoomWindow, frame_shape: tuple[int, ...],
                  margin: float = 1.0) -> list[np.ndarray]:
    """The quads (frame pixels) that the window's border does not cut: every corner inside the window,
    except on a side where the window reaches the frame's edge (there a card cut by the frame is cut
    in the first look too, and is judged as it is there)."""
    h, w = frame_shape[:2]
    lo = np.array([window.x + margin if window.x > 0 else -np.inf,
                   window.y + margin if window.y > 0 else -np.inf])
    hi = np.array([window.x + window.side - margin if window.x + window.side < w else np.inf,
                   window.y + window.side - margin if window.y + window.side < h else np.inf])
    kept = []
    for quad in quads:
        q = np.asarray(quad, np.float64).reshape(4, 2)
        if np.all(q >= lo) and np.all(q <= hi):
            kept.append(q)
    return kept


__all__ = ["ZOOM_FACTOR", "ZOOM_INPUT", "ZOOM_MOST", "ZoomWindow", "zoom_windows", "inside_window"]
