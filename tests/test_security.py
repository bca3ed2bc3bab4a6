"""The security promises of the README's threat model, checked on the code itself (AST, not grep)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
# What st.html may be given: fixed CSS constants, and the switches that choose among them.
FIXED_CSS_NAMES = {
    "_BIDI_CSS",
    "_RTL_BROWSER_CSS",
    "_RTL_INTERFACE_CSS",
    "_PRESENTATION_CSS",
    "_FOCUS_CSS",
    "RTL_CHIPS_CSS",
    "WIDE_LABELS_CSS",
    "presentation",
    "rtl_browser",
    "right_to_left",
}
APP_CODE = sorted(
    [
        ROOT / "app.py",
        *(ROOT / "attention_core").rglob("*.py"),
        *(ROOT / "ui").rglob("*.py"),
        *(ROOT / "pages").rglob("*.py"),
    ]
)


def calls(path: Path) -> list[tuple[str, ast.Call]]:
    """(dotted name of the called function, the call) for every call in a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            found.append((ast.unparse(node.func), node))
    return found


@pytest.mark.parametrize("path", APP_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_pickle_no_eval_no_html_from_user_text(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert not imported & {"pickle", "dill", "joblib", "subprocess", "marshal", "shelve"}
    for name, call in calls(path):
        assert name not in {"torch.load", "eval", "exec", "compile", "os.system", "__import__"}, name
        assert not any(k.arg == "unsafe_allow_html" for k in call.keywords), f"{name} with unsafe_allow_html"
        if name == "st.html":  # only fixed CSS (style, bidi, accessibility): module constants, never a user's value
            assert path.name in {"style.py", "bidi.py", "accessibility.py"}
            names = {n.id for n in ast.walk(call.args[0]) if isinstance(n, ast.Name)}
            assert names <= FIXED_CSS_NAMES, names


def test_uploaded_bytes_are_written_only_into_a_temporary_folder() -> None:
    """Corpora stay in memory; a model zip is unpacked only inside tempfile.TemporaryDirectory (model_archive)."""
    writers = {"write_bytes", "write_text", "extract", "extractall", "mkdir", "mkstemp", "NamedTemporaryFile"}

    def opens_for_writing(call: ast.Call) -> bool:
        modes = [a.value for a in [*call.args, *(k.value for k in call.keywords)] if isinstance(a, ast.Constant)]
        return any(isinstance(m, str) and set(m) & set("wax+") for m in modes)

    for path in [
        ROOT / "ui" / "train" / "corpora.py",
        ROOT / "pages" / "train.py",
        ROOT / "attention_core" / "training" / "corpora.py",
    ]:
        for name, call in calls(path):
            short = name.split(".")[-1]
            assert short not in writers and not (short == "open" and opens_for_writing(call)), (path, name)
    archive = (ROOT / "attention_core" / "models" / "archive.py").read_text(encoding="utf-8")
    assert "extractall" not in archive and "extract(" not in archive  # members are never unpacked by their own path
    assert "tempfile.TemporaryDirectory" in archive
