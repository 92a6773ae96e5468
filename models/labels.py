"""What training and run time agree on (no torch here): the classifier's classes and the mask geometry."""
from __future__ import annotations

from dealer.cards import BACK, faces

NONE = "none"  # not a card: table, chips, hands, box, printed art, two half cards
CLASSES: tuple[str, ...] = (*faces(), BACK, NONE)
CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}

SHRINK = 0.7  # the mask net's interior: the card shrunk to this, both axes, around its centre
MASK_STRIDE = 2  # the mask is at 1/2 of the net's input
INPUT_MULTIPLE = 16  # net input sides must be multiples of this
