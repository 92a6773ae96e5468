"""Temporal stability: per-frame detections become the cards that are stably on the table.

A new card has a hit counter (as in norfair): +1 for each frame that sees it, -1 for each frame that
misses it; it enters the table when the counter reaches ``enter_frames`` and is forgotten when the
counter falls to 0. A card on the table leaves only after ``leave_frames`` consecutive misses. So a
one-frame glitch neither adds nor removes a card, and a card that a weak detector sometimes misses
still enters and stays. Its face is a vote over the last ``vote_window`` frames that
saw it. The face shown changes only when another face leads it by ``switch_margin`` votes (2), so
two readings that alternate frame by frame cannot make the page alternate; a face-down card turned
face up shows its face once it has been seen face up in ``enter_frames`` frames (the common,
expected change). A card whose vote is split (its face has less than ``split_share`` of the window)
or whose smoothed confidence is low is reported ``uncertain``. A card that comes back exactly where a
card left less than ``return_frames`` frames before (its corners, the mean of its last readings,
within ``return_distance`` of the card's diagonal of the corners it had: unmoved, unturned), showing
the same face, is that card again: it takes its track id back (a dealer's hand passing over a card
hid it long enough to leave, and the dealer's correction of it, kept by its id, was lost).
"""
from __future__ import annotations

import itertools
import math
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from vision.types import Detection, TableCard

# how far (in card diagonals) a knocked camera may have moved the picture for the tracks to follow it:
# further, the cards are taken for new ones (each enters again, its correction gone, never swapped)
KNOCK_REACH = 2.0


def _size(quad) -> float:
    """The card's diagonal: the yardstick for 'near' that works at any zoom."""
    (x0, y0), _, (x2, y2), _ = quad
    return math.hypot(x2 - x0, y2 - y0) or 1.0


# how much nearer (in card diagonals) a reading of another face must lie than one of the face a track
# shows to be matched first (a card misread where it lies is still matched: no same-face reading is near)
OTHER_FACE_PENALTY = 0.15

# the farthest a card's corner may lie from the picture's origin, in pixels, and still be a reading
# (as far as a zone's corner may be drawn; a card partly off the picture lies a little outside it)
MAX_CORNER = 100_000.0


def _other_face(shown: str | None, read: str | None) -> bool:
    """Whether a reading shows a face other than the one a track shows (a back, or no face known, is
    no other face: a card is turned over where it lies)."""
    unknown = (None, "back", "none")
    return shown not in unknown and read not in unknown and shown != read


def _centre(quad) -> tuple[float, float]:
    return (sum(p[0] for p in quad) / 4.0, sum(p[1] for p in quad) / 4.0)


@dataclass
class _Track:
    track_id: int
    quad: tuple
    hits: int = 0            # hit counter while tentative: +1 seen, -1 missed
    misses: int = 0          # consecutive frames unmatched
    confirmed: bool = False
    votes: deque = field(default_factory=deque)  # (face, card, confidence, uncertain, broken) per frame seen
    # its last quads: where it lies, smoothed (one reading's corners jitter by 5% of a diagonal)
    quads: deque = field(default_factory=lambda: deque(maxlen=5))
    face: str | None = None  # the face shown (sticky: see _vote)
    confidence: float = 0.0  # smoothed confidence of the shown face
    card: str | None = None  # the card id shown (sticky: see _table_card)
    split: bool = False      # in doubt from a split vote, until every vote of the window agrees
    doubted: bool = False    # in doubt from the detector's flag, until no vote of the window has it

    def centre(self) -> tuple[float, float]:
        return _centre(self.quad)


class CardTracker:
    """``update(detections) -> list[TableCard]``, called once per processed frame."""

    def __init__(self, enter_frames: int = 3, leave_frames: int = 3, vote_window: int = 7,
                 match_distance: float = 0.5, uncertain_below: float = 0.6,
                 split_share: float = 0.8, switch_margin: int = 2, duplicate_distance: float = 0.15,
                 doubt_share: float = 1 / 3, return_frames: int = 30, return_distance: float = 0.06,
                 other_face_distance: float = 0.3):
        if enter_frames < 1 or leave_frames < 1:
            raise ValueError("enter_frames and leave_frames must be at least 1")
        if vote_window < enter_frames:
            raise ValueError(f"vote_window ({vote_window}) must be at least enter_frames ({enter_frames})")
        self.enter_frames = enter_frames
        self.leave_frames = leave_frames
        self.vote_window = vote_window
        self.match_distance = match_distance  # max centre distance, in card diagonals
        self.uncertain_below = uncertain_below
        self.split_share = split_share        # the winning face needs this share of the votes
        self.doubt_share = doubt_share        # this share of its readings flagged puts a card in doubt
        self.switch_margin = max(1, switch_margin)
        self.duplicate_distance = duplicate_distance  # in card diagonals
        # a reading further than this from a track's place, of another face, is another card (a card
        # slid by hand moves less in a frame, misread or not; one laid at a card's edge lies further)
        self.other_face_distance = other_face_distance
        self.return_frames = return_frames    # how long a card that left may come back as itself...
        self.return_distance = return_distance  # ...and how near its corners must be, in diagonals
        self._tracks: list[_Track] = []
        self._gone: list[tuple[int, _Track]] = []  # (the frame it left in, the card that left)
        self._frame = 0
        self._ids = itertools.count(1)

    def reset(self) -> None:
        self._tracks = []
        self._gone = []

    # -- matching ------------------------------------------------------------------------------
    def _match(self, detections: list[Detection]) -> tuple[dict[int, int], list[int], tuple[float, float] | None]:
        """Greedy nearest-centre matching: the closest (track, detection) pair is taken first.

        Cards on a table are at least about half a card apart, so greedy by distance gives the same
        answer as an optimal assignment, without scipy, except when every card moved alike by more
        than half the gap between them (a camera knocked): each track then took the card beside it,
        and a face-down card or a chaff took its neighbour's track (and the dealer's correction)
        without a word. Where tracks and detections are left unmatched the matching is done again
        for the shift most cards share, and kept when it matches more; that shift (the camera's move)
        is returned too, else None.
        """
        track_of = self._greedy(detections, (0.0, 0.0))
        knock = None
        if len(track_of) < min(len(self._tracks), len(detections)):
            left = sorted(set(range(len(self._tracks))) - set(track_of.values()))
            shift = self._common_shift(detections, left)
            if shift is not None:
                shifted = self._greedy(detections, shift)
                if len(shifted) > len(track_of):
                    track_of, knock = shifted, shift
        unmatched = [di for di in range(len(detections)) if di not in track_of]
        return track_of, unmatched, knock

    def _greedy(self, detections: list[Detection], shift: tuple[float, float]) -> dict[int, int]:
        """Detection index -> track index, each track's centre moved by ``shift`` first."""
        pairs = []
        for ti, track in enumerate(self._tracks):
            tx, ty = track.centre()
            tx, ty = tx + shift[0], ty + shift[1]
            scale = _size(track.quad)
            for di, det in enumerate(detections):
                dx, dy = _centre(det.quad)
                d = math.hypot(dx - tx, dy - ty) / max(scale, _size(det.quad))
                # a card off the track's place showing another face is another card: a card laid at
                # the edge of one hidden a moment (the dealer's hand) took its track, shown a frame
                # with its face, and the dealer's correction of it, kept by the track, went with it
                if d <= self.match_distance and not (d > self.other_face_distance and (
                        _other_face(track.face, det.face) or self._another_at_rest(track, det))):
                    # of two readings about as near, the one of the face the track shows is its card:
                    # after a detector read two touching cards as one for a few frames, the track moved
                    # between them, took the neighbour's reading (listed first), and showed its face there
                    other = _other_face(track.face, det.face)
                    pairs.append((d + (OTHER_FACE_PENALTY if other else 0.0), ti, di))
        pairs.sort()
        track_of: dict[int, int] = {}
        used_tracks: set[int] = set()
        for _, ti, di in pairs:
            if ti in used_tracks or di in track_of:
                continue
            used_tracks.add(ti)
            track_of[di] = ti
        return track_of

    def _another_at_rest(self, track: _Track, det: Detection) -> bool:
        """Whether a reading of the face a card lying still shows (a back, or a month's look-alike
        chaff), that far off it, is another card: a back laid at the edge of one hidden a moment took
        its track, and the dealer's word on what the hidden card is went with it; a hand sweeping over
        overlapping chaff, or a detector reading one chaff twice, put a card hidden or picked up on its
        neighbour, shown sure with its id and correction. A card slid by hand was moving in the frames
        before (lost while lifted, it is read as a card of its own: its word is asked again, not given
        to another)."""
        return (det.face == track.face and len(track.quads) >= 2
                and _corner_offset(track.quads[-1], track.quads[-2]) <= self.return_distance)

    def _common_shift(self, detections: list[Detection], unmatched: list[int] = ()) -> tuple[float, float] | None:
        """The move that brings the most tracks onto a detection (each within 0.15 of its diagonal),
        among the moves from a track to a detection within the gate, and from a track left
        ``unmatched`` to one within KNOCK_REACH of its diagonals (a knock of more than half a diagonal
        is no move within the gate: each track took its neighbour); None unless it brings at least
        two, more than staying put does, and, where staying put also leaves tracks on cards, brings
        them closer (a knocked row lies exactly where the move puts it, while the cards that did not
        move lie exactly where they were: one card hidden and another laid beside a row is no knock,
        though the row moved by one card fits all but one, each a little off its neighbour). A track
        is counted as brought onto a card, by a move or by staying put, only where the card reads
        the face it shows (a back or a face not known fits any): a knock moves the cards with their
        faces, while a row moved one card along fitted the move with every card on its neighbour's
        face, and a knock of about a card's pitch left each card on its neighbour's place, of
        another face; where no card reads its track's face (a blurred frame misreading all), the
        places alone are weighed. Only the cards on the table are weighed: a card still entering (a
        card of the knocked picture read once, a card half under the dealer's hand) lay where it
        was, and made staying put look as good as the true move."""
        weighed = [t for t in self._tracks if t.confirmed]
        if len(weighed) < 2 or len(detections) < 2:
            return None
        left = {id(self._tracks[i]) for i in unmatched}
        tracks = np.array([t.centre() for t in weighed])
        sizes = np.array([_size(t.quad) for t in weighed])
        dets = np.array([_centre(d.quad) for d in detections])
        moves = dets[None, :, :] - tracks[:, None, :]            # track x detection x 2
        reach = np.full(len(tracks), self.match_distance)
        reach[[k for k, t in enumerate(weighed) if id(t) in left]] = max(self.match_distance, KNOCK_REACH)
        within = np.hypot(moves[..., 0], moves[..., 1]) <= (reach * sizes)[:, None]
        candidates = np.unique(np.round(moves[within], 1), axis=0)
        if len(candidates) == 0:
            return None

        moves = np.vstack([np.zeros((1, 2)), candidates])     # staying put first
        # for each move, each track: how far the nearest detection lies once moved, in diagonals
        gaps = dets[None, None, :, :] - (tracks[None, :, None, :] + moves[:, None, None, :])
        dist = np.hypot(gaps[..., 0], gaps[..., 1])
        off = dist.min(axis=2) / sizes[None, :]
        codes = {face: k for k, face in enumerate({t.face for t in weighed} | {d.face for d in detections})}
        shown = np.array([-1 if t.face in (None, "back", "none") else codes[t.face] for t in weighed])
        read = np.array([-2 if d.face in (None, "back", "none") else codes[d.face] for d in detections])
        seen = read[dist.argmin(axis=2)]                           # move x track: the face read there
        same_face = (shown[None, :] == -1) | (seen == -2) | (seen == shown[None, :])
        placed = off <= 0.15
        near = placed & same_face
        by_places = not (near & (shown != -1)[None, :]).any()
        if by_places:
            # the faces say nothing (a knock frame so blurred every card is misread there, as where
            # they stood; a face-down card fits any face, so it is no word for a move: one card
            # misread and another hidden let a move of a card's width fit by the face-down card
            # alone): weighed by where the cards lie alone
            near = placed
        counts = near.sum(axis=1)
        misfit = (off * near).sum(axis=1) / np.maximum(counts, 1)  # how far off the tracks it fits lie
        # of the moves that fit as many, the one that places most cards, then the shortest: a move of
        # a whole row's gap further fits as many once cards have left the ends of the rows
        length = np.hypot(moves[:, 0], moves[:, 1])
        placing = placed.sum(axis=1)
        best = int(np.lexsort((length[1:], -placing[1:], -counts[1:]))[0]) + 1
        # (a blurred knock frame reads few cards right: two cards placed, one read right, is a knock
        # where staying put reads none right)
        if placing[best] < 2 or counts[best] < 1 or counts[best] <= counts[0]:
            return None
        # (by places alone, where staying put leaves cards in place too, two cards are too few to
        # tell a knock: a card missed, its neighbour misread and a card laid beside them fitted a
        # move of one card along, and both cards were shown sure on their neighbours' places)
        if by_places and (shown != -1).any() and placed[0].any() and placing[best] < 3:
            return None
        # (not even where both fit exactly: a card taken from one end of a row and one laid at the
        # other fit a move of one card along as well as staying put does. Where the move fits only
        # one card more, as then, it must fit three times as tightly: the corners' jitter made it fit
        # twice as tightly now and then, and each card took its neighbour's id)
        # (a face-down card fits any face: a knock of a card's pitch left the back's track on a card
        # and a card on the back's place, so staying put fitted two cards by no face at all, and with
        # the corners' jitter as tightly as the move did; the row's cards took their neighbours' ids.
        # Staying put is a rival to the move by the faces it fits, where the faces say anything)
        faced = near & (shown != -1)[None, :] & (seen != -2)
        rival = counts[0] if by_places else faced[0].sum()
        if rival and misfit[best] * (3 if counts[best] == counts[0] + 1 else 2) >= misfit[0]:
            return None
        return float(moves[best][0]), float(moves[best][1])

    # -- voting --------------------------------------------------------------------------------
    def _vote(self, track: _Track) -> None:
        counts = Counter(v[0] for v in track.votes)
        # ties go to the face shown, then to the most recent reading
        recency = {v[0]: i for i, v in enumerate(track.votes)}
        best, best_n = max(counts.items(), key=lambda kv: (kv[1], kv[0] == track.face, recency[kv[0]]))
        current = counts.get(track.face, 0)
        recent = [v[0] for v in list(track.votes)[-self.enter_frames:]]
        if track.face is None:
            track.face = best
        elif (track.face == "back" and len(recent) == self.enter_frames and "back" not in recent):
            # the card was turned face up (seen face up in the last enter_frames frames): the face
            # read most often since shows, and the back's votes leave the window so they do not
            # make it look doubtful; other faces' votes stay, so a split reading stays uncertain
            up = Counter(v[0] for v in track.votes if v[0] != "back")
            track.face = max(up.items(), key=lambda kv: (kv[1], recency[kv[0]]))[0]
            kept = [v for v in track.votes if v[0] != "back"]
            track.votes.clear()
            track.votes.extend(kept)
        elif best_n >= current + self.switch_margin:
            # any other change of reading needs a clear lead, so two readings that alternate
            # frame by frame can never make the shown face alternate
            track.face = best
        # the smoothed confidence: the shown face's probability averaged over the window (a frame
        # that read another face counts 0), so one glitch lowers it a little, a split vote a lot
        track.confidence = sum(v[2] for v in track.votes if v[0] == track.face) / len(track.votes)
        # doubt from a split vote holds until the window is unanimous again: a card misread one
        # frame in four has a share that crosses split_share back and forth, and the flag followed
        # it (amber, green, amber on the page, and settleable in the green frames)
        share = counts.get(track.face, 0) / len(track.votes) if track.face is not None else 0.0
        if share < self.split_share:
            track.split = True
        elif all(v[0] == track.face for v in track.votes):
            track.split = False
        # the detector's own doubt holds the same way: counted by a majority it flickered with the
        # window (flagged every other frame: amber, green, amber) and doubt in 3 frames of 7 never
        # showed. It starts at doubt_share of the readings so far (one doubtful frame among a
        # window of sure ones is not enough) and ends once no reading in the window has it
        flags = sum(1 for v in track.votes if v[0] == track.face and v[3])
        same = sum(1 for v in track.votes if v[0] == track.face)
        if flags and flags >= self.doubt_share * same:
            track.doubted = True
        elif flags == 0:
            track.doubted = False

    def _table_card(self, track: _Track) -> TableCard:
        same = [v for v in track.votes if v[0] == track.face]
        card_votes = Counter(v[1] for v in same)
        if card_votes:
            # the id shown changes only on a clear lead, as the face does (the chaff of a month
            # share a face, and read as either copy the id flipped frame by frame with the votes)
            best = max(card_votes, key=card_votes.get)
            if card_votes[best] >= card_votes.get(track.card, 0) + self.switch_margin or track.card not in card_votes:
                track.card = best
        else:
            track.card = None
        card = track.card
        # a reading that was no probability at all (a model gone wrong) leaves the card in doubt while
        # it is in the window: outvoted by the sound frames, one or two such frames left it sure
        broken = any(v[4] for v in track.votes)
        uncertain = (track.split or track.confidence < self.uncertain_below or track.doubted or broken)
        return TableCard(track_id=track.track_id, card=card, face=track.face, quad=track.quad,
                         confidence=round(track.confidence, 4), uncertain=uncertain)

    def _duplicate(self, det: Detection, tracks: list[_Track]) -> bool:
        """A second detection of a card already tracked (its centre on the card's centre): dropped,
        so a detector that reports one card twice does not put it on the table twice."""
        dx, dy = _centre(det.quad)
        for track in tracks:
            tx, ty = track.centre()
            if math.hypot(dx - tx, dy - ty) <= self.duplicate_distance * _size(track.quad):
                return True
        return False

    # -- the one method ------------------------------------------------------------------------
    def update(self, detections: list[Detection]) -> list[TableCard]:
        self._frame += 1
        # a reading with no place (a corner NaN or infinite, from a model gone wrong) is no card: its
        # distance to every track compared false, and in a knock's frame it hid the knock, and each
        # card of the row took its neighbour's id. Nor is one whose corner lies absurdly far off the
        # picture (past what OpenCV draws: every picture of the video failed while it lay there)
        detections = [d for d in detections if all(math.isfinite(float(v)) and abs(float(v)) <= MAX_CORNER
                                                   for corner in d.quad for v in corner)]
        track_of, unmatched, knock = self._match(detections)
        matched_tracks = set(track_of.values())
        if knock is not None:
            # the camera moved the whole table: a card not read in that frame (blurred, under the
            # dealer's hand) moved with it. Left where it was, it came back as a new card (its
            # correction lost), and a knock of a card's pitch put its ghost on its neighbour's place,
            # whose id it then took
            for track in [t for ti, t in enumerate(self._tracks) if ti not in matched_tracks] + \
                    [t for _, t in self._gone]:
                track.quad = _moved(track.quad, knock)
                moved = [_moved(q, knock) for q in track.quads]
                track.quads.clear()
                track.quads.extend(moved)
        entered = []
        for di, ti in track_of.items():
            det, track = detections[di], self._tracks[ti]
            track.quad = det.quad
            track.quads.append(det.quad)
            track.misses = 0
            if not track.confirmed:
                track.hits += 1
                if track.hits >= self.enter_frames:
                    track.confirmed = True
                    entered.append(track)
            track.votes.append(_vote_of(det))
            while len(track.votes) > self.vote_window:
                track.votes.popleft()
            self._vote(track)
        survivors = []
        for ti, track in enumerate(self._tracks):
            if ti not in matched_tracks:
                track.misses += 1
                if not track.confirmed:
                    track.hits -= 1
                    if track.hits <= 0:
                        continue
                elif track.misses >= self.leave_frames:
                    self._gone.append((self._frame, track))
                    continue
            survivors.append(track)
        self._gone = [(f, t) for f, t in self._gone if self._frame - f <= self.return_frames]
        for di in unmatched:
            det = detections[di]
            if self._duplicate(det, survivors):
                continue
            track = _Track(track_id=next(self._ids), quad=det.quad, hits=1)
            track.quads.append(det.quad)
            track.confirmed = self.enter_frames <= 1
            track.votes.append(_vote_of(det))
            self._vote(track)
            survivors.append(track)
            if track.confirmed:
                entered.append(track)
        for track in entered:
            self._take_back_id(track)
        self._tracks = survivors
        return [self._table_card(t) for t in self._tracks if t.confirmed]

    def _take_back_id(self, track: _Track) -> None:
        """A card entering exactly where a card left lately (each corner, smoothed over its last
        readings, within return_distance of the card's diagonal of one of its corners: not moved,
        not turned), showing the face it
        showed, is that card back (hidden by the dealer's hand long enough to leave): it takes back
        that card's track id, and with it the dealer's correction and the round it was settled in.
        Another face there is another card, and so is a card laid in its place by a hand, which
        lies a few millimetres or degrees off (a whole card's gate, 0.15, gave the correction of a
        card picked up to the card of its misread face laid in the same spot)."""
        entering = _smoothed(track.quads, self.return_distance)  # (once, not once per card gone)
        # (the face it showed among the readings it entered on: the first of them misread, the card
        # back in its place took a new id, and the dealer's correction of it was lost)
        read = {v[0] for v in track.votes}
        near = [(_corner_offset(entering, _smoothed(gone.quads, self.return_distance)), k)
                for k, (_, gone) in enumerate(self._gone) if gone.face == track.face or gone.face in read]
        near = [(d, k) for d, k in near if d <= self.return_distance]
        if near:
            _, gone = self._gone.pop(min(near)[1])
            track.track_id = gone.track_id


def _moved(quad, shift: tuple[float, float]) -> tuple:
    """``quad`` moved by ``shift`` (x, y)."""
    return tuple((float(x) + shift[0], float(y) + shift[1]) for x, y in quad)


def _smoothed(quads, within: float = 0.06) -> tuple:
    """The mean of a card's recent quads near the latest (within ``within`` of its diagonal: not
    those of before a slide or a knock), each one's corners taken in the order of the latest's
    (nearest first): the corners of one reading jitter by about the gate a card's return is told by."""
    latest = quads[-1]
    quads = [q for q in quads if _corner_offset(q, latest) <= within] or [latest]
    aligned = [[min(q, key=lambda p: math.hypot(p[0] - c[0], p[1] - c[1])) for c in latest] for q in quads]
    return tuple((sum(q[i][0] for q in aligned) / len(aligned), sum(q[i][1] for q in aligned) / len(aligned))
                 for i in range(len(latest)))


def _corner_offset(quad, other) -> float:
    """How far the corners of ``quad`` lie from those of ``other`` (each from the nearest), at most,
    in ``other``'s diagonals."""
    worst = max(min(math.hypot(x - ox, y - oy) for ox, oy in other) for x, y in quad)
    return worst / _size(other)


def _vote_of(det: Detection) -> tuple[str, str | None, float, bool, bool]:
    """A detection's vote: its face, card, confidence, doubt and whether the reading was broken. A
    confidence that is not a number from 0 to 1 (NaN from a broken model) counts as 0 and the
    reading as uncertain (NaN compares false with every threshold, so it would have passed as sure),
    and it keeps the card in doubt while it is among the card's recent frames."""
    confidence = float(det.confidence)
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        return det.face, det.card, 0.0, True, True
    return det.face, det.card, confidence, bool(det.uncertain), False

