"""The built-in demo table: a live table rendered by the project itself, round after round.

``DemoTable`` is a frame source (``read() -> BGR frame``) showing a dealer at work on the chosen
game: cards are dealt face down into the game's zones one by one, revealed one by one, shown, then
picked up, and the next round begins with the next cards of a shuffled deck. The cards are the
project's own demo deck; the table has mild perspective, uneven light and sensor noise. Rendering
is cheap (cached background, each placed card warped once and then only pasted), so 10 frames/s
need a fraction of one core.

The dealer's hand comes in from the far edge to place, turn and pick up each card. Kakeya Toranpu
is played with the project's own western deck: four players play out a whole hand trick by trick
(each trick laid in the middle, one card in front of each player, then gathered), by the rules.
``ground_truth()`` tells what is really on the table in the frame ``read`` returned last (for
tests and the latency benchmark); ``DemoTruthDetector`` turns that into detections, optionally with
misses and misreadings, so the whole live pipeline runs without a model.
"""
from __future__ import annotations

import math
import threading
import weakref
from collections import deque
from dataclasses import dataclass

import cv2
import numpy as np

from dealer.cards import all_cards, get_card
from dealer.games import ZoneSpec, get_game, settle_round
from dealer.games.kakeya import may_play, pairs_of, rensho_of, trick_winner
from dealer.games.otoroku import evaluate as evaluate_otoroku
from dealer.western import get_western_card, is_western_card, western_ids
from datasets.deck import render_card
from datasets.western_deck import BACK as WESTERN_BACK, CARD_MM as WESTERN_MM, render_western_card
from vision.camera import FramePacer
from vision.types import Detection
from vision.zones import by_player_columns

CARD_ASPECT = 54.0 / 87.0  # width / height of a hanafuda card
WESTERN_ASPECT = WESTERN_MM[0] / WESTERN_MM[1]
TRICK_ZONE = "trick"


# --- the game on the table -----------------------------------------------------------------------

DEMO_PLAYERS = ("A", "B", "C")


def demo_setup(game: str) -> dict:
    """The round setup the demo plays: three players (four for Kakeya Toranpu), in the shape each
    game's layout reads (Otoroku's seats, Kabu-Tsukuri's rows per player, Echobo's bettors)."""
    players = list(DEMO_PLAYERS) + (["D"] if game == "kakeya-toranpu" else [])
    return {"game": game, "players": players, "seats": players,
            "rows": {p: [[], [], []] for p in players},
            "bets": [{"player": p, "on": None, "amount": 1} for p in players]}


def demo_layout(game: str) -> list[ZoneSpec]:
    """The game's layout (from the rule engine) for the demo's players; RoundError for an unknown game.
    Kakeya Toranpu's table is read at the trick in the middle only (hands are held, tricks taken lie
    face down)."""
    layout = list(get_game(game).layout(demo_setup(game)))
    if _card_kind(game) == "western":
        return [z for z in layout if z.name == TRICK_ZONE]
    return layout


def _card_kind(game: str) -> str:
    """'hanafuda' or 'western'; an unknown game name raises the rule engine's RoundError."""
    return get_game(game).card_kind


def demo_deck_ids(game: str) -> list[str]:
    """The card ids of the game's deck at its default house rules, each once, in deck order."""
    spec = get_game(game)
    counts = spec.deck(spec.resolve_house({}))
    if spec.card_kind == "western":
        return [c for c in western_ids() if counts.get(c, 0) > 0]
    return [c.id for c in all_cards() if counts.get(c.id, 0) > 0]


# --- card images -------------------------------------------------------------------------------

def card_image(card_id: str, height: int) -> np.ndarray:
    """The demo deck's picture of a card id or back ("back-black", "back-red"), or of a western card
    or its back ("QH", "back-western")."""
    if is_western_card(card_id) or card_id == WESTERN_BACK:
        return render_western_card(card_id, height)
    return render_card(card_id, height)


# --- the table ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Slot:
    zone: str
    position: int
    centre: tuple[float, float]  # on the flat table, in table pixels
    height: float


@dataclass
class _Placed:
    card: str
    slot: _Slot
    face_up: bool
    angle: float           # degrees, small jitter as a dealer lays cards
    upside_down: bool      # the card lies rotated by 180 degrees
    quad: tuple = ()       # image quad, from the card's own top-left, clockwise
    patch: tuple = ()      # cached (x, y, image ROI, mask ROI) for the current side


class DemoTable:
    """A frame source that plays ``game`` on a rendered table, deterministic for a given ``seed``.

    ``read()`` advances the table by one frame (1/fps s of table time) and, when ``realtime`` is on,
    waits so frames come at ``fps`` per second. ``ground_truth()`` lists the cards of the frame
    last read: ``{"card", "face", "quad", "face_up", "zone", "position", "visible"}`` per card
    (``visible``: the fraction not hidden by the dealer's hand). ``hands=False`` leaves the hand out.
    """

    def __init__(self, game: str = "batta-maki", seed: int = 0, fps: float = 10.0,
                 size: tuple[int, int] = (1280, 720), realtime: bool = True,
                 layout: list[ZoneSpec] | None = None, hands: bool = True):
        if fps <= 0:
            raise ValueError(f"fps must be positive, not {fps!r}")
        self.western = _card_kind(game) == "western"
        self.aspect = WESTERN_ASPECT if self.western else CARD_ASPECT
        self.game = game
        self.seed = seed
        self.fps = fps
        self.width, self.height = size
        self.layout = list(layout) if layout is not None else demo_layout(game)
        if not self.layout:
            raise ValueError(f"the demo table needs a layout with at least one zone for {game}")
        self.deck_ids = demo_deck_ids(game)
        self._rng = np.random.default_rng(seed)
        self._pacer = FramePacer(fps if realtime else None)
        self._homography = self._table_to_image()
        self._background = self._render_background()
        self._noise = [self._rng.integers(0, 7, (self.height, self.width, 3), dtype=np.uint8)
                       for _ in range(3)]
        self._slots = self._plan_slots()
        self._images: dict[tuple[str, int], np.ndarray] = {}
        self._back = WESTERN_BACK if self.western else ("back-red" if seed % 2 else "back-black")
        self._players = demo_setup(game)["players"]
        self._dealers = [self._players[1], self._players[3]] if self.western else []  # Kakeya: B and D deal first
        self._pile: list[str] = []
        self._on_table: list[_Placed] = []
        self._events: deque = deque()
        self.frame_index = 0     # frames read so far
        self.round_index = 0     # rounds begun so far
        self.rounds_completed = 0
        self._truth: list[dict] = []
        self._recent: deque = deque(maxlen=32)  # (weakref to frame, truth) for DemoTruthDetector
        self._recent_lock = threading.Lock()
        self.hands = hands
        self._hand: np.ndarray | None = None
        self._hand_at: dict[int, tuple[float, float, float]] = {}  # frame -> table x, y, card height

    # -- geometry --------------------------------------------------------------------------------
    def _table_to_image(self) -> np.ndarray:
        """Mild perspective: the far (top) edge of the table looks narrower than the near edge."""
        w, h = self.width, self.height
        inset = (0.05 if self.seed == 0 else float(self._rng.uniform(0.02, 0.08))) * w
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[inset, 0.02 * h], [w - inset, 0.02 * h], [w, h], [0, h]])
        return cv2.getPerspectiveTransform(src, dst)

    def _project(self, points: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float32),
                                        self._homography).reshape(-1, 2)

    def _render_background(self) -> np.ndarray:
        w, h = self.width, self.height
        # seed 0 is the classic green felt; other seeds lay another cloth and move the lamp
        cloths = [(58, 92, 40), (92, 60, 30), (40, 40, 100), (45, 75, 110), (70, 70, 70)]
        base = np.array(cloths[0 if self.seed == 0 else int(self._rng.integers(len(cloths)))], np.float32)
        lamp_x, lamp_y = (0.55, 0.4) if self.seed == 0 else (float(self._rng.uniform(0.3, 0.7)),
                                                              float(self._rng.uniform(0.2, 0.6)))
        grain = cv2.GaussianBlur(self._rng.normal(0, 1, (h // 4, w // 4)).astype(np.float32), (0, 0), 1.5)
        grain = cv2.resize(grain, (w, h), interpolation=cv2.INTER_LINEAR)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        # a lamp above the table, a little off centre: bright middle, darker corners
        light = 1.15 - 0.45 * (((xx - lamp_x * w) / w) ** 2 + ((yy - lamp_y * h) / h) ** 2)
        img = base[None, None, :] * light[..., None] + 6.0 * grain[..., None]
        return np.clip(img, 0, 255).astype(np.uint8)

    def _plan_slots(self) -> dict[str, list[_Slot]]:
        """Where each zone's cards go on the flat table: rows, player columns, the players' row across
        from the dealer's place, or a grid of hands."""
        w, h = self.width, self.height
        zones = self.layout
        if self.western:
            # one card in front of each player around the middle: the first player sits at the near
            # edge, the others follow counter-clockwise (right, far, left), the order of play
            card_h = 0.27 * h
            offsets = ((0.0, 0.66), (0.9, 0.0), (0.0, -0.66), (-0.9, 0.0))
            return {TRICK_ZONE: [_Slot(TRICK_ZONE, k, (w / 2 + dx * card_h, h / 2 + dy * card_h), card_h)
                                 for k, (dx, dy) in enumerate(offsets)]}
        max_cards = max((z.cards or 4) for z in zones)
        if by_player_columns(zones):
            # one column per player (a zone without a player is a column of its own), in order
            keys = list(dict.fromkeys(z.group if z.group is not None else ("zone", z.name) for z in zones))
            columns = [[z for z in zones if (z.group if z.group is not None else ("zone", z.name)) == k]
                       for k in keys]
        elif len(zones) <= 3:
            columns = [zones]
        else:
            half = math.ceil(len(zones) / 2)
            columns = [zones[:half], zones[half:]]  # filled row by row below
        dealer_gap = 0.0  # room below the dealer's row, in card heights, beyond a row's
        if any(z.dealer_side for z in zones):
            # the dealer's own place (Otoroku's hand, Echobo's card) alone in the top row, in the
            # middle, where the dealer sits; the players across the table from him (2.4 card heights
            # below, as automatic zones want it: zones.DEALER_ROW_APART), in turn order, a grid of two
            # hands a row read like text (in one row of three the cards were too small for the
            # detector to find them all)
            players = [z for z in zones if not z.dealer_side]
            placement = {z.name: (0, 0) for z in zones if z.dealer_side}
            placement.update({z.name: (i % 2, 1 + i // 2) for i, z in enumerate(players)})
            dealer_gap = 1.1
        elif by_player_columns(zones) or len(columns) == 1:
            placement = {z.name: (ci, ri) for ci, col in enumerate(columns) for ri, z in enumerate(col)}
        else:  # grid of hands, row-major so the zone order reads top to bottom, left to right
            placement = {z.name: (i % 2, i // 2) for i, z in enumerate(zones)}
        n_cols = max(ci for ci, _ in placement.values()) + 1
        n_rows = max(ri for _, ri in placement.values()) + 1
        # card height limited by rows (1.3 card heights per row) and columns (cards 1.2 widths
        # apart, 2.4 card widths between zones side by side)
        by_height = 0.85 * h / (1.3 * n_rows + dealer_gap)
        by_width = 0.9 * w / (n_cols * (max_cards * 1.2 + 2.4) * self.aspect)
        card_h = min(by_height, by_width, 0.3 * h)
        card_w = card_h * self.aspect
        col_w = (max_cards * 1.2 + 2.4) * card_w
        x0 = (w - n_cols * col_w) / 2.0
        y0 = (h - (n_rows * 1.3 + dealer_gap) * card_h) / 2.0
        if dealer_gap:  # (a card at the top edge of the picture, far from the camera, was missed now and then)
            y0 += 0.3 * card_h
        slots: dict[str, list[_Slot]] = {}
        for zone in zones:
            ci, ri = placement[zone.name]
            n = zone.cards or 4
            cy = y0 + (ri + 0.5) * 1.3 * card_h + (dealer_gap * card_h if ri > 0 else 0.0)
            cx0 = x0 + ci * col_w + 1.2 * card_w + card_w / 2.0
            if n_cols == 1 or zone.dealer_side:  # centre a single column's rows, and the dealer's place
                cx0 = w / 2.0 - (n - 1) * 0.6 * card_w
            slots[zone.name] = [_Slot(zone.name, k, (cx0 + k * 1.2 * card_w, cy), card_h)
                                for k in range(n)]
        return slots

    # -- the dealer's script ---------------------------------------------------------------------
    def _draw_cards(self, n: int, months_apart: bool = False) -> list[str] | None:
        """``n`` cards off the pile; ``months_apart``: each of another month (an Echobo bettor holds one
        card of each month, RULES.md §7.1: two of one month in his hand is a misread), None where
        the pile holds no card of a month not drawn yet."""
        out: list[str] = []
        for _ in range(n):
            if not self._pile:
                self._pile = list(self.deck_ids)
                self._rng.shuffle(self._pile)
            if not months_apart:
                out.append(self._pile.pop())
                continue
            months = {get_card(c).month for c in out}
            other = [i for i, c in enumerate(self._pile) if get_card(c).month not in months]
            if not other:
                return None
            out.append(self._pile.pop(other[-1]))
        return out

    def deal_round(self) -> dict[str, list[str]]:
        """The cards of the next round, zone by zone (in the order dealt: the players' zones, then
        the dealer's place), from the pile; a pile short of a whole round is shuffled afresh first,
        the whole deck (shuffled back in mid-round, cards lying on the table came again, and the
        round could not be settled). An Otoroku hand draws up to 4 cards, and none after it goes
        buta: no card is drawn on a buta hand, and a round so dealt is refused."""
        zones = sorted(self.layout, key=lambda z: z.dealer_side)
        if len(self._pile) < sum(z.cards if z.cards is not None else 4 for z in zones):
            self._pile = list(self.deck_ids)
            self._rng.shuffle(self._pile)
        seats = [z.name for z in zones if not z.dealer_side]
        dealt = {}
        for zone in zones:
            if zone.cards is not None:
                dealt[zone.name] = self._draw_cards(zone.cards)
                continue
            n = int(self._rng.integers(2, 5))
            cards = self._draw_cards(2 if self.game == "otoroku" else n, months_apart=self.game == "echobo")
            if cards is None:  # (the pile short of months this bettor lacks: the whole deck, from the start)
                self._pile = []
                return self.deal_round()
            if self.game == "otoroku":
                role = "dealer" if zone.dealer_side else ("last" if zone.name == seats[-1] else "bettor")
                while len(cards) < n and not evaluate_otoroku(cards, role, {}).buta:
                    cards += self._draw_cards(1)
            dealt[zone.name] = cards
        return dealt

    def _plan_round(self) -> None:
        """Queue (frame, action, item) events for one whole round, starting at the next frame."""
        if self.western:
            self._plan_kakeya_hand()
            return
        f = self.fps
        t = self.frame_index + 1
        dealt: list[tuple[_Slot, str, bool]] = []
        # the dealer's own place last: the players' cards lie before his is shown (Echobo's card comes
        # out from under the kamishita once the bets are laid; Otoroku's dealer deals himself last)
        for zone_name, cards in self.deal_round().items():
            zone = next(z for z in self.layout if z.name == zone_name)
            for slot, card in zip(self._slots[zone.name], cards):
                # reference rows (Hankan's Shi-e) are dealt face up; an Otoroku hand has one hidden
                # card and the cards drawn after it face up
                open_on_deal = not zone.scored or (self.game == "otoroku" and slot.position > 0)
                dealt.append((slot, card, open_on_deal))
        events = []
        for slot, card, open_on_deal in dealt:
            events.append((t, "place", (slot, card, open_on_deal)))
            self._plan_hand(slot, t)
            t += max(1, round(0.4 * f))
        t += round(3.0 * f)  # bets are taken
        # (Echobo's bettors show the cards they laid, and the dealer's card comes out from under the
        # kamishita last, after a pause for the bets on them: shown first, it closed the bets before
        # the months laid could be seen, and no round of the demo could be bet on)
        dealer_last = self.game == "echobo"
        is_dealers = {z.name: z.dealer_side for z in self.layout}
        # (each bet entered by hand: a player, a card, an amount; 6 s in all left 8 to 10 bets at
        # 1.4 s each, and no round was settled)
        bets_shown = sum(1 for slot, _, open_on_deal in dealt if not open_on_deal and not is_dealers[slot.zone])
        rank_in_group = {z.name: ((1 if dealer_last and z.dealer_side else 0), i) for i, z in enumerate(self.layout)}
        if by_player_columns(self.layout):  # Kabu-Tsukuri: row 1 of every player, then row 2...
            pos = {}
            for z in self.layout:
                pos[z.name] = sum(1 for z2 in self.layout[:self.layout.index(z)] if z2.group == z.group)
            rank_in_group = {z.name: (pos[z.name], i) for i, z in enumerate(self.layout)}
        order = sorted(range(len(dealt)), key=lambda i: (rank_in_group[dealt[i][0].zone], dealt[i][0].position))
        for i in order:
            if not dealt[i][2]:
                if dealer_last and is_dealers[dealt[i][0].zone]:
                    t += round((4.0 + 3.0 * bets_shown) * f)  # the bets entered on the cards the bettors show
                events.append((t, "reveal", (dealt[i][0].zone, dealt[i][0].position)))
                self._plan_hand(dealt[i][0], t)
                t += max(1, round(0.8 * f))
        # everyone reads the result, and the dealer settles it: 4 s were too few to press Settle and
        # Confirm, and a round not confirmed left the next deal's bets refused as after a reveal
        t += round(10.0 * f)
        for slot, _, _ in dealt:
            events.append((t, "remove", (slot.zone, slot.position)))
            self._plan_hand(slot, t, leave_only=True)
            t += max(1, round(0.15 * f))
        # (the table bare a while between deals, as a gathering looks: after 1 s the next deal's
        # bets were refused as taken after the last one's reveal; the page waits 2 s)
        t += round(3.0 * f)
        events.append((t, "round-end", None))
        self._events.extend(events)
        self.round_index += 1

    @property
    def kakeya_dealers(self) -> list[str]:
        """Kakeya Toranpu: the pair dealing the hand being played (or next), for the page's session."""
        return list(self._dealers)

    def _plan_kakeya_hand(self) -> None:
        """One hand of Kakeya Toranpu played out by the rules (trump spades): the pair that did not
        deal leads, each player plays a random allowed card, the trick's winner leads the next; each
        trick is laid in the middle card by card and gathered. The losing pair deals the next hand."""
        f = self.fps
        t = self.frame_index + 1
        players = self._players
        cards = list(self.deck_ids)
        self._rng.shuffle(cards)
        hands = {p: cards[i::4] for i, p in enumerate(players)}
        trump = "S"
        rensho = rensho_of(trump)
        leader = next(p for pair in pairs_of(players) if set(pair) != set(self._dealers) for p in pair)
        left = {p: list(h) for p, h in hands.items()}
        tricks, events = [], []
        for _ in range(len(cards) // len(players)):
            start = players.index(leader)
            order = [players[(start + k) % len(players)] for k in range(len(players))]
            trick = []
            for who in order:
                led = get_western_card(trick[0]).suit if trick else None
                allowed = [c for c in left[who] if may_play(c, led, left[who], rensho)]
                card = allowed[int(self._rng.integers(len(allowed)))]
                left[who].remove(card)
                trick.append(card)
                slot = self._slots[TRICK_ZONE][players.index(who)]
                events.append((t, "place", (slot, card, True)))
                self._plan_hand(slot, t)
                t += max(1, round(1.0 * f))  # a player lays a card about a second after the one before
            t += round(1.5 * f)  # everyone sees who takes it
            for slot in self._slots[TRICK_ZONE]:
                events.append((t, "remove", (slot.zone, slot.position)))
            self._plan_hand(self._slots[TRICK_ZONE][0], t, leave_only=True)
            t += round(0.8 * f)
            leader = order[trick_winner([get_western_card(c) for c in trick], trump, rensho)]
            tricks.append(trick)
        result = settle_round({"game": self.game, "players": players, "hands": hands, "tricks": tricks,
                               "dealers": list(self._dealers)})
        self._dealers = list(result["next_dealers"])
        t += round(12.0 * f)  # the dealer settles the stones before the next deal
        events.append((t, "round-end", None))
        self._events.extend(events)
        self.round_index += 1

    def _plan_hand(self, slot: _Slot, t: int, leave_only: bool = False) -> None:
        """The dealer's hand comes from the far edge to the slot for frame ``t`` and goes back."""
        if not self.hands:
            return
        k = max(1, round(0.15 * self.fps))
        for frame in range(t - (0 if leave_only else k), t + k + 1):
            away = abs(frame - t) / (k + 1)  # 0 at the card, towards 1 at the far edge
            cx, cy = slot.centre
            self._hand_at[frame] = (cx, cy - slot.height * (0.25 + 1.6 * away), slot.height)

    def _apply(self, action: str, item) -> None:
        if action == "place":
            slot, card, face_up = item
            angle = float(self._rng.normal(0.0, 2.5))
            upside_down = bool(self._rng.random() < 0.15)
            self._on_table.append(self._position(_Placed(card, slot, face_up, angle, upside_down)))
        elif action == "reveal":
            for p in self._on_table:
                if (p.slot.zone, p.slot.position) == item:
                    p.face_up = True
                    p.patch = ()
        elif action == "remove":
            self._on_table = [p for p in self._on_table if (p.slot.zone, p.slot.position) != item]
        elif action == "round-end":
            self.rounds_completed += 1

    def _position(self, placed: _Placed) -> _Placed:
        cx, cy = placed.slot.centre
        ch = placed.slot.height
        cw = ch * self.aspect
        a = math.radians(placed.angle + (180.0 if placed.upside_down else 0.0))
        ca, sa = math.cos(a), math.sin(a)
        corners = []
        for dx, dy in ((-cw / 2, -ch / 2), (cw / 2, -ch / 2), (cw / 2, ch / 2), (-cw / 2, ch / 2)):
            corners.append((cx + dx * ca - dy * sa, cy + dx * sa + dy * ca))
        quad = self._project(np.float32(corners))
        placed.quad = tuple((float(x), float(y)) for x, y in quad)
        return placed

    # -- rendering -------------------------------------------------------------------------------
    def _patch(self, placed: _Placed):
        """The card composed once onto its piece of the (static) table, with a soft shadow:
        (x, y, image, mask, card mask) to paste on every frame while the card lies still."""
        if placed.patch:
            return placed.patch
        quad = np.float32(placed.quad)
        pad, drop = 2, 4  # the shadow falls ``drop`` pixels to the lower right, as under a lamp
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - pad
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + pad + drop
        x0, y0 = max(int(x0), 0), max(int(y0), 0)
        x1, y1 = min(int(x1), self.width), min(int(y1), self.height)
        side = placed.card if placed.face_up else self._back
        height = int(round(placed.slot.height * 1.5))
        key = (side, height)
        if key not in self._images:
            self._images[key] = card_image(side, height)
        img = self._images[key]
        ih, iw = img.shape[:2]
        src = np.float32([[0, 0], [iw - 1, 0], [iw - 1, ih - 1], [0, ih - 1]])
        size = (x1 - x0, y1 - y0)
        m = cv2.getPerspectiveTransform(src, quad - np.float32([x0, y0]))
        card = cv2.warpPerspective(img, m, size, flags=cv2.INTER_AREA)
        alpha = cv2.warpPerspective(np.full((ih, iw), 255, np.uint8), m, size, flags=cv2.INTER_LINEAR)
        shade = cv2.GaussianBlur(np.roll(np.roll(alpha, drop, axis=0), drop, axis=1), (0, 0), 2.0)
        table = self._background[y0:y1, x0:x1].astype(np.float32)
        table *= (1.0 - 0.45 * shade.astype(np.float32) / 255.0)[..., None]
        a = (alpha.astype(np.float32) / 255.0)[..., None]
        composed = np.clip(card * a + table * (1.0 - a), 0, 255).astype(np.uint8)
        mask = ((alpha > 0) | (shade > 8))[..., None]
        placed.patch = (x0, y0, composed, mask, alpha > 127)
        return placed.patch

    def _hand_mask(self) -> np.ndarray | None:
        """Where the dealer's hand and arm are in this frame (uint8 mask), or None."""
        hand = self._hand_at.pop(self.frame_index, None)
        for stale in [f for f in self._hand_at if f < self.frame_index]:  # planned before we began
            del self._hand_at[stale]
        if hand is None:
            return None
        hx, hy, ch = hand
        (px, py), = self._project(np.float32([[hx, hy]]))
        (ex, ey), = self._project(np.float32([[hx + 0.25 * ch, -ch]]))
        cw = ch * self.aspect
        mask = np.zeros((self.height, self.width), np.uint8)
        arm = np.int32([[px - 0.45 * cw, py], [px + 0.45 * cw, py], [ex + 0.6 * cw, ey], [ex - 0.6 * cw, ey]])
        cv2.fillConvexPoly(mask, arm, 255, cv2.LINE_AA)
        cv2.ellipse(mask, (int(px), int(py)), (int(0.55 * cw), int(0.32 * ch)), 0, 0, 360, 255, -1, cv2.LINE_AA)
        for k in range(4):  # fingers reaching towards the card
            fx = int(px - 0.36 * cw + k * 0.24 * cw)
            cv2.line(mask, (fx, int(py)), (fx, int(py + 0.38 * ch)), 255, max(2, int(0.13 * cw)), cv2.LINE_AA)
        return mask

    def _render(self) -> np.ndarray:
        frame = self._background.copy()
        for placed in self._on_table:
            x0, y0, composed, mask, _ = self._patch(placed)
            h, w = mask.shape[:2]
            np.copyto(frame[y0:y0 + h, x0:x0 + w], composed, where=mask)
        self._hand = self._hand_mask()
        if self._hand is not None:
            # skin, a little darker towards the edges; the hand casts a soft shadow on the table.
            # Blurs are done at a quarter of the size: the hand is large and must stay cheap.
            ys, xs = np.nonzero(self._hand[::4, ::4])
            y0, y1 = max(0, 4 * ys.min() - 24), min(self.height, 4 * ys.max() + 28)
            x0, x1 = max(0, 4 * xs.min() - 24), min(self.width, 4 * xs.max() + 28)
            m = self._hand[y0:y1, x0:x1]
            small = cv2.resize(m, ((x1 - x0) // 4, (y1 - y0) // 4), interpolation=cv2.INTER_AREA)
            shade = cv2.resize(cv2.GaussianBlur(small, (0, 0), 2.5), (x1 - x0, y1 - y0))
            edge = cv2.resize(cv2.GaussianBlur(small, (0, 0), 1.0), (x1 - x0, y1 - y0))
            roi = frame[y0:y1, x0:x1]
            dark = cv2.LUT(shade, (255 - 0.35 * np.arange(256)).astype(np.uint8))
            roi[:] = cv2.multiply(roi, cv2.merge([dark] * 3), scale=1 / 255.0)
            skin = np.empty_like(roi)
            skin[:] = (118, 148, 196)
            skin = cv2.multiply(skin, cv2.merge([cv2.LUT(edge, (204 + 0.2 * np.arange(256)).astype(np.uint8))] * 3),
                                scale=1 / 255.0)
            np.copyto(roi, skin, where=(m > 127)[..., None])
        # flickering light and sensor noise, cheap: a lookup table and a precomputed noise frame
        gain = 1.0 + 0.03 * math.sin(self.frame_index * 0.7) + float(self._rng.normal(0, 0.01))
        lut = np.clip(np.arange(256, dtype=np.float32) * gain, 0, 255).astype(np.uint8)
        frame = cv2.LUT(frame, lut)
        noise = self._noise[self.frame_index % len(self._noise)]
        cv2.add(frame, noise, dst=frame)
        cv2.subtract(frame, self._noise[(self.frame_index + 1) % len(self._noise)], dst=frame)
        return frame

    # -- the source interface --------------------------------------------------------------------
    def read(self) -> np.ndarray:
        self._pacer.wait()
        self.frame_index += 1
        if not self._events:
            self._plan_round()
        while self._events and self._events[0][0] <= self.frame_index:
            _, action, item = self._events.popleft()
            self._apply(action, item)
        frame = self._render()
        self._truth = [
            {"card": p.card if p.face_up else None,
             "face": (p.card if self.western else get_card(p.card).face) if p.face_up else "back",
             "quad": [[round(x, 2), round(y, 2)] for x, y in p.quad],
             "face_up": p.face_up, "zone": p.slot.zone, "position": p.slot.position,
             "visible": self._visible(p)}
            for p in self._on_table]
        with self._recent_lock:  # truth_for runs in the detector's thread
            self._recent.append((weakref.ref(frame), self._truth))
        return frame

    def _visible(self, placed: _Placed) -> float:
        """The fraction of the card not hidden by the dealer's hand."""
        if self._hand is None:
            return 1.0
        x0, y0, _, _, card = self._patch(placed)
        h, w = card.shape
        hidden = np.count_nonzero(card & (self._hand[y0:y0 + h, x0:x0 + w] > 127))
        return round(1.0 - hidden / max(1, np.count_nonzero(card)), 3)

    def ground_truth(self) -> list[dict]:
        """What is on the table in the frame ``read`` returned last (a copy)."""
        return [dict(t) for t in self._truth]

    def truth_for(self, frame: np.ndarray) -> list[dict] | None:
        """The ground truth of one of the recent frames this table returned, or None."""
        with self._recent_lock:
            recent = list(self._recent)
        for ref, truth in reversed(recent):
            if ref() is frame:
                return [dict(t) for t in truth]
        return None

    def close(self) -> None:
        pass


class DemoTruthDetector:
    """A detector for the demo table that reports what is truly there (``Detector`` protocol);
    a card more than half hidden by the dealer's hand is not seen.

    ``miss_rate`` drops a card from a frame and ``misread_rate`` reports a wrong face, both at
    random (seeded), to show the tracker's stability on the page; both are 0 by default.
    """

    def __init__(self, table: DemoTable, miss_rate: float = 0.0, misread_rate: float = 0.0,
                 seed: int = 0, confidence: float = 0.97):
        self.table = table
        self.miss_rate = miss_rate
        self.misread_rate = misread_rate
        self.confidence = confidence
        self._rng = np.random.default_rng(seed)
        self._faces = sorted(set(table.deck_ids) if table.western else {get_card(c).face for c in table.deck_ids})

    def detect(self, frame: np.ndarray) -> list[Detection]:
        truth = self.table.truth_for(frame)
        if truth is None:
            return []
        out = []
        for t in truth:
            if t.get("visible", 1.0) < 0.5:  # mostly under the dealer's hand: not readable
                continue
            if self.miss_rate and self._rng.random() < self.miss_rate:
                continue
            face, card, conf = t["face"], t["card"], self.confidence
            if self.misread_rate and self._rng.random() < self.misread_rate:
                face = self._faces[int(self._rng.integers(len(self._faces)))]
                card = face if self.table.western else next(c.id for c in all_cards() if c.face == face)
                conf = 0.55
            out.append(Detection(card=card, face=face, quad=tuple(tuple(p) for p in t["quad"]),
                                 confidence=conf, uncertain=conf < 0.6))
        return out
