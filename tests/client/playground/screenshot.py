"""`make playground-screenshot`: the picture in docs/playground.md, taken the way the browser tests run.

`akb playground --local` (with its own `akb local`, a fresh result cache), Debian's headless Chromium,
one question with 3 results per knowledge base, the page captured once the `done` footer is drawn,
in 256 colours (small enough to commit).

    .venv/bin/python -m tests.client.playground.screenshot docs/img/playground.png
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.client.playground.harness import CHROMIUM_MISSING, chromium, open_page, running_playground

QUESTION = "How do I rotate an API key without downtime?"
WIDTH, HEIGHT = 1280, 1000


def take(out: Path) -> int:
    """Writes the PNG and returns its size in bytes."""
    with tempfile.TemporaryDirectory(prefix="akb-cache-") as cache:
        os.environ["AKB_LOCAL_CACHE_DIR"] = cache  # a fresh cache: the answer is computed, its trace shown
        with running_playground("--local", "--delay-ms", "20") as playground, chromium() as browser:
            page = open_page(browser, playground, width=WIDTH, height=HEIGHT)
            page.click("#options-section summary")
            page.fill("#max-results", "3")
            page.click("#options-section summary")
            page.fill("#question", QUESTION)
            page.click("#ask")
            page.wait_for_selector("#single-run .done:not([hidden])")
            page.evaluate("document.activeElement.blur()")
            page.screenshot(path=str(out), full_page=False)
    shrink(out)
    return out.stat().st_size


def shrink(png: Path) -> None:
    """256 colours are plenty for a page of text; the file shrinks to a fraction (docs want < 300 KB)."""
    from PIL import Image

    with Image.open(png) as image:
        image.convert("RGB").quantize(colors=256).save(png, optimize=True)


def main(argv: list[str]) -> int:
    if CHROMIUM_MISSING:
        print(CHROMIUM_MISSING, file=sys.stderr)
        return 1
    out = Path(argv[0] if argv else "docs/img/playground.png")
    print(f"{out}: {take(out)} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
