"""Table zones: which stable card belongs to which row, hand or place of the game's layout.

Two ways: zones the dealer draws once on the live image (``TableZone`` polygons, saved per table
as JSON), or automatically: cards are clustered into rows by position, rows are matched to the
layout's zones in table order (top to bottom, then left to right; for layouts whose zones belong to
players, e.g. Kabu-Tsukuri, player by player from left to right, each player's rows top to
bottom; see ``by_player_columns``). Cards within a zone are ordered left to right along the row.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

import cv2
import numpy as np

from dealer.games import ZoneSpec
from vision.types import TableCard, TableState

# the dealer's row lies across the table from the players': its cards' centres this many card lengths
# or more above the next row's (a card's length of table between them)
DEALER_ROW_APART = 2.0


class ZoneError(ValueError):
    """Bad zone input (file or drawn polygon); the message names the problem."""


# no camera picture is near this size: a point beyond it is a mistake (1e300 overflowed to an
# infinite area)
MAX_COORDINATE = 100_000
# corners a zone may have: a dealer taps a handful; the check that its sides do not cross takes
# every pair of sides (4,000 corners took 35 s on each save, and again on each start)
MAX_CORNERS = 64


def _sides_cross(points: tuple[tuple[float, float], ...]) -> bool:
    """Whether two sides of the closed polygon ``points`` run over each other: two sides that do not
    follow one another meet (cross, touch or overlap), or a side turns straight back along the one
    before it. A corner given twice in a row (a double tap) is one corner."""
    pts = [p for k, p in enumerate(points) if p != points[k - 1]] or list(points[:1])
    n = len(pts)
    sides = [(pts[k], pts[(k + 1) % n]) for k in range(n)]
    for k in range(n):  # sides that follow one another meet at their corner only, unless one turns back
        a, b, c = pts[k - 1], pts[k], pts[(k + 1) % n]
        if _turn(a, b, c) == 0 and (b[0] - a[0]) * (c[0] - b[0]) + (b[1] - a[1]) * (c[1] - b[1]) < 0:
            return True
    return any(_segments_meet(*sides[i], *sides[j]) for i in range(n) for j in range(i + 2, n)
               if not (i == 0 and j == n - 1))


def _turn(a, b, c) -> int:
    """The side of the line a -> b that c lies on: 1, -1, or 0 in line."""
    v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (v > 0) - (v < 0)


def _segments_meet(a, b, c, d) -> bool:
    """Whether the segments ab and cd have a point in common."""
    def on(p, q, r):  # r, in line with pq, lies between them
        return min(p[0], q[0]) <= r[0] <= max(p[0], q[0]) and min(p[1], q[1]) <= r[1] <= max(p[1], q[1])
    t1, t2, t3, t4 = _turn(a, b, c), _turn(a, b, d), _turn(c, d, a), _turn(c, d, b)
    if t1 != t2 and t3 != t4:
        return True
    return (t1 == 0 and on(a, b, c)) or (t2 == 0 and on(a, b, d)) or (t3 == 0 and on(c, d, a)) \
        or (t4 == 0 and on(c, d, b))


@dataclass(frozen=True)
class TableZone:
    """A named polygon on the live image (frame pixels), drawn by the dealer for one zone."""
    name: str
    polygon: tuple[tuple[float, float], ...]

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise ZoneError(f"a zone needs a name, not {self.name!r}")
        try:
            pairs = [(x, y) for x, y in self.polygon]
        except (TypeError, ValueError):
            raise ZoneError(f"zone {self.name!r}: the polygon must be a list of [x, y] points") from None
        if len(pairs) > MAX_CORNERS:
            raise ZoneError(f"zone {self.name!r}: a zone has at most {MAX_CORNERS} corners, not {len(pairs)}")
        # numbers only ("100" or true became coordinates), within what a picture can be
        if not all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)
                   for p in pairs for v in p):
            raise ZoneError(f"zone {self.name!r}: the polygon must be a list of [x, y] points, each a number")
        points = tuple((float(x), float(y)) for x, y in pairs)
        if any(abs(v) > MAX_COORDINATE for p in points for v in p if math.isfinite(v)):
            raise ZoneError(f"zone {self.name!r}: a point lies beyond {MAX_COORDINATE:,} pixels, "
                            f"far outside any camera picture")
        if len(points) < 3:
            raise ZoneError(f"zone {self.name!r}: a polygon needs at least 3 points, not {len(points)}")
        if not all(math.isfinite(v) for p in points for v in p):
            raise ZoneError(f"zone {self.name!r}: the polygon has a point that is not a finite number")
        if cv2.contourArea(cv2.convexHull(np.asarray(points, dtype=np.float32))) < 1.0:
            raise ZoneError(f"zone {self.name!r}: the polygon encloses no area")  # (its points in a line)
        if _sides_cross(points):
            # (traced twice, or as a bow-tie: the area counted, but no point was inside, and every
            # card there was outside every zone, unsaid)
            raise ZoneError(f"zone {self.name!r}: the polygon's sides cross or run over each other: "
                            f"give its corners once each, in order round the zone")
        if cv2.contourArea(np.asarray(points, dtype=np.float32)) < 1.0:
            raise ZoneError(f"zone {self.name!r}: the polygon encloses no area")
        object.__setattr__(self, "polygon", points)

    def contains(self, point: tuple[float, float], within: float = 0.0) -> bool:
        """Whether ``point`` lies in the zone, or no more than ``within`` pixels outside it."""
        contour = np.asarray(self.polygon, dtype=np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), within > 0) >= -within

    def axis(self) -> tuple[float, float]:
        """Unit vector along the zone's long side: the order of its cards, left to right for a zone
        that lies more across the picture than up it, top to bottom for one that lies more up it (by
        the sign of the larger component: by the smaller one, a zone drawn upright but 2 degrees off
        read top to bottom one way and bottom to top the other)."""
        (_, _), (w, h), angle = cv2.minAreaRect(np.asarray(self.polygon, dtype=np.float32))
        theta = math.radians(angle if w >= h else angle + 90.0)
        ux, uy = math.cos(theta), math.sin(theta)
        if (ux if abs(ux) >= abs(uy) else uy) < 0:
            ux, uy = -ux, -uy
        return ux, uy

    def elongated(self) -> bool:
        """Whether the zone is clearly longer one way than the other (its long side says which way its
        cards run); a zone drawn near square says nothing (its long side turned with a pixel)."""
        (_, _), (w, h), _ = cv2.minAreaRect(np.asarray(self.polygon, dtype=np.float32))
        return max(w, h) >= 1.25 * min(w, h)

    def to_json(self) -> dict:
        return {"name": self.name, "polygon": [[round(x, 1), round(y, 1)] for x, y in self.polygon]}


def zones_from_json(data) -> list[TableZone]:
    items = data.get("zones") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ZoneError("zones must be a list of {name, polygon} objects")
    zones = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or "name" not in item or "polygon" not in item:
            raise ZoneError(f"zone #{i + 1} must be an object with 'name' and 'polygon'")
        zones.append(TableZone(item["name"], item["polygon"]))
    names = [z.name for z in zones]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ZoneError(f"zone name(s) drawn twice: {', '.join(duplicates)}")
    check_apart(zones)
    return zones


def check_apart(zones: list[TableZone], most: float = 0.05) -> None:
    """Refuse two zones that overlap by more than ``most`` of the smaller one: a card lying where they
    overlap would go to whichever comes first, without a word (edges drawn a little over each other
    are allowed)."""
    for i, a in enumerate(zones):
        for b in zones[i + 1:]:
            shared, smaller = _overlap(a, b)
            if smaller > 0 and shared > most * smaller:
                raise ZoneError(f"zones {a.name!r} and {b.name!r} overlap ({100 * shared / smaller:.0f}% of the "
                                f"smaller): a card there would belong to both; draw them apart")


def _overlap(a: TableZone, b: TableZone, side: int = 400) -> tuple[float, float]:
    """(the area two zones share, the smaller zone's area), in pixels of a raster of their joint box
    (at most ``side`` pixels across: drawn polygons need not be convex)."""
    pa, pb = np.asarray(a.polygon, np.float64), np.asarray(b.polygon, np.float64)
    lo = np.minimum(pa.min(axis=0), pb.min(axis=0))
    hi = np.maximum(pa.max(axis=0), pb.max(axis=0))
    scale = side / max(float((hi - lo).max()), 1e-9)
    size = (int(np.ceil((hi - lo)[1] * scale)) + 2, int(np.ceil((hi - lo)[0] * scale)) + 2)
    masks = []
    for poly in (pa, pb):
        mask = np.zeros(size, np.uint8)
        cv2.fillPoly(mask, [np.round((poly - lo) * scale).astype(np.int32)], 1)
        masks.append(mask)
    # each filled polygon holds its outline's pixels: zones that only touch share those; a pixel less
    # all round leaves them apart
    inner = [cv2.erode(m, np.ones((3, 3), np.uint8)) for m in masks]
    return float(np.count_nonzero(inner[0] & inner[1])), float(min(np.count_nonzero(m) for m in masks))


class DrawnZones(list):
    """Zones as drawn, with the picture they were drawn on (``picture``: its width, height and the
    turn given to the camera's frames, or None where not known): zones are in that picture's
    pixels, so on a picture of another size or turn they would put each card in the wrong zone."""

    def __init__(self, zones: Iterable[TableZone] = (), picture: dict | None = None):
        super().__init__(zones)
        self.picture = picture


def _picture_of(data) -> dict | None:
    pic = data.get("picture") if isinstance(data, dict) else None
    if pic is None:
        return None  # (zones saved before the picture was recorded)
    if not (isinstance(pic, dict) and all(isinstance(pic.get(k), int) and not isinstance(pic.get(k), bool)
                                          for k in ("width", "height", "rotate"))
            and pic["width"] > 0 and pic["height"] > 0 and pic["rotate"] in (0, 90, 180, 270)
            and isinstance(pic.get("mirror", False), bool)):
        raise ZoneError("the picture the zones were drawn on must be {width, height, rotate, mirror}: "
                        "whole numbers, the turn 0, 90, 180 or 270, mirror true or false (or left out), "
                        f"not {pic!r}")
    out = {k: pic[k] for k in ("width", "height", "rotate")}
    if pic.get("mirror"):  # (only when set: a picture not mirrored reads as it did before the option)
        out["mirror"] = True
    return out


def picture_turn(picture: dict) -> tuple[int, bool]:
    """How a picture was turned: its clockwise turn in degrees and whether it was mirrored first."""
    return int(picture.get("rotate", 0) or 0), bool(picture.get("mirror", False))


def describe_turn(picture: dict, other: dict | None = None) -> str:
    """A picture's turn in words, for a message ("turned by 180 degrees and mirrored"); whether it is
    mirrored is said where it or the ``other`` picture it is set against is mirrored."""
    degrees, mirror = picture_turn(picture)
    if not (mirror or (other is not None and picture_turn(other)[1])):
        return f"turned by {degrees} degrees"
    return f"turned by {degrees} degrees" + (" and mirrored" if mirror else " and not mirrored")


def save_zones(path: str | Path, zones: Iterable[TableZone], picture: dict | None = None) -> None:
    """Write the zones as JSON (through a temporary file, so a crash never leaves half a file), with
    the picture they were drawn on when known."""
    path = Path(path)
    data = {"zones": [z.to_json() for z in zones]}
    if picture is not None:
        data["picture"] = _picture_of({"picture": picture})
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    tmp.replace(path)


def load_zones(path: str | Path) -> list[TableZone]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ZoneError(f"zone file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ZoneError(f"zone file {str(path)!r} cannot be read: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ZoneError(f"zone file {str(path)!r} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise ZoneError(f"zone file {str(path)!r} is not zones (lists nested too deep to read)") from None
    try:
        return DrawnZones(zones_from_json(data), _picture_of(data))
    except ZoneError as exc:
        raise ZoneError(f"zone file {str(path)!r}: {exc}") from None


# --- assignment --------------------------------------------------------------------------------

def _spread_axis(cards) -> tuple[float, float]:
    """Left to right where the cards spread more across the picture than up it, else top to bottom
    (the order of a near-square zone's cards: a hand of three laid left to right in a zone drawn a
    little generously was read top to bottom, its order shuffled by a pixel's jitter)."""
    if len(cards) < 2:
        return 1.0, 0.0
    xs = [_centre(c)[0] for c in cards]
    ys = [_centre(c)[1] for c in cards]
    return (1.0, 0.0) if max(xs) - min(xs) >= max(ys) - min(ys) else (0.0, 1.0)


def _centre(card: TableCard) -> tuple[float, float]:
    return (sum(p[0] for p in card.quad) / 4.0, sum(p[1] for p in card.quad) / 4.0)


def _card_extent(card: TableCard) -> tuple[float, float]:
    """(short side, long side) of the card's quad in pixels."""
    q = card.quad
    a = math.dist(q[0], q[1])
    b = math.dist(q[1], q[2])
    return (min(a, b), max(a, b))


def _table_tilt(cards: list[TableCard]) -> float:
    """How far (radians, -45 to 45 degrees) the cards' sides are turned from the picture's axes, taken
    modulo 90 degrees (a card lying across, or upside down, counts alike): the mean direction of the
    cards that lie within 10 degrees of the card most others lie near (cards laid by hand are a few
    degrees askew). 0 where that is under 3 degrees, where fewer than 4 cards lie, or where fewer
    than two in three agree on it (one card laid crooked among a few turned the whole table, and two
    players' hands changed places)."""
    if len(cards) < 4:
        return 0.0
    turns = []
    for card in cards:
        (x0, y0), (x1, y1) = card.quad[0], card.quad[1]
        turns.append(4 * math.atan2(y1 - y0, x1 - x0))  # (times 4: a quarter turn is no turn)
    turns = np.array(turns)
    apart = np.abs(np.angle(np.exp(1j * (turns[:, None] - turns[None, :]))))  # card x card
    agree = apart <= 4 * math.radians(10)
    best = int(np.argmax(agree.sum(axis=1)))
    if agree[best].sum() * 3 < len(cards) * 2:
        return 0.0
    tilt = float(np.angle(np.mean(np.exp(1j * turns[agree[best]])))) / 4
    return tilt if abs(tilt) >= math.radians(3) else 0.0


def _row_fit(points: list[tuple[float, float]], gap: float, long_side: float) -> float:
    """How badly the points make level rows (rows split as _automatic splits them): for each row of
    two cards or more, its least-squares line's slope plus how far its cards lie off that line (in
    card lengths), weighted by its cards. Read in the table's directions, a row runs level and its
    cards lie on its line; two rows run together lie far off any one line. (By how far cards lay off a
    level line alone, a long row read a little off level lost to each hand read on its own, and two
    players' hands changed places; by the slope alone, two rows run together fitted a level line.)"""
    ys = [y for _, y in points]
    total = weight = 0.0
    for row in _split(ys, gap):
        if len(row) < 2:
            continue
        xs = np.array([points[i][0] for i in row])
        yr = np.array([ys[i] for i in row])
        if np.ptp(xs) < 1e-6:
            slope, off = 0.0, yr - yr.mean()
        else:
            slope, intercept = np.polyfit(xs, yr, 1)
            off = yr - (slope * xs + intercept)
        total += (abs(float(slope)) + float(np.sqrt(np.mean(off ** 2))) / long_side) * len(row)
        weight += len(row)
    return total / weight if weight else 0.0


def _untilted(points: list[tuple[float, float]], tilt: float) -> list[tuple[float, float]]:
    """The points turned back by ``tilt`` about the origin (distances kept)."""
    if not tilt:
        return points
    c, s = math.cos(tilt), math.sin(tilt)
    return [(x * c + y * s, -x * s + y * c) for x, y in points]


def _split(values: list[float], gap: float) -> list[list[int]]:
    """Indices grouped where sorted values are more than ``gap`` apart."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    groups: list[list[int]] = []
    for i in order:
        if groups and values[i] - values[groups[-1][-1]] <= gap:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


def by_player_columns(layout: list[ZoneSpec]) -> bool:
    """True when players have several zones each (Kabu-Tsukuri's three rows per player): the
    table is then read player by player, each player's zones top to bottom. Layouts with one
    zone per player (hands) read like text: top to bottom, then left to right."""
    sizes = {}
    for zone in layout:
        if zone.group is not None:
            sizes[zone.group] = sizes.get(zone.group, 0) + 1
    return any(n > 1 for n in sizes.values())


class ZoneAssigner:
    """``assign(cards, frame_index) -> TableState`` for one game layout, automatic or by drawn zones.

    Automatic mode remembers which zone each card (track id) was given, so a row keeps its zone
    while the rows around it are dealt or picked up: call ``assign`` on successive frames of one
    table with the tracker's stable cards.
    """

    def __init__(self, layout: list[ZoneSpec], zones: list[TableZone] | None = None):
        self.layout = list(layout)
        names = [z.name for z in self.layout]
        if len(set(names)) != len(names):
            raise ZoneError(f"the layout names a zone twice: {names}")
        self.zones = list(zones) if zones else None
        if self.zones:
            unknown = [z.name for z in self.zones if z.name not in names]
            if unknown:
                raise ZoneError(f"drawn zone(s) {', '.join(unknown)} are not in this game's layout "
                                f"({', '.join(names)})")
        self._spec = {z.name: z for z in self.layout}
        self.grouped = by_player_columns(self.layout)
        self.sided = any(z.group is not None for z in self.layout)  # zones may lie side by side
        self._home: dict[int, str] = {}  # track id -> the zone its row was given (automatic mode)
        self._drawn_home: dict[int, str] = {}  # track id -> the drawn zone it was in last
        # zone -> where its cards lay last, in the picture (automatic mode; kept while it is empty)
        self._last_place: dict[str, tuple[float, float]] = {}

    def same_table(self, other: "ZoneAssigner | None") -> bool:
        """Whether ``other`` reads the same layout by the same zones (drawn or not). The zones are
        compared by what they are, not by their labels (which say the same names)."""
        def shape(a: "ZoneAssigner"):
            groups = list(dict.fromkeys(z.group for z in a.layout))  # (which zones are one player's)
            return [(z.name, z.cards, z.scored, groups.index(z.group), z.dealer_side) for z in a.layout]
        return other is not None and shape(other) == shape(self) and other.zones == self.zones

    def renamed(self, names: Mapping[str, str]) -> "ZoneAssigner":
        """This table with zones renamed (``names``: name before -> now; players renamed), remembering
        where each zone's cards lie under the new names."""
        name = lambda n: names.get(n, n)
        layout = [replace(spec, name=name(spec.name)) for spec in self.layout]  # (its groups are its own)
        out = ZoneAssigner(layout, [replace(z, name=name(z.name)) for z in self.zones] if self.zones else None)
        out._home = {k: name(v) for k, v in self._home.items()}
        out._drawn_home = {k: name(v) for k, v in self._drawn_home.items()}
        out._last_place = {name(k): v for k, v in self._last_place.items()}
        return out

    def rescale(self, sx: float, sy: float) -> None:
        """The picture is now ``sx`` times as wide and ``sy`` times as high (the camera back at another
        size): where each zone's cards lay last, in the new picture's pixels, for the cards read
        afresh (those tracked before are forgotten with their places)."""
        self._last_place = {name: (x * sx, y * sy) for name, (x, y) in self._last_place.items()}
        self._home = {}
        self._drawn_home = {}

    def remember(self, other: "ZoneAssigner") -> None:
        """Take over what ``other``, reading the same table, remembers of where each row lies."""
        self._home = dict(other._home)
        self._drawn_home = dict(other._drawn_home)
        self._last_place = dict(other._last_place)

    def places(self) -> dict[str, tuple[float, float]]:
        """Where each zone's cards lay last, in the picture (automatic mode): kept with the session,
        so that a restart gives each hand lying its seat (see remember_places)."""
        return dict(self._last_place)

    def remember_places(self, places: Mapping[str, Any]) -> None:
        """Take where each zone's cards lay last from before a restart (``places``: zone -> [x, y], as
        ``places()`` gave them), and let the hands lying find their seats by them afresh: read in the
        table's order, a hand beside one thrown in took that seat, and its bust went unpaid."""
        names = {spec.name for spec in self.layout}
        for name, place in places.items():
            try:
                x, y = (float(v) for v in place)
            except (TypeError, ValueError):
                continue
            if name in names and math.isfinite(x) and math.isfinite(y):
                self._last_place[name] = (x, y)
        self._home = {}

    def assign(self, cards: Iterable[TableCard], frame_index: int = 0) -> TableState:
        cards = list(cards)
        if self.zones:
            zones, unassigned = self._by_drawn_zones(cards)
        else:
            zones, unassigned = self._automatic(cards)
        ordered = {spec.name: tuple(zones.get(spec.name, ())) for spec in self.layout}
        unassigned.sort(key=lambda c: (_centre(c)[1], _centre(c)[0]))
        return TableState(zones=ordered, unassigned=tuple(unassigned), frame_index=frame_index)

    def _by_drawn_zones(self, cards):
        zones: dict[str, list[TableCard]] = {}
        unassigned = []
        by_name = {z.name: z for z in self.zones}
        homes = {}
        for card in cards:
            # a card stays in the zone it was in while its centre is within a fifth of its width
            # of it: lying across a line, its centre's jitter moved it from row to row every frame
            last = by_name.get(self._drawn_home.get(card.track_id))
            if last is not None and last.contains(_centre(card), within=0.2 * _card_extent(card)[0]):
                home = last
            else:
                home = next((z for z in self.zones if z.contains(_centre(card))), None)
            if home is None:
                unassigned.append(card)
            else:
                homes[card.track_id] = home.name
                zones.setdefault(home.name, []).append(card)
        self._drawn_home = homes
        for zone in self.zones:
            held = zones.get(zone.name, [])
            ux, uy = zone.axis() if zone.elongated() else _spread_axis(held)
            held.sort(key=lambda c: _centre(c)[0] * ux + _centre(c)[1] * uy)
        return zones, unassigned

    def _automatic(self, cards):
        if not cards:
            self._home = {}
            return {}, []
        if len(self.layout) == 1:
            # one zone (Kakeya's trick in the middle): every card on the table is in it, read like text
            name = self.layout[0].name
            self._home = {c.track_id: name for c in cards}
            return {name: sorted(cards, key=lambda c: (_centre(c)[1], _centre(c)[0]))}, []
        short = float(np.median([_card_extent(c)[0] for c in cards]))
        long_ = float(np.median([_card_extent(c)[1] for c in cards]))
        # read in the table's own directions: a camera turned a little (or the rows laid askew) made
        # a tilted row's centres chain into the next row's, and two rows became one. The turn the
        # cards' sides give is taken only where the rows it gives are level and straight (hands laid
        # crooked on a straight table gave one too, and two players' hands changed places)
        centres = [_centre(c) for c in cards]
        tilt = _table_tilt(cards)
        if tilt:
            turned = _untilted(centres, tilt)
            if _row_fit(turned, 0.5 * long_, long_) < _row_fit(centres, 0.5 * long_, long_):
                centres = turned
        # rows: cards whose centres are within half a card height of the neighbour are one row
        rows = _split([y for _, y in centres], 0.5 * long_)
        segments = []
        for row in rows:
            # zones side by side in one band (two hands, two players' rows): see _split_band
            xs = [centres[i][0] for i in row]
            for part in self._split_band(xs, short):
                members = [row[j] for j in part]
                segments.append(members)
        seg_centre = [(float(np.mean([centres[i][0] for i in s])), float(np.mean([centres[i][1] for i in s])))
                      for s in segments]
        if self.grouped:
            # columns of players left to right, each player's rows top to bottom. A column is rows
            # whose spans (first card to last) lie within 1.5 cards of each other: told apart by their
            # middles, a row with its right card hidden (the dealer's arm) and one with only its right
            # card in sight were two players' columns, and the player's rows changed places
            spans = {k: (min(centres[i][0] for i in s), max(centres[i][0] for i in s)) for k, s in enumerate(segments)}
            columns: list[list[int]] = []
            reach = -math.inf  # the right end of the column so far
            for k in sorted(spans, key=lambda k: spans[k][0]):
                if spans[k][0] - reach > 1.5 * short:
                    columns.append([])
                columns[-1].append(k)
                reach = max(reach, spans[k][1])
            order = [s for col in columns for s in sorted(col, key=lambda k: seg_centre[k][1])]
        elif self.sided:
            # like text: lines top to bottom, each left to right; a line is the rows whose middles lie
            # within a card's length of each other (a hand laid half a card higher than the hands
            # beside it is no line of its own: read before them, every hand moved a seat, and its
            # money with it)
            lines = _split([y for _, y in seg_centre], long_)
            line_of = {k: n for n, line in enumerate(lines) for k in line}
            order = sorted(range(len(segments)), key=lambda k: (line_of[k], seg_centre[k][0]))
        else:
            # rows across the table (Saki over Ato): top to bottom, however close. Taken for one line,
            # two rows laid less than a card's length apart were read by their middles left to
            # right, and Saki and Ato changed places with a jitter of two pixels
            order = sorted(range(len(segments)), key=lambda k: seg_centre[k][1])
        # A row keeps the zone it had while its cards stay (tracks are stable), so picking up
        # Saki does not turn the remaining Ato row into "Saki"; new rows take the free zones in
        # table order. But when there are as many rows as zones, table order decides: a row seen
        # alone first (Ato's, while the dealer's hand hid Saki) took the first zone, and kept it
        # would have put Saki's name on the bottom row for the whole round.
        zone_of_segment: dict[int, str] = {}
        taken: set[str] = set()
        # The dealer's own place is where the dealer sits (the top of the picture), across the table from
        # the players: the top row, where it lies a card's length or more above the next (a hand laid a
        # little lower is no other side of the table); never the first row seen: a bettor's card laid
        # before the dealer's came out took the dealer's place and kept it, and the first hand read as
        # text was the dealer's. Without such a row, none is the dealer's (the players' cards are laid
        # first) but the dealer's own, while they lie (the players' were picked up first).
        def home_of(k):
            homes = [self._home[cards[i].track_id] for i in segments[k] if cards[i].track_id in self._home]
            best = max(set(homes), key=homes.count) if homes else None
            return best if homes and homes.count(best) * 2 > len(homes) else None

        dealer_zone = next((spec.name for spec in self.layout if spec.dealer_side), None)
        if dealer_zone is not None:
            taken.add(dealer_zone)
            across = len(rows) > 1 and (min(centres[i][1] for i in rows[1]) - max(centres[i][1] for i in rows[0])
                                        >= DEALER_ROW_APART * long_)
            top = next((k for k in order if self._row_of(k, rows, segments) == 0), None) if across \
                else next((k for k in order if home_of(k) == dealer_zone), None)
            if top is not None:
                zone_of_segment[top] = dealer_zone
        others = [k for k in order if k not in zone_of_segment]
        if self.sided and not self.grouped:
            others = self._seat_order(others, segments, centres, short, long_)
        use_homes = len(others) != len(self.layout) - len(taken)
        for k in (others if use_homes else ()):
            best = home_of(k)
            if best is not None and best not in taken:
                zone_of_segment[k] = best
                taken.add(best)
        free = [spec.name for spec in self.layout if spec.name not in taken]
        if self.grouped:
            # a column's new rows take its player's zones top to bottom: taken in the layout's order,
            # the rows of a player laid before those of the player on his left went to that player,
            # and a spare card below a player's rows took the next player's first zone
            player_of = self._column_players(columns, {k: home_of(k) for k in others} if use_homes else {})
            for k in others:
                mine = [name for name in free if self._group_of(name) == player_of[k]]
                if k not in zone_of_segment and mine:
                    zone_of_segment[k] = mine[0]
                    free.remove(mine[0])
            # a player's rows, all there, are his rows 1, 2, 3 from the top, whatever order they were
            # laid in, and what lies below them is his spare (each row kept the zone it took when
            # laid: rows laid 3, 1, 2 with a spare on the table were settled in the wrong order,
            # unsaid, and a row hidden a moment by a hand lost its zone to the spare)
            for player in dict.fromkeys(self._group_of(spec.name) for spec in self.layout):
                names = [spec.name for spec in self.layout if self._group_of(spec.name) == player]
                column = [k for k in others if player_of.get(k) == player]
                if len(column) >= len(names):
                    ranked = sorted(column, key=lambda k: seg_centre[k][1])
                    for k in [k for k, name in zone_of_segment.items() if name in names] + ranked[len(names):]:
                        zone_of_segment.pop(k, None)
                    for k, name in zip(ranked, names):
                        zone_of_segment[k] = name
        if self.sided and not self.grouped:
            # a hand whose cards are all new to the tracker (covered a few seconds) takes back the
            # free seat whose hand lay where it lies: by the table's order, a hand whose neighbour had
            # been thrown in took that neighbour's seat, and his bust went unpaid. (Rows across the
            # table keep the table's order: a band mixing two rows' cards is no row that was there)
            raw = {k: (float(np.mean([_centre(cards[i])[0] for i in segments[k]])),
                       float(np.mean([_centre(cards[i])[1] for i in segments[k]]))) for k in others}
            near = sorted((math.dist(raw[k], self._last_place[name]), k, name)
                          for k in others if k not in zone_of_segment
                          for name in free if name in self._last_place)
            for gap, k, name in near:
                if gap <= 0.5 * long_ and k not in zone_of_segment and name in free:
                    zone_of_segment[k] = name
                    free.remove(name)
        for k in others:
            if k not in zone_of_segment and free and not self.grouped:
                zone_of_segment[k] = free.pop(0)
        zones: dict[str, list[TableCard]] = {}
        unassigned: list[TableCard] = []
        homes: dict[int, str] = {}
        for k in order:
            members = sorted(segments[k], key=lambda i: centres[i][0])
            name = zone_of_segment.get(k)
            if name is None:
                unassigned.extend(cards[i] for i in members)
            else:
                zones[name] = [cards[i] for i in members]
                homes.update((cards[i].track_id, name) for i in members)
                self._last_place[name] = (float(np.mean([_centre(cards[i])[0] for i in members])),
                                          float(np.mean([_centre(cards[i])[1] for i in members])))
        self._home = homes
        return zones, unassigned

    @staticmethod
    def _seat_order(ks: list[int], segments: list[list[int]], centres, short: float, long_: float) -> list[int]:
        """The players' hands ``ks`` in seat order: like text, lines top to bottom, each left to right.
        A line lies under another only where a hand of it lies under a hand of that one: hands side by
        side at different heights (bettors round a table, the middle one further off) are one line;
        split by height alone, a hand more than a card's length lower was read after the hands to its
        right, and each took another's seat and money."""
        if not ks:
            return ks
        middle = {k: float(np.mean([centres[i][1] for i in segments[k]])) for k in ks}
        span = {k: (min(centres[i][0] for i in segments[k]) - short / 2,
                    max(centres[i][0] for i in segments[k]) + short / 2) for k in ks}
        lines: list[list[int]] = []
        for line in _split([middle[k] for k in ks], long_):
            line = [ks[i] for i in line]
            if lines and not any(span[a][0] < span[b][1] and span[b][0] < span[a][1]
                                 for a in lines[-1] for b in line):
                lines[-1].extend(line)
            else:
                lines.append(line)
        return [k for line in lines for k in sorted(line, key=lambda k: (span[k][0] + span[k][1]) / 2)]

    def _column_players(self, columns: list[list[int]], homes: dict) -> dict:
        """Segment -> the player whose column it is in: a column holding rows that keep a player's
        zones is his; the others, left to right, the players not placed yet in the layout's order,
        each between the players of the columns on either side of it."""
        players = list(dict.fromkeys(self._group_of(spec.name) for spec in self.layout))
        claimed = {}
        for n, col in enumerate(columns):
            groups = [self._group_of(homes[k]) for k in col if homes.get(k)]
            if groups:
                claimed[n] = max(set(groups), key=groups.count)
        used, low, of_column = set(claimed.values()), 0, {}
        for n in range(len(columns)):
            if n in claimed:
                of_column[n] = claimed[n]
            else:
                high = min((players.index(claimed[m]) for m in claimed if m > n), default=len(players))
                free = [p for p in players[low:high] if p not in used]
                of_column[n] = free[0] if free else None
                used.update(free[:1])
            if of_column[n] is not None:
                low = players.index(of_column[n]) + 1
        return {k: of_column[n] for n, col in enumerate(columns) for k in col}

    def _group_of(self, name: str) -> str:
        spec = self._spec[name]
        return spec.group or spec.name

    def _split_band(self, xs: list[float], short: float) -> list[list[int]]:
        """Split one band of cards (centre xs) into the zones lying side by side in it.

        Only layouts with players' zones put zones side by side (hands, Kabu-Tsukuri's columns,
        Echobo's dealer card beside the bets); a Saki row is one row however widely it is laid.
        Within a band, a gap splits when it is wider than 2.5 times the tightest spacing of the
        band (and than 1.5 cards), and always when it is wider than 3 cards (a band of two cards
        splits only so).
        """
        if not self.sided:
            return [list(range(len(xs)))]
        ordered = sorted(xs)
        gaps = [b - a for a, b in zip(ordered, ordered[1:])]
        if not gaps:
            return [[0]]
        # (and always at 3 cards: hands of one card each, or laid loosely, all spaced alike, were one
        # zone, the first player's)
        limit = 3.0 * short if len(gaps) == 1 else min(max(2.5 * min(gaps), 1.5 * short), 3.0 * short)
        return _split(xs, limit)

    @staticmethod
    def _row_of(k, rows, segments) -> int:
        first = segments[k][0]
        return next(r for r, row in enumerate(rows) if first in row)
