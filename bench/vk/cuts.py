"""Shared by the experiment scripts of bench/vk (lane-strip.py,
lane-store.py, exact-cost.py): the repository root, the folder the
experiment shaders go to (bench/vk/exp, ignored), and cut, a replacement
that stops the script when the generated source no longer holds the text
it replaces (so an experiment never silently becomes the committed tile)."""
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parents[2]
out = root / "bench/vk/exp"
out.mkdir(exist_ok=True)


def cut(src, old, new, what):
    if old not in src:
        sys.exit(f"{what}: {old!r} not found; update {sys.argv[0]}")
    return src.replace(old, new)
