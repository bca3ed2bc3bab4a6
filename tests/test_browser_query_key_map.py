"""The query–key map's word labels in Chromium, measured: on a 390 × 844 phone (English and Arabic), on a 1280 × 720
projector in presentation mode and on a 1024 × 768 one, no two labels' SVG text boxes overlap, none reaches past the
plot area, Plotly's toolbar covers no entry of the legend, and the page shows the labels the figure says it does
(those that fit only on a wide screen are hidden in a chart narrower than WIDE_PX, by the page's CSS).

Uses the run's server and browser (tests/conftest.py; skipped, or failed under REQUIRE_BROWSER=1, without Chromium).
"""

from __future__ import annotations

import urllib.parse

import pytest

from tests.test_browser import goto, screenshot, wait_for_charts

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TIRED = "The animal didn't cross the street because it was too tired"
ARABIC = "ذهب الله بنورهم ولهم اساور من ذهب"

# The map's plot area, its visible labels' boxes, the legend's entries and the toolbar's buttons, in CSS px.
_MEASURE = """() => {
  const plot = [...document.querySelectorAll('.js-plotly-plot')]
    .find(p => ((p.layout || {}).meta || {}).kind === 'query_key');
  if (!plot) return null;
  const box = e => { const b = e.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
  const shown = e => { const b = e.getBoundingClientRect(); return b.width > 0 && b.height > 0; };
  return {
    area: box(plot.querySelector('.nsewdrag')),
    labels: [...plot.querySelectorAll('.scatterlayer .trace text')]
      .filter(t => t.textContent && shown(t))
      .map(t => ({text: t.textContent, box: box(t), font: getComputedStyle(t).fontSize})),
    legend: [...plot.querySelectorAll('.legend .traces')].map(box),
    toolbar: [...plot.querySelectorAll('.modebar-btn')].filter(shown).map(box),
    chart: box(plot),
    meta: plot.layout.meta,
  };
}"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def _measure(browser: object, url: str, viewport: dict[str, int], name: str, **context: object) -> dict:
    """The map on the page at `url`, opened in a window of `viewport`, hovered so that the toolbar shows; screenshot
    test-output/browser/{name}.png."""
    page = browser.new_context(viewport=viewport, **context).new_page()  # type: ignore[attr-defined]
    goto(page, url)
    wait_for_charts(page)
    page.wait_for_function(f"({_MEASURE})() !== null", timeout=60_000)
    chart = page.locator(".js-plotly-plot").filter(has=page.locator(".legend")).last
    chart.scroll_into_view_if_needed()
    chart.hover(position={"x": 5, "y": 5})  # the toolbar shows; no point's hover box hides the labels
    measured = page.evaluate(_MEASURE)
    screenshot(page, name)
    page.close()
    return measured


PHONE = {"width": 390, "height": 844}
SCREENS = {  # name: (the link's parameters, the window, a phone?, the labels' smallest font px)
    "qk-phone": ({"heads_sentence": TIRED}, PHONE, True, 14),
    "qk-phone-ar": ({"heads_sentence": ARABIC, "lang": "ar"}, PHONE, True, 16),
    "qk-desktop": ({"heads_sentence": TIRED}, {"width": 1400, "height": 900}, False, 14),
    "qk-projector": ({"heads_sentence": TIRED, "presentation": "true"}, {"width": 1280, "height": 720}, False, 18),
    "qk-projector-1024": ({"heads_sentence": TIRED, "presentation": "true"}, {"width": 1024, "height": 768}, False, 18),
}


@pytest.mark.parametrize("name", list(SCREENS))
def test_no_label_of_the_query_key_map_overlaps_another_or_leaves_the_plot(
    server: str, browser: object, name: str
) -> None:
    query, viewport, phone, min_font = SCREENS[name]
    context = {"device_scale_factor": 2, "is_mobile": True, "has_touch": True} if phone else {}
    measured = _measure(browser, f"{server}/heads?{urllib.parse.urlencode(query)}", viewport, name, **context)
    area, labels = measured["area"], measured["labels"]
    wide = measured["chart"][2] - measured["chart"][0] >= 680  # the figure's WIDE_PX
    hidden = measured["meta"]["hidden"]["wide" if wide else "narrow"]
    words = len(measured["meta"]["rows"])
    assert len(labels) == 2 * words - hidden, (len(labels), words, hidden)  # as many as the caption says are shown
    assert len(labels) >= 7
    assert all(float(label["font"].removesuffix("px")) >= min_font for label in labels)
    cut = [
        label["text"]
        for label in labels
        if not all(
            (
                label["box"][0] >= area[0] - 0.5,
                label["box"][1] >= area[1] - 0.5,
                label["box"][2] <= area[2] + 0.5,
                label["box"][3] <= area[3] + 0.5,
            )
        )
    ]
    assert cut == [], f"labels cut by the plot's edge: {cut}"
    pairs = [
        (a["text"], b["text"]) for k, a in enumerate(labels) for b in labels[k + 1 :] if _overlap(a["box"], b["box"])
    ]
    assert pairs == [], f"overlapping labels: {pairs}"
    assert len(measured["legend"]) == 2
    # On a phone the page hides Plotly's toolbar (ui/style.py: it covered the figures' titles); elsewhere it shows.
    assert (measured["toolbar"] == []) if phone else measured["toolbar"]
    covered = [entry for entry in measured["legend"] for button in measured["toolbar"] if _overlap(entry, button)]
    assert covered == [], "Plotly's toolbar covers the legend"
