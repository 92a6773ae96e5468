"""Frame sources: a webcam, a video file, a folder of images or the built-in demo table.

Every source has ``read() -> np.ndarray`` (a BGR uint8 frame) and ``close()``. ``read`` raises
``CameraError`` with a message for the dealer when no frame can be had; a source that can recover
(a camera plugged back in) does so on a later ``read``. ``FrameGrabber`` runs one source in one
background thread and keeps only the newest frame, so a slow detector never falls behind the table.
"""
from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

import cv2
import numpy as np

from hanadealer.text import shown_text

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


def _quoted(name: str) -> str:
    """A file's name in a message, quoted; bytes that are not UTF-8 as \\xe9 (as recognise says them),
    not the \\udce9 a repr wrote."""
    return f"'{shown_text(str(name))}'"


class CameraError(RuntimeError):
    """No frame can be had from the source; the message names the source and the problem."""


class FrameSkipped(CameraError):
    """One frame could not be used (e.g. a corrupt image file); the source goes on with the next."""


class FrameSource(Protocol):
    def read(self) -> np.ndarray: ...

    def close(self) -> None: ...


class FramePacer:
    """Sleeps so that successive frames are at most ``fps`` per second (files and the demo would
    otherwise run as fast as the CPU allows)."""

    def __init__(self, fps: float | None):
        self.period = 1.0 / fps if fps and fps > 0 else 0.0
        self.next_time = 0.0

    def wait(self) -> None:
        if not self.period:
            return
        now = time.monotonic()
        if self.next_time > now:
            time.sleep(self.next_time - now)
            now = self.next_time
        # never try to catch up after a stall: that would make a burst of frames
        self.next_time = max(self.next_time + self.period, now)


class CameraSource:
    """A webcam through OpenCV: MJPG at 1280x720, fixed exposure where the driver allows it.

    When the camera stops giving frames (unplugged), ``read`` raises ``CameraError``; each later
    ``read`` tries to open it again (at most every ``retry_s`` seconds), so it comes back by itself
    when plugged back in. ``capture_factory`` exists for tests (a fake ``cv2.VideoCapture``).
    """

    def __init__(self, index: int = 0, width: int = 1280, height: int = 720,
                 fixed_exposure: bool = True, retry_s: float = 1.0, settle_frames: int = 15,
                 capture_factory: Callable[[int], object] | None = None):
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise CameraError(f"camera index must be a whole number >= 0, not {index!r}")
        self.index = index
        self.width = width
        self.height = height
        self.fixed_exposure = fixed_exposure
        self.retry_s = retry_s
        self.settle_frames = settle_frames
        self._factory = capture_factory or cv2.VideoCapture
        self._cap = None
        self._last_try = -1e9
        self._open()

    @property
    def name(self) -> str:
        return f"camera {self.index}"

    def _open(self) -> None:
        self._last_try = time.monotonic()
        cap = None
        try:
            cap = self._factory(self.index)  # (a driver may raise here too)
            if not cap.isOpened():
                raise CameraError(f"{self.name} cannot be opened (is it plugged in and free?)")
            cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # we want the newest frame, not a queue of old ones
            # a camera that opens but gives no picture (held by another program) was taken, and served
            # as a dead camera instead of falling back to the demo
            if not (self._fix_exposure(cap) if self.fixed_exposure else cap.read()[0]):
                raise CameraError(f"{self.name} opens but gives no picture (is another program using it?)")
        except Exception as exc:
            # (each try left its handle open, and a driver's own error was said bare)
            try:
                if cap is not None:
                    cap.release()
            except Exception:
                pass
            if isinstance(exc, CameraError):
                raise
            raise CameraError(f"{self.name} cannot be opened: {type(exc).__name__}: "
                              f"{' '.join(str(exc).split())[:120]}") from None
        self._cap = cap

    def _fix_exposure(self, cap) -> bool:
        """Let the camera's automatic exposure find the table's light, then hold it there, so
        the picture does not pump when a hand or a dark card enters. V4L2 reads 0.75 as automatic
        and 0.25 as manual exposure; drivers that cannot do it ignore the request. False when the
        camera gives no frame at all."""
        cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.75)
        for i in range(max(1, self.settle_frames)):
            if not cap.read()[0]:
                return i > 0  # read() will report a camera that stopped after its first frames
        exposure = cap.get(cv2.CAP_PROP_EXPOSURE)
        cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25)
        if exposure and exposure > 0:
            cap.set(cv2.CAP_PROP_EXPOSURE, exposure)
        cap.set(cv2.CAP_PROP_AUTO_WB, 0)  # steady colours too: the classifier reads colour
        return True

    def read(self) -> np.ndarray:
        if self._cap is None:
            wait = self.retry_s - (time.monotonic() - self._last_try)
            if wait > 0:
                time.sleep(wait)
            self._open()  # raises CameraError while the camera is still away
        try:
            ok, frame = self._cap.read()
            error = None
        except Exception as exc:  # (a driver's own error: kept, its dead handle was read for good)
            ok, frame, error = False, None, exc
        if not ok or frame is None or frame.size == 0:
            try:
                self._cap.release()
            except Exception:  # (a handle that died raising may raise again: it is given up all the same)
                pass
            self._cap = None
            self._last_try = time.monotonic()
            said = f": {type(error).__name__}: {' '.join(str(error).split())[:120]}" if error else ""
            raise CameraError(f"{self.name} stopped giving frames (unplugged?){said}")
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class VideoFileSource:
    """Frames of a video file, at the file's own frame rate (or ``fps``), looping by default."""

    def __init__(self, path: str | Path, loop: bool = True, fps: float | None = None,
                 realtime: bool = True):
        self.path = Path(path)
        self.loop = loop
        if not self.path.is_file():
            raise CameraError(f"video file {_quoted(str(self.path))} " + (
                "is a folder, not a video" if self.path.is_dir() else
                # a device or a pipe: a webcam's node is opened by its number (--camera N)
                "is not a regular file (a webcam is opened with --camera N)" if self.path.exists() else
                "does not exist"))
        # (a file that is no video is said once, below, not by FFmpeg too, nor by a demuxer's own
        # line on the process's stderr: a damaged AVI printed one, with a raw byte in it)
        self._link_dir: str | None = None
        self._opened_as = self._openable_name()
        with _quiet_opencv(), stderr_silenced():
            self._cap = cv2.VideoCapture(self._opened_as)
            opened = self._cap.isOpened()
            # the first frame read now: OpenCV "opens" a text file named .png as an image sequence,
            # and the page was served on a source that could never give a frame
            ok, first = self._cap.read() if opened else (False, None)
        if not opened:
            self._forget_link()
            raise CameraError(f"video file {_quoted(str(self.path))} cannot be opened (not a video?)")
        if not ok or first is None:
            self._cap.release()
            self._forget_link()
            raise CameraError(f"video file {_quoted(str(self.path))} has no frame that can be read (not a video?)")
        self._first: np.ndarray | None = first
        file_fps = self._cap.get(cv2.CAP_PROP_FPS) or 0.0
        self._pacer = FramePacer((fps or file_fps or 25.0) if realtime else None)
        self.frame_period = self._pacer.period  # (seconds between frames: a slow one is no hang)
        self._frames = 0
        self._failed_in_a_row = 0
        self._failed_at, self._stuck = None, 0  # (where the last read failed, and how often there)

    def _openable_name(self) -> str:
        """The name OpenCV is given: the file's own, or, where that is not UTF-8 (an old camera's, a
        FAT stick's "caf\xe9.avi"), a link of a plain name to it: OpenCV's binding crashed the whole
        server on such a name (a segmentation fault, nothing said)."""
        name = str(self.path)
        try:
            name.encode("utf-8")
            return name
        except UnicodeEncodeError:
            pass
        self._link_dir = tempfile.mkdtemp(prefix="hanadealer-video-")
        suffix = self.path.suffix.encode("ascii", "replace").decode("ascii").replace("?", "")
        link = os.path.join(self._link_dir, "video" + suffix)
        try:
            os.symlink(os.fsencode(self.path.resolve()), os.fsencode(link))
        except OSError as exc:
            self._forget_link()
            raise CameraError(f"video file {_quoted(str(self.path))} cannot be opened under its name, which is "
                              f"not UTF-8 ({exc.strerror or exc}): rename it") from None
        return link

    def _forget_link(self) -> None:
        if self._link_dir is not None:
            shutil.rmtree(self._link_dir, ignore_errors=True)
            self._link_dir = None

    def read(self) -> np.ndarray:
        self._pacer.wait()
        if self._first is not None:
            frame, self._first = self._first, None
            self._frames += 1
            return frame
        ok, frame = self._cap.read()
        if not ok:
            # a frame damaged inside the file (a failing card's copy) is skipped, not taken for the
            # end: the video went back to its start there, and the rest of it was never shown
            at = self._cap.get(cv2.CAP_PROP_POS_FRAMES) or 0
            count = self._cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0
            # (a count the container only estimates may run past the last frame: stuck at one place,
            # the file has ended)
            self._stuck = self._stuck + 1 if at == self._failed_at else 0
            self._failed_at = at
            if 0 < at < count - 1 and self._failed_in_a_row < MAX_BAD_VIDEO_FRAMES and self._stuck < 5:
                self._failed_in_a_row += 1
                raise FrameSkipped(f"video file {_quoted(str(self.path))}: frame {int(at) + 1} of {int(count)} "
                                   f"cannot be decoded; skipped")
            self._failed_in_a_row, self._failed_at, self._stuck = 0, None, 0
            if not self.loop or self._frames == 0:
                raise CameraError(f"video file {_quoted(str(self.path))} has no more frames"
                                  if self._frames else f"video file {_quoted(str(self.path))} has no frames")
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._cap.read()
            if not ok:  # some containers cannot seek: open again
                self._cap.release()
                self._cap = cv2.VideoCapture(self._opened_as)
                ok, frame = self._cap.read()
            if not ok:
                raise CameraError(f"video file {_quoted(str(self.path))} cannot be read again from the start")
        self._frames += 1
        self._failed_in_a_row = 0
        return frame

    def close(self) -> None:
        self._cap.release()
        self._forget_link()


MAX_BAD_VIDEO_FRAMES = 50  # damaged frames in a row skipped before the video is taken to have ended
IMAGE_FPS, IMAGE_SECONDS = 10, 3  # serve --images: each picture as 3 seconds of frames at 10 a second


class ImageFolderSource:
    """The images of a folder in name order, each given as ``frames_each`` frames of 1/``fps`` s,
    looping by default.

    A file that cannot be decoded (a JPEG cut short too: OpenCV gives it grey where it ends) raises
    ``FrameSkipped`` naming it once; the next ``read`` goes on with the next image, and the file is
    left out until it is written again. A file gone is skipped while it is gone.
    """

    def __init__(self, directory: str | Path, fps: float = 2.0, loop: bool = True,
                 realtime: bool = True, frames_each: int = 1):
        self.directory = Path(directory)
        if not self.directory.is_dir():
            raise CameraError(f"image folder {_quoted(str(self.directory))} " +
                              ("is a file, not a folder" if self.directory.exists() else "does not exist"))
        self.files = self._listed()
        if not self.files:
            raise CameraError(f"image folder {_quoted(str(self.directory))} holds no images "
                              f"({', '.join(IMAGE_SUFFIXES)})")
        # one image that decodes, or the page was served on a folder that could never give a frame
        # (those found damaged before it are not decoded again in the capture thread, where libpng
        # would say so once more in its own words: they are said skipped, in ours, when their turn comes)
        # (with the size and time they had: one written whole since, still being copied then, is read)
        self._found_bad: dict[Path, tuple | None] = {}
        readable = False
        with _quiet_opencv():
            for p in self.files:
                if _decodes(p):
                    readable = True
                    break
                self._found_bad[p] = _stamp(p)
        if not readable:
            # (a folder of pictures only too large was said corrupt)
            large = [f"{_quoted(p.name)}: {said}" for p in self.files if (said := _too_large(p))]
            raise CameraError(f"no image in {_quoted(str(self.directory))} can be read ({len(self.files)} file(s), "
                              + (f"each corrupt, not an image or too large; {large[0]})" if large
                                 else "each corrupt or not an image)"))
        self.loop = loop
        self._pos = 0
        self._bad: dict[Path, tuple] = {}  # a file that did not decode -> its size and time then
        self._pacer = FramePacer(fps if realtime else None)
        self.frame_period = self._pacer.period  # (seconds between frames: a slow one is no hang)
        self.frames_each = max(1, int(frames_each))
        self._held: tuple[np.ndarray, int] | None = None  # (the picture, frames of it still to give)

    def _listed(self) -> list[Path]:
        try:
            return sorted(p for p in self.directory.iterdir()
                          if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
        except OSError:  # (the folder itself gone: no file in it, said so by the caller)
            return []

    def read(self) -> np.ndarray:
        self._pacer.wait()
        if self._held is not None and self._held[1] > 0:
            frame, left = self._held
            self._held = (frame, left - 1)
            return frame.copy()
        while True:
            if self._pos >= len(self.files):
                if not self.loop:
                    raise CameraError(f"image folder {_quoted(str(self.directory))} has no more images")
                self._pos = 0
                # listed again at each round: a file added since is shown, and a folder emptied and
                # filled again under new names comes back (it was said to hold no readable image)
                self.files = self._listed() or self.files
            # (every file gone, or damaged as it was: the camera is said lost, not a skip each frame)
            if all(_stamp(p) is None or self._bad.get(p) == _stamp(p) for p in self.files):
                if not self.directory.is_dir():  # (said as a folder with no readable image)
                    raise CameraError(f"image folder {_quoted(str(self.directory))} is gone")
                fresh = self._listed()
                if fresh and fresh != self.files:
                    self.files, self._pos = fresh, 0
                    continue
                raise CameraError(f"no image in {_quoted(str(self.directory))} can be read")
            path = self.files[self._pos]
            self._pos += 1
            stamp = _stamp(path)
            if stamp is None:  # (moved away a moment, or being written: not damaged for good)
                raise FrameSkipped(f"image {_quoted(path.name)} is gone from the folder; skipped")
            if self._bad.get(path) == stamp:
                continue
            frame = None if self._found_bad.pop(path, None) == stamp else _read_image(path)
            if frame is None:
                self._bad[path] = stamp
                raise FrameSkipped(f"image {_quoted(path.name)} " + (_too_large(path) or
                                   "cannot be decoded (corrupt or not an image)") + "; skipped")
            self._bad.pop(path, None)
            self._held = (frame, self.frames_each - 1)
            return frame.copy() if self.frames_each > 1 else frame

    def close(self) -> None:
        pass


@contextlib.contextmanager
def stderr_silenced():
    """The process's standard error (the file, not sys.stderr: C libraries write to it) sent to the
    void for the block, on the main thread only (a server's other threads may have something to say)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no standard error to put back
        yield
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _decodes(path: Path) -> bool:
    with stderr_silenced():  # (libpng's own line about a damaged file: ours names it)
        return _read_image(path) is not None


def _too_large(path: Path) -> str | None:
    try:
        size = path.stat().st_size
        if size > MAX_PICTURE_BYTES:
            return (f"{size // 2**20} MB, too large for a picture of the table "
                    f"(at most {MAX_PICTURE_BYTES // 2**20} MB)")
        with open(path, "rb") as f:
            # (whole, as the decoder was given it: a phone's JPEG may put its frame header after more
            # than 256 KB of Exif, colour profile and preview data, and was then said corrupt)
            return picture_too_large(f.read())
    except OSError:
        return None


def _read_image(path: Path) -> np.ndarray | None:
    """The picture in ``path``, or None where it cannot be decoded whole: a JPEG that does not end
    (cut short in the copy) is given by OpenCV with grey where it stops, and was read as a table."""
    try:
        # (a 40 GB file in the folder was read whole: the page did not start, or said the camera lost
        # with a MemoryError, the file never named)
        if path.stat().st_size > MAX_PICTURE_BYTES:
            return None
        data = path.read_bytes()
    except (OSError, MemoryError):
        return None
    if path.suffix.lower() in (".jpg", ".jpeg") and not _jpeg_whole(data):
        return None
    # (decoded from the bytes checked: read again, a file written meanwhile was decoded cut short)
    return decode_picture(data)


_HEARING = threading.Lock()  # one decode at a time listens to the process's standard error


def decode_picture(data: bytes) -> np.ndarray | None:
    """A picture file's bytes as an 8-bit BGR image, or None where they are not one whole picture:
    a JPEG whose picture data is damaged inside (it still ends as a JPEG should) was decoded grey, or
    shifted, and read as a table; libjpeg's only word of it is a line on standard error, which is
    heard here. A floating-point picture (PFM) was decoded near black; 16 bits are taken to 8."""
    if not data or picture_too_large(data):
        return None
    buf = np.frombuffer(data, np.uint8)
    flags = cv2.IMREAD_COLOR | cv2.IMREAD_ANYDEPTH
    try:
        if data.startswith(b"\xff\xd8"):
            image, said = _decoded_hearing_stderr(buf, flags)
            # ("N extraneous bytes before marker", which some webcams write, loses no picture data)
            if any("Corrupt JPEG data" in line and "extraneous bytes" not in line for line in said.splitlines()):
                return None
        else:
            image = cv2.imdecode(buf, flags)
    except cv2.error:  # e.g. a header claiming more pixels than OpenCV decodes (2^30)
        return None
    # (a floating-point or signed picture: a TIFF of int16 was taken as readable, then shown as the
    # camera lost, the file never named)
    if image is None or image.size == 0 or image.dtype not in (np.uint8, np.uint16):
        return None
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    return image


def _decoded_hearing_stderr(buf: np.ndarray, flags: int) -> tuple[np.ndarray | None, str]:
    """``cv2.imdecode`` with the process's standard error written to a file meanwhile: (the image, what
    the decoder said). Anything else written there in that moment (another thread's log) is passed on.
    With standard error closed it is listened to all the same, and left closed after."""
    with _HEARING:
        try:
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
        try:
            saved = os.dup(2)
        except OSError:
            saved = None
        try:
            with tempfile.TemporaryFile() as said:  # (fd 2 itself, where standard error is closed)
                if said.fileno() != 2:
                    os.dup2(said.fileno(), 2)
                try:
                    image = cv2.imdecode(buf, flags)
                finally:
                    if saved is not None:
                        os.dup2(saved, 2)
                    said.seek(0)
                    heard = said.read()
                    if saved is None and said.fileno() != 2:
                        os.close(2)
        finally:
            if saved is not None:
                os.close(saved)
    text = heard.decode("utf-8", "replace")
    others = "".join(line for line in text.splitlines(keepends=True) if "JPEG" not in line)
    if others and saved is not None:
        os.write(2, others.encode())
    return image, text


MAX_PICTURE_PIXELS = 100_000_000  # a 200-megapixel phone photo is refused; a 4K frame is 8 million
MAX_PICTURE_BYTES = 256 * 2**20  # (a file larger is no picture of a table: refused before it is read)


def picture_dimensions(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG's, JPEG's, BMP's, WebP's or TIFF's header, without decoding it; None
    for another format or a header not read (OpenCV's own limit, 2^30 pixels, holds for those)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data.startswith(b"BM") and len(data) >= 26:
        if int.from_bytes(data[14:18], "little") == 12:  # (the old OS/2 header: 16-bit sizes)
            return int.from_bytes(data[18:20], "little"), int.from_bytes(data[20:22], "little")
        return (abs(int.from_bytes(data[18:22], "little", signed=True)),
                abs(int.from_bytes(data[22:26], "little", signed=True)))  # (height < 0: top-down)
    if data.startswith(b"\xff\xd8"):
        i = 2
        while i + 4 <= len(data) and data[i] == 0xFF:
            marker = data[i + 1]
            if marker == 0xFF:
                i += 1
            elif marker == 0x01 or 0xD0 <= marker <= 0xD8:
                i += 2
            elif 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start of frame
                if i + 9 > len(data):
                    return None
                return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
            elif marker in (0xD9, 0xDA):
                return None
            else:
                i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
        return None
    if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
        return _webp_dimensions(data)
    if data[:4] in (b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+"):  # (a TIFF, a BigTIFF)
        return _tiff_dimensions(data)
    return None


def _webp_dimensions(data: bytes) -> tuple[int, int] | None:
    """A WebP's size from its first chunk: lossy (VP8), lossless (VP8L) or extended (VP8X, its canvas).
    (A 16383 x 16383 WebP, 268 million pixels, was decoded whole.)"""
    chunk, body = data[12:16], data[20:30]
    if len(body) < 10:
        return None
    if chunk == b"VP8 " and body[3:6] == b"\x9d\x01\x2a":  # (after the frame tag, its start code)
        return (int.from_bytes(body[6:8], "little") & 0x3FFF, int.from_bytes(body[8:10], "little") & 0x3FFF)
    if chunk == b"VP8L" and body[0] == 0x2F:  # (14 bits each, less one, after the signature byte)
        bits = int.from_bytes(body[1:5], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        return int.from_bytes(body[4:7], "little") + 1, int.from_bytes(body[7:10], "little") + 1
    return None


def _tiff_dimensions(data: bytes) -> tuple[int, int] | None:
    """A TIFF's size from its first directory (the page OpenCV decodes): its ImageWidth (256) and
    ImageLength (257) entries, each a SHORT or a LONG (or, in a BigTIFF, a LONG8). (A TIFF of few
    bytes and many pixels, one colour compressed, was decoded whole.)"""
    order = "little" if data[:2] == b"II" else "big"
    big = data[2:4] in (b"+\x00", b"\x00+")  # (offsets and counts of 8 bytes, entries of 20)
    at = int.from_bytes(data[8:16] if big else data[4:8], order)
    counted, size, value = (8, 20, 12) if big else (2, 12, 8)
    if at < 8 or at + counted > len(data):
        return None
    found = {}
    for k in range(int.from_bytes(data[at:at + counted], order)):
        entry = data[at + counted + size * k:at + counted + size * (k + 1)]
        if len(entry) < size:
            return None
        tag, kind = int.from_bytes(entry[0:2], order), int.from_bytes(entry[2:4], order)
        width = {3: 2, 4: 4, 16: 8}.get(kind)
        if tag in (256, 257) and width:
            found[tag] = int.from_bytes(entry[value:value + width], order)
    return (found[256], found[257]) if len(found) == 2 else None


def picture_too_large(data: bytes) -> str | None:
    """Why a picture is refused before it is decoded (a 32000 x 32000 PNG took 6 GB of memory, and
    running out was said as a corrupt file), or None."""
    size = picture_dimensions(data)
    if size is None or size[0] * size[1] <= MAX_PICTURE_PIXELS:
        return None
    return (f"{size[0]} x {size[1]} pixels, too large to decode "
            f"(at most {MAX_PICTURE_PIXELS // 1_000_000} million pixels)")


def _jpeg_whole(data: bytes) -> bool:
    """Whether a JPEG's picture data ends: an end-of-image marker after the start of the main picture's
    data (its segments walked by their lengths, so a thumbnail inside them is passed over; padding or a
    phone's own data after the end is no cut). A layout not known is left to the decoder."""
    if not data.startswith(b"\xff\xd8"):
        return True
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return True
        marker = data[i + 1]
        if marker == 0xFF:  # (a fill byte before a marker)
            i += 1
        elif marker == 0x01 or 0xD0 <= marker <= 0xD8:  # (markers that carry no length)
            i += 2
        elif marker == 0xD9:
            return True
        else:
            length = int.from_bytes(data[i + 2:i + 4], "big")
            if marker == 0xDA:  # the main picture's data: whole if it ends
                return data.find(b"\xff\xd9", i + 2 + length) != -1
            i += 2 + length
    return False  # (the file ends before the picture's data begins)


def _stamp(path: Path) -> tuple | None:
    """A file's size and time of change (a file written again is read again), or None: gone."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


ROTATIONS = {90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


class RotatedSource:
    """Another source's frames turned clockwise by 90, 180 or 270 degrees: a camera mounted facing
    the dealer (or on its side) gives the picture the dealer sees, so rows read in the dealt order,
    left to right from the dealer's seat, and the zones are drawn on the picture as he sees it.
    ``mirror`` first flips each frame left to right: a webcam that mirrors its picture (as many do
    for a video call) shows every card as its mirror image, which the models read as another card."""

    def __init__(self, source: FrameSource, degrees: int = 0, mirror: bool = False):
        if degrees not in ROTATIONS and not (degrees == 0 and mirror):
            raise CameraError(f"a picture can be turned by 90, 180 or 270 degrees, not {degrees}")
        self.source, self.degrees, self.mirror = source, degrees, bool(mirror)

    def read(self) -> np.ndarray:
        frame = self.source.read()
        if self.mirror:
            frame = cv2.flip(frame, 1)
        return cv2.rotate(frame, ROTATIONS[self.degrees]) if self.degrees else frame

    def close(self) -> None:
        self.source.close()

    def __getattr__(self, name):  # the source's own settings (its folder, its camera number)
        if name == "source":  # (not set yet: no recursion)
            raise AttributeError(name)
        return getattr(self.source, name)


@contextlib.contextmanager
def _quiet_opencv():
    logging_ = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging_ is None:
        yield
        return
    previous = logging_.getLogLevel()
    logging_.setLogLevel(logging_.LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        logging_.setLogLevel(previous)


def open_source(camera: int | None = None, video: str | Path | None = None,
                images: str | Path | None = None, demo: bool = False,
                game: str = "batta-maki", seed: int = 0, rotate: int = 0,
                mirror: bool = False) -> FrameSource:
    """The source the dealer asked for; with no option a camera if one opens, otherwise the demo.
    ``rotate`` turns a camera's, video's or images' frames clockwise, ``mirror`` flips them left to
    right first (the demo is drawn upright and unmirrored)."""
    chosen = [name for name, value in (("camera", camera), ("video", video), ("images", images))
              if value is not None] + (["demo"] if demo else [])
    if len(chosen) > 1:
        raise CameraError(f"choose one source of frames, not {' and '.join(chosen)}")
    if rotate and rotate not in ROTATIONS:
        raise CameraError(f"a picture can be turned by 90, 180 or 270 degrees, not {rotate}")
    if rotate and demo:
        raise CameraError("the demo table is drawn the right way up: turning it is for a camera, "
                          "a video or images")
    if mirror and demo:
        raise CameraError("the demo table is drawn unmirrored: mirroring it is for a camera, "
                          "a video or images")

    def turned(source: FrameSource) -> FrameSource:
        return RotatedSource(source, rotate, mirror) if rotate or mirror else source

    if camera is not None:
        return turned(CameraSource(camera))
    if video is not None:
        return turned(VideoFileSource(video))
    if images is not None:
        # each picture held for a few seconds as a camera would give it: shown for one frame, no card
        # lasted the frames the tracker asks before it shows one, and the page stayed empty
        return turned(ImageFolderSource(images, fps=IMAGE_FPS, frames_each=IMAGE_FPS * IMAGE_SECONDS))
    from vision.demo_table import DemoTable  # imported here: the demo pulls in the deck renderer
    if demo:
        return DemoTable(game=game, seed=seed)
    try:
        with _quiet_opencv():  # no camera is a normal case here: OpenCV need not warn about it
            return turned(CameraSource(0))
    except CameraError as exc:
        log.info("no camera (%s): using the demo table", exc)
        return DemoTable(game=game, seed=seed)


# --- the capture thread ------------------------------------------------------------------------

@dataclass(frozen=True)
class SourceStatus:
    camera: str             # "ok" | "lost" | "reconnecting"
    error: str | None       # the last problem, for the dealer's banner; None when all is well


class FrameGrabber:
    """Reads ``source`` in one background thread and keeps only the newest frame.

    ``newest(after, timeout)`` gives the newest frame whose number is greater than ``after``.
    After a ``CameraError`` the status is "lost", then "reconnecting" while it tries again
    (backing off from ``retry_s`` to ``max_retry_s``); the first good frame makes it "ok".
    A ``FrameSkipped`` keeps the status "ok" and shows its message for ``notice_s`` seconds.
    """

    def __init__(self, source: FrameSource, retry_s: float = 0.2, max_retry_s: float = 2.0,
                 notice_s: float = 10.0):
        self.source = source
        self.retry_s = retry_s
        self.max_retry_s = max_retry_s
        self.notice_s = notice_s
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._index = 0
        self._back_from = 0  # the number of the first frame after the last failure
        self._status = SourceStatus("ok", None)
        self._notice_until = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        # called (from the capture thread, no lock held) whenever the status changes
        self.on_status: Callable[[SourceStatus], None] | None = None

    def start(self) -> "FrameGrabber":
        if self._thread is not None and self._thread.is_alive() and self._stop.is_set():
            # stopped while a read hung: a second thread would read the same camera beside it
            raise CameraError("the frame source is still in a read that has not returned since it was "
                              "stopped: it cannot be started again until that read ends")
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name="frame-grabber", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            if not self._thread.is_alive():  # (one still in a hung read is kept, to be waited for)
                self._thread = None
        try:
            self.source.close()
        except Exception:  # closing a vanished device must not stop the shutdown
            log.exception("closing the frame source failed")

    def status(self) -> SourceStatus:
        with self._cond:
            status = self._status
            if status.camera == "ok" and status.error and time.monotonic() > self._notice_until:
                status = self._status = SourceStatus("ok", None)
            return status

    def first_frame_back(self) -> int:
        """The number of the first frame read after the source last failed (0 if it never did)."""
        with self._cond:
            return self._back_from

    def newest(self, after: int = 0, timeout: float | None = None) -> tuple[int, np.ndarray] | None:
        """(frame number, frame) of the newest frame numbered above ``after``; None on timeout/stop."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._index <= after or self._frame is None:
                if self._stop.is_set():
                    return None
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining)
            return self._index, self._frame

    def _set_status(self, camera: str, error: str | None) -> None:
        with self._cond:
            changed = self._status != SourceStatus(camera, error)
            self._status = SourceStatus(camera, error)
        if changed:
            self._notify()

    def _notify(self) -> None:
        if self.on_status is not None:
            try:
                self.on_status(self.status())
            except Exception:  # a listener's bug must not stop the capture
                log.exception("status listener failed")

    def _run(self) -> None:
        backoff = self.retry_s
        failing = False
        while not self._stop.is_set():
            try:
                frame = self.source.read()
            except FrameSkipped as exc:
                log.warning("%s", exc)
                with self._cond:
                    # (a frame skipped while the source is failing is no frame read: said "ok", the
                    # page showed the picture from before the loss as live, undimmed)
                    self._status = SourceStatus("reconnecting" if failing else "ok", str(exc))
                    self._notice_until = time.monotonic() + self.notice_s
                self._notify()
                continue
            except Exception as exc:  # CameraError, or a driver's own error: report and retry
                message = str(exc) if isinstance(exc, CameraError) else f"camera error: {exc!r}"
                self._set_status("lost" if not failing else "reconnecting", message)
                if not failing:
                    log.warning("frame source lost: %s", message)
                failing = True
                if self._stop.wait(backoff):
                    break
                backoff = min(backoff * 2, self.max_retry_s)
                self._set_status("reconnecting", message)
                continue
            if not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
                self._set_status("lost", "the frame source gave something that is not a colour image"
                                 + (" (an empty frame)" if isinstance(frame, np.ndarray) and frame.size == 0 else ""))
                failing = True
                if self._stop.wait(backoff):
                    break
                continue
            if frame.dtype != np.uint8:  # (a 16-bit or float picture: the detector reads 8-bit ones)
                self._set_status("lost", f"the frame source gave a picture that is not 8-bit ({frame.dtype})")
                failing = True
                if self._stop.wait(backoff):
                    break
                continue
            with self._cond:
                self._frame = frame
                self._index += 1
                recovered = self._status != SourceStatus("ok", None) and (
                    failing or time.monotonic() > self._notice_until)
                if recovered:
                    self._status = SourceStatus("ok", None)
                if failing:
                    self._back_from = self._index
                self._cond.notify_all()
            if recovered:
                self._notify()
            if failing:
                log.info("frame source is back")
            failing = False
            backoff = self.retry_s
