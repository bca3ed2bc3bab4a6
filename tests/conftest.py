"""What many test files share: the app under AppTest, its figures as the browser receives them, and sentences."""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from streamlit.testing.v1 import AppTest

from attention_core.figures.heatmaps import UNKNOWN_MARK

APP = str(Path(__file__).parents[1] / "app.py")


@pytest.fixture(autouse=True)
def seeded() -> None:
    """Every test starts from the same random state, whatever ran before it and in whatever order: a test's
    torch.randn is the same numbers on every run (issue 32: an unseeded one failed once in a full run)."""
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


ENGLISH = "The cat sat on the mat"
ARABIC = "ذَهَبَ الطالبُ إلى المدرسةِ"
ARABIC_WORDS = ["ذَهَبَ", "الطالبُ", "إلى", "المدرسةِ"]


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60).run()
    return at.switch_page(f"pages/{page}.py").run()


def open_link(page: str, **query: str | list[str]) -> AppTest:
    """A shared link to one page, its file run alone (as a server's first visit runs it: no app frame)."""
    at = AppTest.from_file(APP.replace("app.py", f"pages/{page}.py"), default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def open_framed_link(page: str, **query: str | list[str]) -> AppTest:
    """A shared link to one page, framed by app.py (its sidebar: the language switch, presentation mode)."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    return at.switch_page(f"pages/{page}.py").run()


def figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def figure_of(at: AppTest, key: str) -> dict:
    """The figure of the chart drawn with `key` (ui.show.chart's key), as the browser receives it."""
    (found,) = [c for c in at.get("plotly_chart") if c.proto.id.endswith(f"-{key}")]
    return json.loads(found.proto.spec)


def values(figure: dict, trace: int = 0) -> np.ndarray:
    """A heatmap's z as numbers: Plotly sends a typed array {"dtype", "bdata", "shape"}, or plain lists. A scatter
    (the query–key map) has no z: its points, x then y (without the None between line segments)."""
    if "z" not in figure["data"][trace]:
        points = [figure["data"][trace][axis] for axis in ("x", "y")]
        return np.stack(
            [values({"data": [{"z": p if isinstance(p, dict) else [v for v in p if v is not None]}]}) for p in points]
        )
    z = figure["data"][trace]["z"]
    if not isinstance(z, dict):
        return np.asarray(z, dtype=np.float64)
    flat = np.frombuffer(base64.b64decode(z["bdata"]), dtype=z["dtype"])
    shape = z.get("shape")
    return flat.reshape([int(k) for k in shape.split(",")] if isinstance(shape, str) else shape or [-1])


def word_axes(at: AppTest) -> list[tuple[list[str], list[str]]]:
    """(x labels, y labels) of every word × word heatmap on the page, without the unknown-word mark."""
    axes = []
    for figure in figures(at):
        x, y = figure["layout"]["xaxis"].get("ticktext"), figure["layout"]["yaxis"].get("ticktext")
        if x and x == y:  # (a scatter, such as the query–key map, has no word ticks)
            axes.append(([w.removesuffix(UNKNOWN_MARK) for w in x], [w.removesuffix(UNKNOWN_MARK) for w in y]))
    return axes


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def hidden_word_pills(at: AppTest):
    """Fill the blank's "click a word to hide it" (its key follows the sentence)."""
    return next(p for p in at.pills if p.key.startswith("fill_blank_hidden_"))


def type_sentence(at: AppTest, page: str, text: str) -> AppTest:
    return at.text_input(key=f"{page}_sentence").input(text).run()
