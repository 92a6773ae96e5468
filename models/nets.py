"""The networks (PyTorch; training only). All take BGR pixels 0..255 as float and normalise inside,
so the run-time side only casts and transposes.

- ``MaskNet``: fully convolutional; frame (scaled so its long side is ~320 px) -> maps at half
  the input resolution: the card's *shrunk interior* (each card shrunk to ``SHRINK`` around its
  centre, so touching cards give separate blobs), the whole visible card and, with ``outputs=3``,
  the *centre map* (models.data.centre_targets: 1 at each interior's middle, falling to 0 at its
  edge), whose peaks stay apart where the interiors of touching cards run together.
- ``CropNet``: a 3x96x64 upright card crop -> face logits (36 faces + back + none) and orientation
  logits (0: the crop's top is the card's top; 1: the card is upside down in the crop).
- ``QuadNet``: a 3x96x64 crop around a card's quad, with some table around it -> where the card's
  corners lie in it (the quad re-fitted).
"""
from __future__ import annotations

import torch
from torch import nn

from models.labels import CLASSES, INPUT_MULTIPLE, MASK_STRIDE, SHRINK  # noqa: F401 (re-exported)


def _cbr(cin, cout, k=3, s=1, groups=1, dilation=1):
    pad = dilation * (k // 2)
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, pad, dilation=dilation, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class _DWBlock(nn.Module):
    """Depthwise-separable block with a residual when shapes allow."""

    def __init__(self, cin, cout, stride=1, dilation=1):
        super().__init__()
        self.dw = _cbr(cin, cin, 3, stride, groups=cin, dilation=dilation)
        self.pw = _cbr(cin, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.pw(self.dw(x))
        return x + y if self.residual else y


INPUT_SCALE, INPUT_SHIFT = 1.0 / 127.5, -1.0  # pixels 0..255 -> -1..1 inside the nets


class _Normalise(nn.Module):
    def forward(self, x):
        return x * INPUT_SCALE + INPUT_SHIFT


class MaskNet(nn.Module):
    def __init__(self, width: int = 1, outputs: int = 2):
        super().__init__()
        c1, c2, c3, c4 = 16 * width, 32 * width, 64 * width, 128 * width
        self.norm = _Normalise()
        self.stem = _cbr(3, c1, 3, 2)                         # 1/2
        self.down2 = nn.Sequential(_DWBlock(c1, c2, 2), _DWBlock(c2, c2))   # 1/4
        self.down3 = nn.Sequential(_DWBlock(c2, c3, 2), _DWBlock(c3, c3))   # 1/8
        self.down4 = nn.Sequential(_DWBlock(c3, c4, 2), _DWBlock(c4, c4, dilation=2),
                                   _DWBlock(c4, c4, dilation=4), _DWBlock(c4, c4, dilation=2))  # 1/16
        self.up3 = _cbr(c4 + c3, c3, 1)
        self.ref3 = _DWBlock(c3, c3)
        self.up2 = _cbr(c3 + c2, c2, 1)
        self.ref2 = _DWBlock(c2, c2)
        self.up1 = _cbr(c2 + c1, c1, 1)
        self.ref1 = _DWBlock(c1, c1)
        self.head = nn.Conv2d(c1, outputs, 1)

    @staticmethod
    def _up(x, like):
        return nn.functional.interpolate(x, size=like.shape[-2:], mode="bilinear", align_corners=False)

    def forward(self, x):
        x = self.norm(x)
        f1 = self.stem(x)
        f2 = self.down2(f1)
        f3 = self.down3(f2)
        f4 = self.down4(f3)
        y = self.ref3(self.up3(torch.cat([self._up(f4, f3), f3], 1)))
        y = self.ref2(self.up2(torch.cat([self._up(y, f2), f2], 1)))
        y = self.ref1(self.up1(torch.cat([self._up(y, f1), f1], 1)))
        return self.head(y)  # logits; the exported model adds a sigmoid


CROP_LATE_CHANNELS, CROP_MAP_CHANNELS = 128, 48  # the shipped crop net's widths


def _crop_body(late: int = CROP_LATE_CHANNELS, maps: int = CROP_MAP_CHANNELS) -> nn.Sequential:
    """The convolutional body of the crop nets: a 3x96x64 crop -> ``maps`` maps of 6x4. ``late``:
    the channels of the last stage (at 6x4, where widening costs little time)."""
    return nn.Sequential(
        _cbr(3, 24, 3, 2),                                  # 48x32
        _DWBlock(24, 48, 2), _DWBlock(48, 48),              # 24x16
        _DWBlock(48, 96, 2), _DWBlock(96, 96),              # 12x8
        _DWBlock(96, late, 2), _DWBlock(late, late), _DWBlock(late, late),  # 6x4
        _cbr(late, maps, 1),
    )


class CropNet(nn.Module):
    """``late``, ``maps``: the widths of the last stage and of the maps the heads read (the
    shipped net's by default; models.weights.load_exported_widened starts a wider one from it)."""

    def __init__(self, n_classes: int = len(CLASSES), late: int = CROP_LATE_CHANNELS,
                 maps: int = CROP_MAP_CHANNELS):
        super().__init__()
        self.late, self.maps = late, maps
        self.norm = _Normalise()
        self.features = _crop_body(late, maps)
        # flatten (not global pooling) keeps where things are in the crop: the orientation needs it
        self.dropout = nn.Dropout(0.2)
        self.face = nn.Linear(maps * 6 * 4, n_classes)
        self.orientation = nn.Linear(maps * 6 * 4, 2)

    def forward(self, x):
        f = self.dropout(torch.flatten(self.features(self.norm(x)), 1))
        return self.face(f), self.orientation(f)


class QuadNet(nn.Module):
    """A crop around a card's quad (the quad grown by ``grow`` about its centre, warped upright to
    3x96x64: vision.geometry.context_warp) -> where the card's four corners lie in it, in the order
    of the quad's own corners, as shares of the crop's width and height. It learns the offset from
    where the corners would be were the quad right (the head starts at zero: the quad as it is)."""

    def __init__(self, grow: float, width: int = 64, height: int = 96):
        super().__init__()
        self.norm = _Normalise()
        self.features = _crop_body()
        self.head = nn.Linear(48 * 6 * 4, 8)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)
        from vision.geometry import context_corners
        self.register_buffer("unmoved", torch.tensor(context_corners(grow, width, height), dtype=torch.float32).reshape(8))

    def forward(self, x):
        return self.unmoved + self.head(torch.flatten(self.features(self.norm(x)), 1))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
