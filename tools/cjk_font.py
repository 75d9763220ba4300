"""Build handmade/fonts/handmade-cjk.ttf: the Chinese characters of the message catalogue, and no
others, cut from a CJK font, so that heatmaps in the Chinese edition can draw their labels on any
machine (matplotlib's own font, DejaVu Sans, has no Chinese; nothing is downloaded at run time).

    python3 tools/cjk_font.py /usr/share/fonts/truetype/wqy/wqy-microhei.ttc

Run it again after the catalogue gains characters (tests/test_messages.py says when). The source used
is WenQuanYi Micro Hei (Debian's fonts-wqy-microhei), Apache-2.0; see handmade/fonts/README.md.
Needs fontTools (pip install fonttools); the package itself does not.
"""

import sys

from messages import ROOT, read, strings

FONT = ROOT / "handmade" / "fonts" / "handmade-cjk.ttf"


def wide_characters():
    """Every character of the Chinese translations that DejaVu Sans may lack (CJK and full-width forms),
    in the messages the package may draw: not those only a tool prints in a terminal (tools/site.py's)."""
    drawn = [m for m in read("zh") if not m.locations or any(not f.startswith("tools/") for f, _n in m.locations)]
    text = "".join(s for message in drawn for s in strings(message.string))
    return sorted({c for c in text if ord(c) >= 0x2E80})


def build(source):
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source, fontNumber=0)  # a .ttc holds several faces; the first is the proportional one
    options = subset.Options()
    options.name_IDs = ["*"]  # keep the names (and the licence notice) of the source
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in wide_characters()])
    subsetter.subset(font)
    temporary = FONT.with_suffix(".tmp")
    font.save(temporary)
    temporary.replace(FONT)
    return FONT


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = build(sys.argv[1])
    print(f"{path.relative_to(ROOT)}: {len(wide_characters())} characters, {path.stat().st_size // 1024} KB")
