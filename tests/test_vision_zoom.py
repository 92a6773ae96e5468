"""The closer look around the quads in doubt (vision.zoom and CardDetector's use of it)."""
import numpy as np
import pytest

from datasets.deck import render_card
from vision.detector import EXTEND_UP_TO, WINDOW_GAP, CardDetector, MaskStage
from vision.evaluate import quad_iou
from vision.zoom import ZOOM_FACTOR, ZoomWindow, inside_window, zoom_windows
from vision_frames import place, table


def _rect(x, y, w, h):
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)


def test_a_window_is_a_square_of_the_quads_extent_around_it():
    quad = _rect(500, 300, 60, 100)
    (win,) = zoom_windows([quad], [True], (720, 1280))
    assert win.side == round(ZOOM_FACTOR * 100)
    assert win.x + win.side / 2 == pytest.approx(530, abs=1) and win.y + win.side / 2 == pytest.approx(350, abs=1)
    assert win.contains(quad)


def test_only_the_quads_in_doubt_get_a_window_the_likeliest_first_and_at_most_so_many():
    quads = [_rect(100 + 200 * k, 300, 60, 100) for k in range(5)]
    look_again = [True, False, True, True, True]
    order = [0.9, 0.0, 0.1, 0.5, 0.3]
    windows = zoom_windows(quads, look_again, (720, 1280), order=order, most=3)
    centres = [win.x + win.side / 2 for win in windows]
    assert centres == pytest.approx([530, 930, 730], abs=1)  # quads 2, 4, 3; not 1 (sure), not 0 (fourth)


def test_a_window_lies_inside_the_frame_and_is_at_most_its_shorter_side():
    corner = zoom_windows([_rect(0, 0, 60, 100)], [True], (720, 1280))[0]
    assert (corner.x, corner.y) == (0, 0)
    far = zoom_windows([_rect(1230, 630, 50, 90)], [True], (720, 1280))[0]
    assert far.x + far.side == 1280 and far.y + far.side == 720
    huge = zoom_windows([_rect(100, 100, 600, 500)], [True], (720, 1280))[0]
    assert huge.side == 720 and huge.y == 0


def test_a_quad_inside_a_window_already_chosen_gets_none_of_its_own():
    quads = [_rect(500, 300, 60, 100), _rect(520, 320, 30, 40)]
    assert len(zoom_windows(quads, [True, True], (720, 1280))) == 1


def test_windows_need_a_word_for_every_quad():
    with pytest.raises(ValueError, match="2 quads"):
        zoom_windows([_rect(0, 0, 10, 10), _rect(50, 0, 10, 10)], [True], (720, 1280))


def test_a_quad_the_windows_border_cuts_is_left_out_except_at_the_frames_edge():
    win = ZoomWindow(100, 100, 200)
    whole = _rect(150, 150, 50, 80)
    cut = _rect(250, 150, 80, 80)  # reaches past the window's right side
    assert [q.tolist() for q in inside_window([whole, cut], win, (720, 1280))] == [whole.tolist()]
    at_edge = ZoomWindow(0, 0, 200)
    off_frame = _rect(-10, 20, 60, 90)  # a card cut by the frame is cut in the first look too
    assert len(inside_window([off_frame], at_edge, (720, 1280))) == 1


class _MaskSession:
    """An onnxruntime session stand-in: window k's interior map holds k + 1 everywhere."""

    def __init__(self):
        self.shapes = []

    def run(self, _names, feeds):
        n, _, h, w = feeds["image"].shape
        self.shapes.append((n, h, w))
        maps = np.zeros((n, 3, h // 2, w // 2), np.float32)
        for k in range(n):
            maps[k, 0] = k + 1
            maps[k, 2] = -(k + 1)
        return [maps]


def test_the_windows_maps_are_laid_side_by_side_with_a_gap_between_them():
    settings = CardDetector().settings
    session = _MaskSession()
    stage = MaskStage(session, settings)
    frame = table()
    windows = [ZoomWindow(0, 0, 300), ZoomWindow(400, 100, 90)]
    interior, centre, geometry = stage.run_windows(frame, windows, 128)
    assert session.shapes == [(2, 128, 128)]
    assert interior.shape == (64, 2 * 64 + 2 * WINDOW_GAP)
    assert np.all(interior[:, :64] == 1) and np.all(interior[:, 64:64 + WINDOW_GAP] == 0)
    assert np.all(interior[:, 64 + WINDOW_GAP:128 + WINDOW_GAP] == 2)
    assert np.all(centre[:, :64] == -1)
    assert geometry.step_x == geometry.step_y == settings.mask_stride
    with pytest.raises(ValueError, match="multiple of 16"):
        stage.run_windows(frame, windows, 120)


def _half_seen_card():
    """A frame with one demo card, its true quad, and a quad half a card's length off it, half on the
    table (what a mask net that saw the card's dark half as table and the table beside it as card
    would give): the crop net takes it for no card."""
    frame = table(colour=(110, 60, 20), seed=4)
    quad = place(frame, render_card("susuki-geese", 435), (640, 360), 170, 25)
    half = quad + (quad[3] - quad[0]) * 0.5
    return frame, quad, half


def test_a_card_whose_first_look_was_half_off_it_is_found_whole_by_the_closer_look(monkeypatch):
    frame, quad, half = _half_seen_card()
    detector = CardDetector(zoom=True, extend_parts=False, split_merged=False)
    monkeypatch.setattr(detector, "_whole_quads_timed", lambda f: ([half], (0.0,) * 5))
    detections = detector.detect(frame)
    assert len(detections) == 1
    d = detections[0]
    assert d.face == "susuki-geese" and not d.uncertain and quad_iou(d.quad, quad) > 0.75
    # the closer look's quad is among the candidates the crop net is taught on and the benchmark reads
    assert any(quad_iou(q, quad) > 0.75 for q in detector.candidate_quads(frame))
    # without it, only the half was there to read
    first_look_only = CardDetector(zoom=False, extend_parts=False, split_merged=False)
    monkeypatch.setattr(first_look_only, "_whole_quads_timed", lambda f: ([half], (0.0,) * 5))
    assert not any(quad_iou(d.quad, quad) >= 0.5 for d in first_look_only.detect(frame))


def test_a_quad_read_with_confidence_gets_no_closer_look(monkeypatch):
    frame, quad, _ = _half_seen_card()
    detector = CardDetector(zoom=True)
    monkeypatch.setattr(detector, "_whole_quads_timed", lambda f: ([quad], (0.0,) * 5))
    looked = []
    original = detector._zoomed_quads
    monkeypatch.setattr(detector, "_zoomed_quads", lambda *a: looked.append(1) or original(*a))
    (d,) = detector.detect(frame)
    assert d.face == "susuki-geese" and not d.uncertain
    assert looked == [1]
    assert original(frame, [quad], detector.crops.run(np.stack([_crop(frame, quad)]))) == []


def _crop(frame, quad):
    from vision.geometry import warp_card
    return warp_card(frame, quad)


@pytest.mark.parametrize("extra, looked", [(EXTEND_UP_TO - 1, True), (EXTEND_UP_TO, False)])
def test_the_closer_look_is_taken_only_in_frames_of_at_most_24_quads(monkeypatch, extra, looked):
    frame, _, half = _half_seen_card()
    others = [_rect(20 + 50 * (k % 25), 20 + 600 * (k // 25), 30, 48) for k in range(extra)]
    detector = CardDetector(zoom=True, extend_parts=False, split_merged=False)
    monkeypatch.setattr(detector, "_whole_quads_timed", lambda f: ([half] + others, (0.0,) * 5))
    calls = []
    monkeypatch.setattr(detector, "_zoomed_quads", lambda *a: calls.append(1) or [])
    detector.detect(frame)
    assert bool(calls) is looked


def test_the_shipped_settings_take_the_closer_look_and_older_settings_files_do_not(tmp_path):
    import json
    from vision.detector import MODELS_DIR, VisionSettings
    assert CardDetector().zoom and VisionSettings.load(MODELS_DIR / "vision.json").zoom_unsure
    raw = json.loads((MODELS_DIR / "vision.json").read_text())
    del raw["zoom_unsure"]  # a settings file written before the closer look
    (tmp_path / "vision.json").write_text(json.dumps(raw))
    assert not VisionSettings.load(tmp_path / "vision.json").zoom_unsure
    raw["zoom_unsure"] = False
    (tmp_path / "vision.json").write_text(json.dumps(raw))
    for name in ("cardmask.onnx", "cardface.onnx", "cardquad.onnx"):
        (tmp_path / name).write_bytes((MODELS_DIR / name).read_bytes())
    assert not CardDetector(tmp_path).zoom


def test_the_closer_looks_quads_are_re_fitted_as_the_frames_are(monkeypatch):
    from vision.detector import _warp_all
    frame, quad, half = _half_seen_card()
    found = {}
    for refit in (False, True):
        detector = CardDetector(refit=refit)
        sent = []
        real = detector._refitted
        monkeypatch.setattr(detector, "_refitted", lambda f, qs, real=real, sent=sent: sent.append(qs) or real(f, qs))
        found[refit] = detector._zoomed_quads(frame, [half], detector.crops.run(_warp_all(frame, [half])))
        found[refit, "sent"] = sent
    assert found[False, "sent"] == [] and len(found[False]) >= 1
    # the window's own quads go to the quad net, and what it gives back is what is read
    [sent] = found[True, "sent"]
    assert len(sent) == len(found[False]) and all(np.allclose(a, b) for a, b in zip(sent, found[False]))
    # (measured: the window's quad at IoU 0.82 with the card, re-fitted 0.96)
    assert max(quad_iou(q, quad) for q in found[False]) < 0.85 < max(quad_iou(q, quad) for q in found[True])
