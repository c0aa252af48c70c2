"""Whether the operators' dashboard (admin `GET /`) keeps every text inside its card, as headless
Chromium lays it out at a given window size: used by scripts/dashboard-check.sh.

Usage: dashboard-layout.py URL [WIDTH,HEIGHT]   (default 1280,900)

Waits until the page shows figures from `/stats` (status "live"), then prints one JSON line:
{"problems": [...], "cdn": [{"text", "title"}...], "redis": [...]}. A problem is an element of a
card that runs past the card's edge, or one whose text is cut (an ellipsis, a clamp: its content
is larger than its box with overflow hidden) without its whole text in a `title`. Tables (which
scroll) and the chart (which scales) are left out.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in scripts/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_devtools import chromium_page, evaluate, run  # noqa: E402

CHECK = """(async () => {
    const live = () => document.getElementById("status").textContent === "live";
    for (let i = 0; i < 100 && !live(); i++) await new Promise((done) => setTimeout(done, 100));
    const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
        + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "")
        + " '" + el.textContent.trim().slice(0, 60) + "'";
    const problems = [];
    if (!live()) problems.push("the page never showed figures from /stats");
    for (const card of document.querySelectorAll("section.card")) {
        const box = card.getBoundingClientRect();
        for (const el of card.querySelectorAll("*")) {
            if (el.closest(".table-wrap") || el.closest("svg")) continue;
            const r = el.getBoundingClientRect();
            if (r.width === 0 && r.height === 0) continue;
            if (r.right > box.right + 0.5 || r.left < box.left - 0.5) problems.push(name(el) + " runs past its card");
            const style = getComputedStyle(el);
            const hides = style.overflowX === "hidden" || style.overflowY === "hidden";
            const cut = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
            if (hides && cut && el.title !== el.textContent) problems.push(name(el) + " is cut without its text as title");
        }
    }
    const lines = (id) => [...document.getElementById(id).children].map((el) => ({text: el.textContent, title: el.title}));
    return JSON.stringify({problems, cdn: lines("cdn-figures"), redis: lines("redis-figures")});
})()"""


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    size = argv[1] if len(argv) > 1 else "1280,900"
    with chromium_page(argv[0], ["--hide-scrollbars", "--window-size=" + size]) as page:
        print(evaluate(page, CHECK))
    return 0


if __name__ == "__main__":
    run(main)
