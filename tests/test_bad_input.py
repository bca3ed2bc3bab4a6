"""The classroom's worst: every text box of every page, the uploads and the CLI, fed the bad-input list.

Each case gives a correct render or a clear message, never an exception; user text never acts as Markdown, LaTeX
or HTML (the browser half of this, with a real Chromium watching for script dialogs, is in test_browser.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from attention_core.models import checkpoint as checkpoint_module
from attention_core.models.checkpoint import CheckpointError, save_checkpoint
from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.models.vocabulary import build_vocabulary
from attention_core.story.text import read_sentence, tokenize
from attention_core.training.corpora import CorpusError, lines_from_bytes
from attention_core.training.train import main as train_main
from tests.bad_inputs import BAD_INPUTS
from tests.conftest import assert_clean, figures, open_page, type_sentence
from ui.markdown import plain
from ui.models import SHIPPED
from ui.page_registry import SENTENCE_PAGES
from ui.train.corpora import PASTE, UPLOAD, chosen_corpus

INVISIBLE = "\x00\u200b\u200c\u200d\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_tokens_never_carry_invisible_or_control_characters(case: str) -> None:
    for token in tokenize(BAD_INPUTS[case]):
        assert token.surface and not set(token.surface) & set(INVISIBLE), repr(token)


@pytest.mark.parametrize("model", ["automatic", "English", "Arabic"])
@pytest.mark.parametrize("page", SENTENCE_PAGES)
def test_every_sentence_page_takes_every_bad_input(page: str, model: str) -> None:
    at = open_page(page)
    switch = at.radio(key=f"{page}_model")
    choice = next((option for option in switch.options if option.startswith(model)), None)
    if choice is None:  # Fill the blank offers no English model
        assert page == "fill_blank" and model == "English"
        return
    at = switch.set_value(choice).run()
    for case, text in BAD_INPUTS.items():
        at = type_sentence(at, page, text)
        assert not at.exception, (case, [e.value for e in at.exception])
        if read_sentence(text).is_empty:
            assert any("Type a sentence" in i.value for i in at.info), case
            continue
        for figure in figures(at):
            for axis in ("xaxis", "yaxis"):
                assert all(len(label) <= 40 for label in figure["layout"][axis].get("ticktext", [])), case
        for message in (*at.warning, *at.caption, *at.markdown):
            assert "<img" not in message.value and "<script" not in message.value, (case, message.value)


def test_markdown_latex_and_html_in_user_text_are_escaped_where_markdown_renders() -> None:
    at = open_page("heads")
    at.radio(key="heads_model").set_value(SHIPPED).run()
    at = type_sentence(at, "heads", "zorp_x blorf")  # Latin letters: never seen by the Arabic model, warned about
    assert_clean(at)
    assert any("zorp, \\_, x" in w.value for w in at.warning)  # the _ shows as typed, not as emphasis
    assert plain("<img src=x onerror=alert(1)>") == "\\<img src\\=x onerror\\=alert\\(1\\)\\>"
    assert plain("**b** $x$") == "\\*\\*b\\*\\* \\$x\\$"


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_pasting_bad_text_to_train_on_gives_a_message_not_an_exception(case: str) -> None:
    at = open_page("train")
    at.radio(key="train_corpus").set_value(PASTE).run()
    at.text_area(key="train_paste").input(BAD_INPUTS[case]).run()
    at = at.button(key="train_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.error, "a text of fewer than 20 lines is refused with a message"
    assert "training_run" not in at.session_state


class _Upload:
    """What st.file_uploader hands the page: a name and the bytes."""

    def __init__(self, name: str, data: bytes) -> None:
        self.name, self._data = name, data

    def getvalue(self) -> bytes:
        return self._data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"x" * 2_000_001, "more than the limit"),
        ("ليس ترميزا صحيحا\n".encode("cp1256") * 30, "not UTF-8"),
        (bytes(range(256)) * 10, "binary"),
        (b"", "empty"),
        (b"  \n\t\n ", "empty"),
    ],
    ids=["over the size limit", "not UTF-8 (Windows-1256)", "binary", "empty file", "blank lines only"],
)
def test_a_bad_upload_is_refused_with_a_clear_reason(data: bytes, message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        chosen_corpus(UPLOAD, _Upload("notes.txt", data), "")
    with pytest.raises(CorpusError, match=message):
        lines_from_bytes(data, "notes.txt", 2_000_000)


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty"), (b"\xff\xfe\x00a", "binary"), (b"\xc3\x28 bad utf-8\n", "not UTF-8"), (b"\n \n", "empty")],
    ids=["empty", "binary", "not UTF-8", "blank"],
)
def test_the_train_cli_names_a_bad_corpus_without_a_traceback(tmp_path: Path, capsys, content, message) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_bytes(content)
    assert train_main(["--corpus", str(corpus), "--out", str(tmp_path / "out"), "--steps", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and "Traceback" not in err


def test_a_read_only_or_full_output_folder_is_a_clear_error_that_keeps_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vocabulary = build_vocabulary(["a b c d"], min_count=1)
    model = MaskedLanguageModel(preset("tiny", vocab_size=len(vocabulary)))
    save_checkpoint(tmp_path, model, vocabulary, step=1)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def read_only(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(checkpoint_module.tempfile, "mkstemp", read_only)
    with pytest.raises(CheckpointError, match="could not be saved \\(Permission denied\\)"):
        save_checkpoint(tmp_path, model, vocabulary, step=2)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_the_train_cli_reports_an_unwritable_output_folder(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(f"the cat {i} sat on the mat" for i in range(40)), encoding="utf-8")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert train_main(["--corpus", str(corpus), "--out", str(blocker / "out"), "--steps", "1", "--preset", "tiny"]) == 2
    err = capsys.readouterr().err
    assert "error: " in err and "could not be saved (Not a directory)" in err and "Traceback" not in err


def test_probe_sentences_with_bad_characters_still_train_and_draw() -> None:
    at = open_page("train")
    at.radio(key="train_corpus").set_value(PASTE).run()
    at.text_area(key="train_paste").input("\n".join(f"the cat {i} sat on the mat" for i in range(40))).run()
    at.selectbox(key="train_preset").set_value("tiny").run()
    at.radio(key="train_budget_by").set_value("steps").run()
    at.number_input(key="train_steps").set_value(10).run()
    at.text_input(key="train_probe").input("<img src=x onerror=alert(1)> \u202ecat\u202c\x00 " + "a" * 400).run()
    at = at.button(key="train_start").click().run()
    run = at.session_state["training_run"]
    run.wait(60)
    at.run()
    assert_clean(at)
    assert run.progress().probe_labels[:3] == ("[CLS]", "<", "img")
