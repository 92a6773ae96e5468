"""Frame sources and the capture thread, with fake cameras and tiny files."""
import os
import re
import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.camera as camera
from vision.camera import (CameraError, CameraSource, FrameGrabber, FrameSkipped, ImageFolderSource,
                           VideoFileSource, open_source)
from vision.demo_table import DemoTable


def frame(value=0, size=(48, 64)):
    return np.full((size[0], size[1], 3), value, np.uint8)


class FakeCapture:
    """A cv2.VideoCapture stand-in driven by a shared 'plugged' flag."""

    def __init__(self, device):
        self.device = device
        self.open = device.plugged
        self.props = {}
        device.opens += 1

    def isOpened(self):
        return self.open

    def set(self, prop, value):
        self.props[prop] = value
        self.device.log.append((prop, value))
        return True

    def get(self, prop):
        return 42.0 if prop == cv2.CAP_PROP_EXPOSURE else 0.0

    def read(self):
        if not (self.open and self.device.plugged):
            return False, None
        self.device.frames += 1
        return True, frame(self.device.frames % 250)

    def release(self):
        self.open = False


class FakeDevice:
    def __init__(self):
        self.plugged = True
        self.opens = 0
        self.frames = 0
        self.last = None
        self.log = []

    def factory(self, index):
        self.last = FakeCapture(self)
        return self.last


def test_camera_asks_for_mjpg_720p_and_fixed_exposure():
    device = FakeDevice()
    CameraSource(0, capture_factory=device.factory)
    props = device.last.props
    assert props[cv2.CAP_PROP_FOURCC] == cv2.VideoWriter_fourcc(*"MJPG")
    assert props[cv2.CAP_PROP_FRAME_WIDTH] == 1280 and props[cv2.CAP_PROP_FRAME_HEIGHT] == 720
    # automatic exposure first (to find the light), then held at the value it found
    exposure_log = [(p, v) for p, v in device.log if p in (cv2.CAP_PROP_AUTO_EXPOSURE, cv2.CAP_PROP_EXPOSURE)]
    assert exposure_log == [(cv2.CAP_PROP_AUTO_EXPOSURE, 0.75), (cv2.CAP_PROP_AUTO_EXPOSURE, 0.25),
                            (cv2.CAP_PROP_EXPOSURE, 42.0)]
    assert device.frames == 15   # frames read while the exposure settled


def test_camera_unplugged_raises_then_reconnects_by_itself():
    device = FakeDevice()
    cam = CameraSource(0, retry_s=0.0, capture_factory=device.factory)
    assert cam.read().shape == (48, 64, 3)
    device.plugged = False
    with pytest.raises(CameraError, match="camera 0 stopped giving frames"):
        cam.read()
    with pytest.raises(CameraError, match="cannot be opened"):
        cam.read()
    device.plugged = True
    assert cam.read().shape == (48, 64, 3)
    assert device.opens == 3


def test_a_camera_whose_driver_raises_is_opened_again_when_it_is_back():
    # only a read that returned False gave up the handle: one that raised was read for good, and a
    # camera plugged back in never came back
    device = FakeDevice()

    class Raising(FakeCapture):
        def read(self):
            if not self.device.plugged:
                raise cv2.error("select() timeout")
            return super().read()

        def release(self):
            raise cv2.error("the device is gone")
    device.factory = lambda index: setattr(device, "last", Raising(device)) or device.last
    cam = CameraSource(0, retry_s=0.0, capture_factory=device.factory)
    device.plugged = False
    with pytest.raises(CameraError, match="camera 0 stopped giving frames \\(unplugged\\?\\): error: select"):
        cam.read()
    device.plugged = True
    assert cam.read().shape == (48, 64, 3) and device.opens == 2
    # a driver that raises while the camera is opened again: said as the camera's, its handle let go
    released = []

    class RaisingOnOpen(Raising):
        def set(self, prop, value):
            raise cv2.error("VIDIOC_S_FMT failed")

        def release(self):
            released.append(1)
    device.plugged = False
    with pytest.raises(CameraError):
        cam.read()
    device.plugged = True
    device.factory = lambda index: setattr(device, "last", RaisingOnOpen(device)) or device.last
    cam._factory = device.factory
    with pytest.raises(CameraError, match="camera 0 cannot be opened: error: .*VIDIOC_S_FMT failed"):
        cam.read()
    assert released == [1]
    # and one whose opening itself raises (at the start, the demo table was not taken instead)
    def no_device(index):
        raise cv2.error("can't open camera by index")
    cam._factory = no_device
    with pytest.raises(CameraError, match="camera 0 cannot be opened: error: .*can't open camera by index"):
        cam.read()


def test_missing_camera_is_a_clear_error():
    device = FakeDevice()
    device.plugged = False
    with pytest.raises(CameraError, match="camera 2 cannot be opened"):
        CameraSource(2, capture_factory=device.factory)
    with pytest.raises(CameraError, match="whole number"):
        CameraSource(-1)


@pytest.mark.parametrize("fixed_exposure", [True, False])
def test_a_camera_that_opens_but_gives_no_picture_is_refused_and_the_demo_is_used(monkeypatch, fixed_exposure):
    # it was taken, and the page showed a dead camera instead of the demo table
    device = FakeDevice()

    class Silent(FakeCapture):
        def read(self):
            return False, None
    device.factory = lambda index: Silent(device)
    with pytest.raises(CameraError, match="camera 0 opens but gives no picture"):
        CameraSource(0, fixed_exposure=fixed_exposure, capture_factory=device.factory)
    assert device.opens == 1
    monkeypatch.setattr(camera.cv2, "VideoCapture", device.factory)
    assert isinstance(open_source(), DemoTable)


def test_image_folder_skips_a_corrupt_file_naming_it(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.jpg").write_bytes(b"this is not a jpeg")
    cv2.imwrite(str(tmp_path / "c.png"), frame(30))
    (tmp_path / "notes.txt").write_text("ignored")
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match="'b.jpg'"):
        source.read()
    assert source.read()[0, 0, 0] == 30
    assert source.read()[0, 0, 0] == 10   # loops, and leaves the bad file out from now on
    assert source.read()[0, 0, 0] == 30


def test_image_folder_skips_a_jpeg_cut_short_and_reads_a_file_again_once_it_is_back_or_written_again(tmp_path):
    # a JPEG cut short was read as a table with its lower part grey; a file moved away a moment was
    # taken for a damaged one and left out for good (and all of them: "reconnecting" for good)
    import os
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    whole = cv2.imencode(".jpg", frame(200, size=(64, 64)))[1].tobytes()
    (tmp_path / "b.jpg").write_bytes(whole[: len(whole) // 2])
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match="'b.jpg' cannot be decoded"):
        source.read()
    assert source.read()[0, 0, 0] == 10 and source.read()[0, 0, 0] == 10  # left out while it is so
    (tmp_path / "b.jpg").write_bytes(whole)  # copied again, whole
    os.utime(tmp_path / "b.jpg", ns=(1, 10**18))
    assert abs(int(source.read()[0, 0, 0]) - 200) < 8 and source.read()[0, 0, 0] == 10
    (tmp_path / "a.png").rename(tmp_path / "a.moved")
    assert abs(int(source.read()[0, 0, 0]) - 200) < 8
    assert abs(int(source.read()[0, 0, 0]) - 200) < 8  # (the next round of the folder: not listed while gone)
    (tmp_path / "a.moved").rename(tmp_path / "a.png")
    assert source.read()[0, 0, 0] == 10 and abs(int(source.read()[0, 0, 0]) - 200) < 8


def test_a_jpeg_is_whole_with_padding_or_data_after_its_end_and_cut_with_only_its_thumbnail_ending():
    # two of the real photos carry 180 KB of zeros after the end: they were refused as cut short
    from vision.camera import _jpeg_whole
    main = cv2.imencode(".jpg", frame(120, size=(64, 64)))[1].tobytes()
    thumb = cv2.imencode(".jpg", frame(30, size=(8, 8)))[1].tobytes()
    exif = b"Exif\x00\x00" + thumb
    with_thumb = main[:2] + b"\xff\xe1" + (len(exif) + 2).to_bytes(2, "big") + exif + main[2:]
    assert _jpeg_whole(main) and _jpeg_whole(main + bytes(180_000)) and _jpeg_whole(main + b"\xff" * 50)
    assert _jpeg_whole(with_thumb) and _jpeg_whole(with_thumb + b"a phone's own trailer")
    assert not _jpeg_whole(main[: len(main) - 40]) and not _jpeg_whole(with_thumb[: len(with_thumb) - 40])
    assert not _jpeg_whole(main[:20])


def test_an_image_folder_whose_files_are_all_gone_is_a_camera_lost(tmp_path):
    # each read was a skip of one file, ten warnings a second, and the table was never said lost
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    cv2.imwrite(str(tmp_path / "b.png"), frame(20))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    (tmp_path / "a.png").unlink()
    (tmp_path / "b.png").unlink()
    with pytest.raises(CameraError, match="no image in .* can be read") as said:
        source.read()
    assert not isinstance(said.value, FrameSkipped)
    cv2.imwrite(str(tmp_path / "b.png"), frame(20))
    assert source.read()[0, 0, 0] == 20


def test_image_folder_holds_each_picture_for_frames_each_frames(tmp_path):
    # shown for one frame each, no card lasted the frames the tracker asks before it shows one:
    # `serve --images` never showed a card
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.jpg").write_bytes(b"this is not a jpeg")
    cv2.imwrite(str(tmp_path / "c.png"), frame(30))
    source = ImageFolderSource(tmp_path, realtime=False, frames_each=3)
    assert [source.read()[0, 0, 0] for _ in range(3)] == [10, 10, 10]
    with pytest.raises(FrameSkipped, match="'b.jpg'"):
        source.read()
    assert [source.read()[0, 0, 0] for _ in range(4)] == [30, 30, 30, 10]
    held = camera.open_source(images=str(tmp_path))
    assert held.frames_each == camera.IMAGE_FPS * camera.IMAGE_SECONDS >= 20


def test_cards_of_a_picture_of_a_folder_reach_the_table(tmp_path):
    from dealer.games import ZoneSpec
    from vision.live import LiveTable
    from vision.types import Detection
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))  # a picture with a card on it
    cv2.imwrite(str(tmp_path / "b.png"), frame(30))  # and one of the table bare

    class OneCard:
        def detect(self, image):
            quad = ((10, 5), (30, 5), (30, 37), (10, 37))
            return [Detection(card="pine-crane", face="pine-crane", quad=quad, confidence=0.99)] \
                if image[0, 0, 0] == 10 else []
    source = ImageFolderSource(tmp_path, fps=200, frames_each=10)
    live = LiveTable(source, OneCard(), [ZoneSpec("saki", 3, "Saki", "先"), ZoneSpec("ato", 3, "Ato", "後")])
    with live:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            cards = [c["card"] for z in live.snapshot()["zones"] for c in z["cards"]]
            if cards:
                break
            time.sleep(0.02)
    assert cards == ["pine-crane"]


def test_image_folder_errors(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        ImageFolderSource(tmp_path / "nope")
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(CameraError, match="is a file, not a folder"):
        ImageFolderSource(tmp_path / "a.txt")
    with pytest.raises(CameraError, match="is a folder, not a video"):
        VideoFileSource(tmp_path)
    # a device or a pipe exists: it was said not to (a webcam's node, given as a video)
    with pytest.raises(CameraError, match=r"video file '/dev/null' is not a regular file \(a webcam is opened with --camera N\)"):
        VideoFileSource("/dev/null")
    with pytest.raises(CameraError, match="holds no images"):
        ImageFolderSource(tmp_path)
    (tmp_path / "x.png").write_bytes(b"junk")
    (tmp_path / "y.jpg").write_bytes(b"")
    # refused at once: the page was served on a folder that could never give a frame
    with pytest.raises(CameraError, match=r"no image in .* can be read \(2 file\(s\), each corrupt or not an image\)"):
        ImageFolderSource(tmp_path, realtime=False)


def test_video_file_loops(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for v in (20, 120, 220):
        writer.write(frame(v))
    writer.release()
    source = VideoFileSource(path, realtime=False)
    values = [int(source.read()[0, 0, 0]) for _ in range(5)]
    assert [round(v, -2) for v in values] == [0, 100, 200, 0, 100]
    once = VideoFileSource(path, loop=False, realtime=False)
    for _ in range(3):
        once.read()
    with pytest.raises(CameraError, match="no more frames"):
        once.read()


def _clip(path, frames: int) -> None:
    """An MJPG video of ``frames`` frames, the n-th all of value 4n."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for n in range(frames):
        writer.write(frame(4 * n))
    writer.release()


def test_a_video_damaged_in_the_middle_is_shown_past_the_damage(tmp_path):
    # the first frame that failed was taken for the end: the video went back to its start there, and
    # the rest of it was never shown, with no word of it
    _clip(tmp_path / "clip.avi", 60)
    data = bytearray((tmp_path / "clip.avi").read_bytes())
    middle = len(data) // 2
    data[middle:middle + 2000] = np.random.default_rng(0).integers(0, 255, 2000, dtype=np.uint8).tobytes()
    (tmp_path / "damaged.avi").write_bytes(bytes(data))
    source = VideoFileSource(tmp_path / "damaged.avi", realtime=False)
    shown, said = [], []
    for _ in range(90):
        try:
            shown.append(round(int(source.read()[0, 0, 0]) / 4))
        except FrameSkipped as exc:
            said.append(str(exc))
    assert max(shown) >= 55  # (the end of the video, past the damage)
    assert said and re.fullmatch(r"video file '.*damaged.avi': frame \d+ of 60 cannot be decoded; skipped", said[0])
    assert shown.count(0) >= 2  # (and round again from its start at its end)
    source.close()


def test_a_video_whose_frame_count_runs_past_its_end_goes_round_again_at_its_end(tmp_path):
    # a container that only estimates its count: stuck at the end, it has ended (a few notices, not 50)
    _clip(tmp_path / "clip.avi", 3)
    source = VideoFileSource(tmp_path / "clip.avi", realtime=False)

    class CountTooHigh:
        def __init__(self, cap):
            self.cap = cap

        def get(self, prop):
            return 100 if prop == cv2.CAP_PROP_FRAME_COUNT else self.cap.get(prop)

        def __getattr__(self, name):
            return getattr(self.cap, name)
    source._cap = CountTooHigh(source._cap)
    shown, skipped = [], 0
    while len(shown) < 4:
        try:
            shown.append(int(source.read()[0, 0, 0]))
        except FrameSkipped:
            skipped += 1
    assert shown[3] == shown[0] and 0 < skipped <= 5


def test_a_video_whose_name_is_not_utf8_is_played_not_a_crash(tmp_path):
    # OpenCV's binding crashed the server on such a name (an old camera's, a FAT stick's): a
    # segmentation fault, nothing said. Run apart, so that a crash fails this test only.
    import subprocess
    import sys
    _clip(tmp_path / "clip.avi", 3)
    odd = os.fsdecode(bytes(tmp_path) + b"/caf\xe9.avi")
    os.rename(tmp_path / "clip.avi", odd)
    code = ("import os, sys; from vision.camera import VideoFileSource; "
            "s = VideoFileSource(sys.argv[1], realtime=False); "
            "print([int(s.read()[0, 0, 0]) for _ in range(4)]); link = s._link_dir; s.close(); "
            "print(link is not None and not os.path.exists(link))")
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code, os.fsencode(odd)],
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.returncode, done.stderr[-500:])
    shown, link_gone = done.stdout.splitlines()
    values = [int(v) for v in shown.strip("[]").split(",")]
    assert values[0] < values[1] < values[2] and values[3] == values[0] and link_gone == "True"  # (looped)


def test_video_file_errors(tmp_path):
    with pytest.raises(CameraError, match="does not exist"):
        VideoFileSource(tmp_path / "none.mp4")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(CameraError, match="bad.mp4"):
        VideoFileSource(bad, realtime=False)
    text = tmp_path / "text.png"  # OpenCV opens it as a sequence of images, of which none can be read
    text.write_text("hello")
    with pytest.raises(CameraError, match="'.*text.png' (cannot be opened|has no frame that can be read)"):
        VideoFileSource(text, realtime=False)


def test_open_source_choices(tmp_path, monkeypatch):
    with pytest.raises(CameraError, match="choose one source"):
        open_source(camera=0, demo=True)
    assert isinstance(open_source(demo=True, game="hankan"), DemoTable)

    def no_camera(index):
        raise CameraError("camera 0 cannot be opened")
    monkeypatch.setattr(camera, "CameraSource", no_camera)
    assert isinstance(open_source(), DemoTable)      # no option, no camera: the demo
    cv2.imwrite(str(tmp_path / "a.png"), frame())
    assert isinstance(open_source(images=tmp_path), ImageFolderSource)


def test_a_camera_facing_the_dealer_is_turned_to_his_view(tmp_path, monkeypatch):
    # the dealer's left end of a row is the picture's right end from a camera across the table:
    # turned by 180 degrees, the rows read left to right from his seat again (dealt order matters
    # in Kabu-Tsukuri: Shippin, Kuppin, Nobori, Kudari)
    seen = frame(0, size=(40, 60))
    seen[5:10, 50:58] = (0, 0, 255)        # a red mark at the top right, as the camera sees it
    cv2.imwrite(str(tmp_path / "a.png"), seen)
    source = open_source(images=tmp_path, rotate=180)
    assert isinstance(source, camera.RotatedSource) and source.directory == tmp_path  # (its settings show through)
    turned = source.read()
    assert turned.shape == seen.shape and tuple(turned[34, 5]) == (0, 0, 255) and not turned[5:10, 50:58].any()
    side = open_source(images=tmp_path, rotate=90).read()
    assert side.shape == (60, 40, 3) and tuple(side[53, 32]) == (0, 0, 255)
    assert open_source(images=tmp_path).read()[7, 52].tolist() == [0, 0, 255]  # 0: as it is
    with pytest.raises(CameraError, match="90, 180 or 270 degrees, not 45"):
        open_source(images=tmp_path, rotate=45)
    with pytest.raises(CameraError, match="demo table is drawn the right way up"):
        open_source(demo=True, rotate=180)


def test_a_mirroring_webcam_is_flipped_back_before_the_turn(tmp_path):
    # a webcam that mirrors its picture shows each card as its mirror image (read as another card)
    seen = frame(0, size=(40, 60))
    seen[5:10, 50:58] = (0, 0, 255)        # a red mark at the top right, as the camera sees it
    cv2.imwrite(str(tmp_path / "a.png"), seen)
    flipped = open_source(images=tmp_path, mirror=True)
    assert isinstance(flipped, camera.RotatedSource) and flipped.mirror and flipped.degrees == 0
    got = flipped.read()
    assert got.shape == seen.shape and tuple(got[7, 5]) == (0, 0, 255) and not got[5:10, 50:58].any()
    both = open_source(images=tmp_path, mirror=True, rotate=90).read()  # flipped first, then turned
    assert both.shape == (60, 40, 3) and tuple(both[5, 32]) == (0, 0, 255)
    with pytest.raises(CameraError, match="demo table is drawn unmirrored"):
        open_source(demo=True, mirror=True)

    class Gone:
        closed = False

        def read(self):
            raise CameraError("camera 0 stopped giving frames (unplugged?)")

        def close(self):
            self.closed = True
    gone = Gone()
    turned_gone = camera.RotatedSource(gone, 270)
    with pytest.raises(CameraError, match="unplugged"):  # the source's own error, for the banner
        turned_gone.read()
    turned_gone.close()
    assert gone.closed


class ScriptedSource:
    """Frames, with CameraErrors where the script says 'gone'."""

    def __init__(self, script):
        self.script = list(script)
        self.closed = False

    def read(self):
        time.sleep(0.002)
        item = self.script.pop(0) if self.script else "frame"
        if item == "gone":
            raise CameraError("camera 0 stopped giving frames (unplugged?)")
        if item == "skip":  # a damaged picture in a folder
            raise FrameSkipped("image 'new.png' cannot be decoded (corrupt or not an image); skipped")
        if item == "empty":  # a driver that hands back a frame of no pixels
            return np.zeros((0, 0, 3), np.uint8)
        if item == "16-bit":  # a camera set to 16 bits a channel
            return frame(len(self.script) % 256).astype(np.uint16) * 257
        return frame(len(self.script) % 256)

    def close(self):
        self.closed = True


def wait_until(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.005)
    return False


def test_grabber_keeps_only_the_newest_frame_and_stops_cleanly():
    source = ScriptedSource(["frame"] * 50)
    grabber = FrameGrabber(source).start()
    try:
        first = grabber.newest(after=0, timeout=20)
        assert first is not None
        # asked again for a frame after the first, it gives the newest one: frames in between were
        # dropped, not queued (a queue would keep answering with the frame right after the first)
        assert wait_until(lambda: grabber.newest(after=first[0], timeout=1)[0] > first[0] + 1)
    finally:
        grabber.stop()
    assert source.closed
    assert grabber.newest(after=10**9, timeout=0.1) is None


def test_grabber_reports_lost_then_recovers():
    source = ScriptedSource(["frame"] * 3 + ["gone"] * 4 + ["frame"] * 1000)
    grabber = FrameGrabber(source, retry_s=0.01, max_retry_s=0.02)
    statuses = []
    grabber.start()
    assert wait_until(lambda: statuses.append(grabber.status()) or statuses[-1].camera != "ok")
    assert wait_until(lambda: statuses.append(grabber.status()) or
                      (statuses[-1].camera == "ok" and len(source.script) < 990))
    grabber.stop()
    bad = [s for s in statuses if s.camera != "ok"]
    assert bad and all("unplugged" in s.error for s in bad)
    assert {s.camera for s in bad} <= {"lost", "reconnecting"}
    assert statuses[-1].error is None


@pytest.mark.parametrize("bad, said", [
    # an empty frame passed as a good one: the detector then failed on it, and the video could not be
    # drawn; a 16-bit one the detector refused, and the page's picture answered 500
    ("empty", "an empty frame"),
    ("16-bit", "not 8-bit (uint16)"),
])
def test_a_frame_that_is_no_8_bit_picture_is_a_camera_problem_not_a_frame(bad, said):
    source = ScriptedSource(["frame"] * 3 + [bad] * 6 + ["frame"] * 1000)
    grabber = FrameGrabber(source, retry_s=0.01, max_retry_s=0.02)
    statuses = []
    grabber.start()
    try:
        assert wait_until(lambda: statuses.append(grabber.status()) or statuses[-1].camera != "ok")
        assert statuses[-1].camera == "lost" and said in statuses[-1].error
        assert wait_until(lambda: grabber.status().camera == "ok")
        got = grabber.newest(after=0, timeout=1)
        assert got is not None and got[1].size > 0 and got[1].dtype == np.uint8
    finally:
        grabber.stop()


def test_a_frame_skipped_while_the_source_is_lost_is_no_source_back():
    # said "ok", the page showed the picture from before the loss as live (undimmed, outlined)
    source = ScriptedSource(["frame"] * 3 + ["gone"] * 2 + ["skip"] + ["gone"] * 2 + ["frame"] * 1000)
    grabber = FrameGrabber(source, retry_s=0.01, max_retry_s=0.02)
    said = []
    grabber.on_status = said.append
    grabber.start()
    try:
        assert wait_until(lambda: len(source.script) < 990 and grabber.status().camera == "ok")
    finally:
        grabber.stop()
    lost = next(k for k, s in enumerate(said) if s.camera != "ok")
    skipped = next(k for k, s in enumerate(said) if s.error and "new.png" in s.error)
    assert lost < skipped and said[skipped].camera == "reconnecting"
    assert all(s.camera != "ok" for s in said[lost:skipped + 1])


def test_grabber_shows_a_skipped_frame_but_stays_ok(tmp_path):
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.png").write_bytes(b"junk")
    grabber = FrameGrabber(ImageFolderSource(tmp_path, realtime=False), notice_s=30).start()
    assert wait_until(lambda: grabber.status().error is not None)
    status = grabber.status()
    grabber.stop()
    assert status.camera == "ok" and "b.png" in status.error


def test_a_grabber_stopped_in_a_hung_read_is_not_started_beside_it():
    # stop() gave up on the hung thread and start() began a second: two threads read one camera
    release = threading.Event()

    class Hanging:
        def __init__(self):
            self.reading = 0

        def read(self):
            self.reading += 1
            release.wait(10)
            return frame(1)

        def close(self):
            pass
    source = Hanging()
    grabber = FrameGrabber(source).start()
    time.sleep(0.05)
    grabber.stop(timeout=0.1)
    with pytest.raises(CameraError, match="still in a read that has not returned"):
        grabber.start()
    assert source.reading == 1
    release.set()
    deadline = time.monotonic() + 5
    while grabber._thread is not None and grabber._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    grabber.start()  # the read returned: it starts again, one thread
    grabber.stop()


def test_a_damaged_image_in_a_folder_is_said_skipped_in_our_words_alone(tmp_path, capfd):
    # libpng wrote its own line at start-up and again when the capture thread came to the file
    cv2.imwrite(str(tmp_path / "b.png"), np.random.default_rng(0).integers(0, 256, (48, 64, 3), dtype=np.uint8))
    (tmp_path / "a.png").write_bytes((tmp_path / "b.png").read_bytes()[:-20])  # a PNG cut short
    source = ImageFolderSource(tmp_path, realtime=False)
    with pytest.raises(FrameSkipped, match="image 'a.png' cannot be decoded"):
        source.read()
    assert source.read().shape == (48, 64, 3)
    err = capfd.readouterr().err
    assert "libpng" not in err and "ERROR" not in err, err


def test_every_real_photo_is_read_whole():
    # two of them carry 180 KB of zeros after their end: a folder of such photos was refused
    from datasets.shared import shared_dir
    from vision.camera import _read_image
    root = shared_dir()
    if root is None or not (root / "photos-dev").is_dir():
        pytest.skip("needs ../shared/photos-dev (the labelled real photos), which is not present")
    photos = [p for p in sorted((root / "photos-dev").iterdir()) if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    assert photos and [p.name for p in photos if _read_image(p) is None] == []


def _damaged_inside(data: bytes) -> bytes:
    """A JPEG with a block of its picture data overwritten by other bytes: it still ends as a JPEG
    should. (A block of zeros may decode without a word from the decoder: that is not caught.)"""
    middle = len(data) // 2
    block = bytes(np.random.default_rng(1).integers(0, 256, 400, dtype=np.uint8))
    return data[:middle] + block + data[middle + 400:]


def test_a_jpeg_damaged_inside_its_picture_data_is_not_a_picture(tmp_path, capfd):
    # it ends as a JPEG should, so it passed as whole; decoded grey or shifted, it was read as a table
    from vision.camera import decode_picture
    scene = np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8)
    scene = cv2.GaussianBlur(scene, (9, 9), 3)
    whole = cv2.imencode(".jpg", scene)[1].tobytes()
    assert decode_picture(whole).shape == (240, 320, 3)
    assert decode_picture(_damaged_inside(whole)) is None
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.jpg").write_bytes(_damaged_inside(whole))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match="'b.jpg' cannot be decoded"):
        source.read()
    assert "Corrupt JPEG" not in capfd.readouterr().err  # (said in our words, not libjpeg's)


def _png_header(width: int, height: int) -> bytes:
    """A PNG's signature and header chunk (no picture data): all a size check may read."""
    import struct
    import zlib
    body = b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + body + struct.pack(">I", zlib.crc32(body))


def _tiff_header(width: int, height: int, order: str = "<") -> bytes:
    """A TIFF's header and first directory (width a LONG, height a SHORT; no picture data)."""
    import struct
    entries = [(256, 4, width), (257, 3, height)]
    body = struct.pack(order + "H", len(entries)) + b"".join(
        struct.pack(order + "HHI", tag, kind, 1) +
        (struct.pack(order + "HH", value, 0) if kind == 3 else struct.pack(order + "I", value))
        for tag, kind, value in entries)
    return (b"II*\x00" if order == "<" else b"MM\x00*") + struct.pack(order + "I", 8) + body + b"\x00" * 4


def _bigtiff(grey: np.ndarray) -> bytes:
    """A BigTIFF (8-byte offsets; OpenCV decodes it, none of its encoders writes it) of a grey picture,
    uncompressed, in one strip."""
    import struct
    h, w = grey.shape
    entries = [(256, 16, w), (257, 3, h), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 16, None),
               (277, 3, 1), (278, 3, h), (279, 16, w * h)]
    start = 16 + 8 + 20 * len(entries) + 8  # (the picture's bytes follow the one directory)
    ifd = struct.pack("<Q", len(entries)) + b"".join(
        struct.pack("<HHQQ", tag, kind, 1, start if value is None else value) for tag, kind, value in entries)
    return b"II+\x00" + struct.pack("<HHQ", 8, 0, 16) + ifd + struct.pack("<Q", 0) + grey.tobytes()


def test_a_pictures_size_is_read_from_its_header_for_png_jpeg_bmp_webp_and_tiff():
    from vision.camera import picture_dimensions
    scene = np.zeros((37, 53, 3), np.uint8)
    for suffix in (".png", ".jpg", ".bmp", ".tif"):
        assert picture_dimensions(cv2.imencode(suffix, scene)[1].tobytes()) == (53, 37), suffix
    # WebP: lossless (VP8L), lossy (VP8) and, with transparency, extended (VP8X)
    noise = np.random.default_rng(0).integers(0, 255, (37, 53, 4), dtype=np.uint8)
    for picture, quality, chunk in ((scene, 101, b"VP8L"), (noise[..., :3], 80, b"VP8 "), (noise, 80, b"VP8X")):
        webp = cv2.imencode(".webp", picture, [cv2.IMWRITE_WEBP_QUALITY, quality])[1].tobytes()
        assert webp[12:16] == chunk and picture_dimensions(webp) == (53, 37), chunk
    assert picture_dimensions(_tiff_header(20000, 9000, ">")) == (20000, 9000)  # (a big-endian TIFF)
    assert picture_dimensions(_bigtiff(np.zeros((37, 53), np.uint8))) == (53, 37)
    assert picture_dimensions(_tiff_header(20000, 9000)[:20]) is None  # (its directory cut short)
    # a JPEG's frame header is found past an Exif segment that holds a thumbnail of another size
    jpeg = cv2.imencode(".jpg", scene)[1].tobytes()
    thumb = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    app1 = b"Exif\x00\x00" + thumb
    with_exif = jpeg[:2] + b"\xff\xe1" + (len(app1) + 2).to_bytes(2, "big") + app1 + jpeg[2:]
    assert cv2.imdecode(np.frombuffer(with_exif, np.uint8), cv2.IMREAD_COLOR).shape == (37, 53, 3)
    assert picture_dimensions(with_exif) == (53, 37)
    assert picture_dimensions(b"\xff\xd8\xff") is None


def test_a_picture_too_large_to_decode_is_refused_by_its_size_not_said_corrupt(tmp_path):
    # a 32000 x 32000 PNG was decoded (6 GB of memory), and running out was said as a corrupt file
    from vision.camera import decode_picture, picture_too_large
    huge = _png_header(32000, 32000)
    assert picture_too_large(huge) == "32000 x 32000 pixels, too large to decode (at most 100 million pixels)"
    assert decode_picture(huge) is None
    assert picture_too_large(_png_header(4000, 3000)) is None
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.png").write_bytes(huge)
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match=r"'b.png' 32000 x 32000 pixels, too large to decode .*; skipped"):
        source.read()


def test_a_webp_or_tiff_too_large_is_refused_by_its_size_as_a_png_is(tmp_path):
    # only PNG, JPEG and BMP were held to the limit: a 16383 x 16383 WebP (268 million pixels) was
    # decoded whole
    from vision.camera import decode_picture, picture_too_large
    webp = cv2.imencode(".webp", np.zeros((37, 53, 3), np.uint8), [cv2.IMWRITE_WEBP_QUALITY, 101])[1].tobytes()
    bits = (16383 - 1) | (16383 - 1) << 14 | int.from_bytes(webp[21:25], "little") & ~((1 << 28) - 1)
    huge_webp = webp[:21] + bits.to_bytes(4, "little") + webp[25:]
    assert picture_too_large(huge_webp) == ("16383 x 16383 pixels, too large to decode "
                                            "(at most 100 million pixels)")
    assert decode_picture(huge_webp) is None
    assert picture_too_large(_tiff_header(20000, 9000)).startswith("20000 x 9000 pixels, too large")
    small = _bigtiff(np.arange(37 * 53, dtype=np.uint32).astype(np.uint8).reshape(37, 53))
    assert decode_picture(small).shape == (37, 53, 3)  # (a BigTIFF is read, as OpenCV reads it)
    huge_bigtiff = small[:16 + 8 + 12] + (3_000_000).to_bytes(8, "little") + small[16 + 8 + 20:]
    assert picture_too_large(huge_bigtiff).startswith("3000000 x 37 pixels, too large")
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    (tmp_path / "b.tif").write_bytes(_tiff_header(20000, 9000))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match=r"'b.tif' 20000 x 9000 pixels, too large to decode .*; skipped"):
        source.read()


def test_a_jpeg_too_large_is_said_so_with_its_frame_header_past_the_first_256_kb(tmp_path):
    # a phone's JPEG with more than 256 KB of Exif, colour profile and preview before its frame header:
    # only the first 256 KB were looked at when the folder said why it was skipped ("corrupt")
    jpeg = cv2.imencode(".jpg", frame(10))[1].tobytes()
    app2 = b"\xff\xe2" + (65535).to_bytes(2, "big") + b"\x00" * 65533
    sof = jpeg.find(b"\xff\xc0")
    huge = bytearray(jpeg[:2] + app2 * 5 + jpeg[2:])
    at = sof + len(app2) * 5
    huge[at + 5:at + 9] = (12000).to_bytes(2, "big") + (12000).to_bytes(2, "big")
    cv2.imwrite(str(tmp_path / "a.png"), frame(20))
    (tmp_path / "b.jpg").write_bytes(bytes(huge))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 20
    with pytest.raises(FrameSkipped, match=r"'b.jpg' 12000 x 12000 pixels, too large to decode .*; skipped"):
        source.read()


def test_an_image_folder_leaves_out_a_file_too_large_for_a_picture_by_name(tmp_path):
    # a 40 GB file in the folder was read whole: the page did not start (a MemoryError's traceback),
    # or, added while it ran, said the camera lost, the file never named
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    with open(tmp_path / "b.tif", "wb") as f:
        f.truncate(300 * 2**20)  # (sparse: no disk taken)
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match=r"'b.tif' 300 MB, too large for a picture of the table "
                                           r"\(at most 256 MB\); skipped"):
        source.read()
    (tmp_path / "a.png").unlink()
    with pytest.raises(CameraError, match=r"each corrupt, not an image or too large; 'b.tif': 300 MB, too large"):
        ImageFolderSource(tmp_path, realtime=False)


def test_a_picture_of_signed_integers_is_skipped_by_name_not_shown_as_the_camera_lost(tmp_path):
    from vision.camera import decode_picture
    assert cv2.imwrite(str(tmp_path / "s.tif"), np.full((32, 48), -5, np.int16))
    assert decode_picture((tmp_path / "s.tif").read_bytes()) is None
    cv2.imwrite(str(tmp_path / "a.png"), frame(10))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    with pytest.raises(FrameSkipped, match=r"'s.tif' cannot be decoded \(corrupt or not an image\); skipped"):
        source.read()


def test_a_folder_of_pictures_only_too_large_says_so_not_corrupt(tmp_path):
    (tmp_path / "b.png").write_bytes(_png_header(32000, 32000))
    with pytest.raises(CameraError, match=r"\(1 file\(s\), each corrupt, not an image or too large; 'b.png': "
                                          r"32000 x 32000 pixels, too large to decode"):
        ImageFolderSource(tmp_path, realtime=False)


def test_a_floating_point_picture_is_not_read_as_a_dark_table_and_sixteen_bits_are_read(tmp_path):
    # a PFM of values 0..1 was decoded near black and read as a table with no cards
    from vision.camera import decode_picture
    light = np.full((32, 48, 3), 0.8, np.float32)
    assert cv2.imwrite(str(tmp_path / "f.pfm"), light)
    assert decode_picture((tmp_path / "f.pfm").read_bytes()) is None
    deep = np.full((32, 48, 3), 200 * 257, np.uint16)
    assert cv2.imwrite(str(tmp_path / "d.png"), deep)
    got = decode_picture((tmp_path / "d.png").read_bytes())
    assert got.dtype == np.uint8 and got[0, 0, 0] == 200


def test_an_image_folder_shows_files_added_and_comes_back_when_filled_again_under_new_names(tmp_path):
    # the files were listed once: a file added was never shown, and a folder emptied and filled again
    # was said to hold no readable image until the server was started again
    cv2.imwrite(str(tmp_path / "shot-1.png"), frame(10))
    source = ImageFolderSource(tmp_path, realtime=False)
    assert source.read()[0, 0, 0] == 10
    cv2.imwrite(str(tmp_path / "shot-2.png"), frame(20))
    assert [source.read()[0, 0, 0] for _ in range(3)] == [10, 20, 10]
    (tmp_path / "shot-2.png").unlink()
    with pytest.raises(FrameSkipped, match="'shot-2.png' is gone from the folder"):
        source.read()  # (gone in the middle of a round of the folder: skipped, then no longer listed)
    (tmp_path / "shot-1.png").unlink()
    cv2.imwrite(str(tmp_path / "shot-3.png"), frame(30))
    reads = []
    for _ in range(4):
        try:
            reads.append(int(source.read()[0, 0, 0]))
        except FrameSkipped:
            reads.append(None)
    assert reads[-2:] == [30, 30], reads
    import shutil
    shutil.rmtree(tmp_path)  # the folder itself taken away
    with pytest.raises(CameraError, match="image folder .* is gone"):
        for _ in range(3):
            source.read()


def test_a_jpeg_damaged_inside_is_refused_with_standard_error_closed_too(tmp_path):
    # with nowhere to hear the decoder, the damaged picture was taken as a table (a service started
    # with its standard error closed)
    import subprocess
    import sys
    from pathlib import Path
    scene = cv2.GaussianBlur(np.random.default_rng(0).integers(0, 256, (240, 320, 3), dtype=np.uint8), (9, 9), 3)
    whole = cv2.imencode(".jpg", scene)[1].tobytes()
    (tmp_path / "damaged.jpg").write_bytes(_damaged_inside(whole))
    (tmp_path / "whole.jpg").write_bytes(whole)
    # (and standard error left closed after, as it was found)
    code = ("import os, sys; os.close(2); from vision.camera import decode_picture; "
            "print([decode_picture(open(p, 'rb').read()) is None for p in sys.argv[1:]]); "
            "closed = True\ntry:\n    os.fstat(2); closed = False\nexcept OSError:\n    pass\n"
            "print('ok' if closed else 'left-open')")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "damaged.jpg"), str(tmp_path / "whole.jpg")],
                         capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert out.stdout.split() == ["[True,", "False]", "ok"], (out.stdout, out.stderr)


def test_a_file_found_damaged_at_the_start_is_read_at_its_turn_once_written_whole(tmp_path):
    # one still being copied when the folder was opened was left out for good, said corrupt
    import os
    whole = cv2.imencode(".png", frame(10, size=(64, 64)))[1].tobytes()
    (tmp_path / "a.png").write_bytes(whole[:-20])
    cv2.imwrite(str(tmp_path / "b.png"), frame(200))
    source = ImageFolderSource(tmp_path, realtime=False)
    (tmp_path / "a.png").write_bytes(whole)
    os.utime(tmp_path / "a.png", ns=(1, 10**18))
    assert source.read()[0, 0, 0] == 10 and source.read()[0, 0, 0] == 200
    # (one still damaged at its turn is said skipped, as before)
    (tmp_path / "c.png").write_bytes(whole[:-20])
    again = ImageFolderSource(tmp_path, realtime=False)
    assert again.read()[0, 0, 0] == 10 and again.read()[0, 0, 0] == 200
    with pytest.raises(FrameSkipped, match="'c.png' cannot be decoded"):
        again.read()


def test_a_source_whose_name_is_not_utf8_is_said_with_its_byte_escaped(tmp_path):
    # the message wrote Python's stand-in, caf\udce9, where recognise wrote caf\xe9
    from vision.camera import CameraError, ImageFolderSource, VideoFileSource
    odd = os.fsdecode(bytes(tmp_path) + b"/caf\xe9")
    for make in (lambda: VideoFileSource(odd + ".avi", realtime=False), lambda: ImageFolderSource(odd)):
        with pytest.raises(CameraError) as raised:
            make()
        assert "caf\\xe9" in str(raised.value) and "udce9" not in str(raised.value), str(raised.value)
