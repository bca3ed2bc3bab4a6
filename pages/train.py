"""Train: the user's own masked-word model, trained live, with its attention watched as it emerges."""

import math
from typing import Any

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from attention_core.figures.heatmaps import word_labels
from attention_core.figures.training import accuracy_curve, history_table, loss_curve
from attention_core.models.archive import MAX_ARCHIVE_BYTES, load_model_archive
from attention_core.models.checkpoint import CheckpointError
from attention_core.models.encoder import PRESETS
from attention_core.story.text import is_right_to_left, read_sentence
from attention_core.training.corpora import CorpusError
from attention_core.training.live import LIMITS, Progress, RunLimitError, TrainingRun, default_probe
from attention_core.training.train import StepReport, TrainSettings
from ui.corpora import CORPUS_CHOICES, PASTE, UPLOAD, chosen_corpus
from ui.models import RUN_KEY, UPLOADED_KEY, my_run, prefer_my_model
from ui.navigation import ensure_app_frame
from ui.show import head_grid, plain
from ui.style import for_projector
from ui.train_form import MODEL_LABELS, corpus_label, remember, remember_form, remembered, restore_form, text_size
from ui.training_roles import show_latest_roles, show_roles_over_training

ensure_app_frame()

PROBE_MAX_WORDS = 24  # the probe is drawn once per head, small: longer ones are cut
PRESET_NOTES = {
    "arabic": "3 layers × 4 heads, d = 128, heads start on neighbouring words (the shipped model's recipe)",
    "tiny": "1 layer × 2 heads, d = 32: learns fast, learns little",
    "small": "2 layers × 4 heads, d = 128, positions from the sinusoidal encoding only",
    "base": "4 layers × 8 heads, d = 256: slow on a shared server",
}

st.title("Train your own attention")
st.markdown(
    "Nobody tells attention what to look at. A model is given one game: hide a word of a sentence and guess it "
    "from the others (*masked language modelling*). To win it, its heads learn their own W1, W2, W3 (others say "
    "Q, K, V): which neighbours to read, and what to take from them. Train one on any text and watch the "
    "heatmaps of a probe sentence turn from noise into rules. Your model stays in your session; every page can "
    "use it (sidebar: **Model**)."
)

run = my_run()
status = run.progress().status if run is not None else None
running = status == "running"
restore_form()  # the values the form had when the user left for another page

left, right = st.columns(2)
form: dict[str, Any] = {
    "on_change": remember_form,
    "disabled": running,
}  # every field: remembered, and locked while training
corpus_choice = left.radio("Text to learn from", CORPUS_CHOICES, key="train_corpus", **form)
upload = pasted = None
if corpus_choice == UPLOAD:
    upload = left.file_uploader(
        "A UTF-8 .txt file, one sentence per line",
        type=["txt"],
        key="train_upload",
        max_upload_size=math.ceil(LIMITS.max_corpus_bytes / 2**20),
        disabled=running,
    )
    if upload is None and run is not None and remembered("upload_name"):
        left.caption(f"Your run trains on {plain(remembered('upload_name'))}; a new run uses it again.")
elif corpus_choice == PASTE:
    pasted = left.text_area(
        "Your text, one sentence per line (any language)",
        key="train_paste",
        height=180,
        max_chars=LIMITS.max_corpus_bytes // 4,
        **form,
    )
    left.caption(f"{text_size(pasted or '')} (training needs at least {LIMITS.min_lines} lines)")
preset_name = right.selectbox(
    "Model size",
    list(PRESET_NOTES),
    key="train_preset",
    **form,
    format_func=lambda name: f"{name}: {PRESET_NOTES[name]}",
)
by = right.radio("Budget", ["minutes", "steps"], key="train_budget_by", horizontal=True, **form)
if by == "minutes":
    budget = right.number_input("Minutes", 0.25, LIMITS.max_minutes, step=0.25, key="train_minutes", **form)
    settings = TrainSettings(minutes=float(budget), steps=None)
else:
    budget = right.number_input("Steps", 10, LIMITS.max_steps, step=100, key="train_steps", **form)
    settings = TrainSettings(steps=int(budget), minutes=LIMITS.max_minutes)
probe_text = right.text_input(
    f"Probe sentence, up to {PROBE_MAX_WORDS} words (its attention is drawn live)",
    key="train_probe",
    max_chars=500,
    **form,
    placeholder="empty: the first held-out line of the text",
)
st.caption(
    f"Limits on this shared server: {LIMITS.max_minutes:g} minutes or {LIMITS.max_steps:,} steps per run, "
    f"uploads and pastes up to {LIMITS.max_corpus_bytes / 1e6:g} MB and at least {LIMITS.min_lines} lines, "
    f"{LIMITS.max_runs_at_once} runs at once on the whole server. A run goes on while you visit other pages."
)


def start(how: str, archive: UploadedFile | None = None) -> None:
    """Start a new run ("new", or "archive": a downloaded model trained further), "resume" the stopped one, or
    "longer": train the finished one for the budget above. Every failure is a message; nothing else changes."""
    try:
        current = my_run()
        if how in ("resume", "longer"):
            if current is None:  # the buttons are off without a run; a stale click from another tab lands here
                raise ValueError("there is no run to go on with: start a new run first")
            notices = current.resume() if how == "resume" else current.train_longer(settings)
        else:
            if corpus_choice == UPLOAD and upload is None and current is not None and remembered("upload_name"):
                corpus = current.corpus  # the file the last run was started with (an uploader forgets its file)
            else:
                corpus = chosen_corpus(corpus_choice, upload, pasted or "")
            probe = read_sentence(probe_text, PROBE_MAX_WORDS)
            tokens = list(probe.tokens) if not probe.is_empty else default_probe(corpus)
            if how == "archive":
                if archive is None:
                    raise ValueError("choose a model file (.zip) to load first")
                current = TrainingRun.from_archive(archive.getvalue(), archive.name, corpus, tokens)
            else:
                current = TrainingRun(corpus, preset_name, tokens, model_label=MODEL_LABELS[preset_name])
            notices = current.start(settings)
            st.session_state[RUN_KEY] = current  # only a run that started replaces the previous model
            remember("upload_name", upload.name if upload is not None else None)
            prefer_my_model()
        st.session_state["train_notices"] = notices
    except CheckpointError as error:  # a bad model file: said under the uploader, where the user looks
        st.session_state["train_load_message"] = ("error", f"{plain(error)}. Nothing changed.")
    except (CorpusError, RunLimitError, ValueError) as error:
        st.session_state["train_error"] = str(error)


def stop_run() -> None:
    if (current := my_run()) is not None:
        current.stop()


remember_form()
progress = run.progress() if run is not None else None
stopping = progress is not None and progress.stopping
start_col, stop_col, resume_col, longer_col = st.columns(4)
start_col.button(
    "Start a new run",
    type="primary",
    disabled=running,
    on_click=start,
    args=("new",),
    key="train_start",
    help="Trains a new model from scratch (your previous one, if any, is replaced).",
)
stop_col.button(
    "Stopping…" if stopping else "Stop", disabled=not running or stopping, on_click=stop_run, key="train_stop"
)
resume_col.button(
    "Resume",
    disabled=progress is None or not progress.can_resume,
    on_click=start,
    args=("resume",),
    key="train_resume",
    help="Goes on from where the run stopped: the same budget, clock and learning-rate schedule.",
)
longer_col.button(
    "Train longer",
    disabled=progress is None or not progress.can_train_longer,
    on_click=start,
    args=("longer",),
    key="train_longer",
    help="The finished model, trained further for the budget "
    "above (a new budget: its learning rate starts high again and decays).",
)
if error := st.session_state.pop("train_error", None):
    st.error(plain(error))
for notice in st.session_state.pop("train_notices", []):
    st.info(notice)


def draw_probe(progress: Progress, index: int, key: str) -> None:
    snapshot = progress.snapshots[index]
    labels = word_labels(list(progress.probe_labels), progress.probe_known)
    rtl = is_right_to_left(" ".join(progress.probe_labels))
    loss = f", loss {snapshot.loss:.2f}" if snapshot.loss is not None else " (untrained: random weights)"
    st.markdown(f"**The probe's attention at step {snapshot.step:,}**{loss}")
    n = len(labels)
    st.latex(
        r"A^{(\ell,h)} = \mathrm{softmax}\!\left(\frac{V1\,V2^\top}{\sqrt{d_h}}\right),\quad "
        rf"({n} \times {n})\ \text{{per head}}"
    )
    head_grid(snapshot.weights, labels, rtl, key, average=False)


def progress_line(progress: Progress, last: StepReport) -> str:
    """step · loss · speed · time, and for a stopped run where in its budget it stopped."""
    line = f"step {last.step:,} · loss {last.loss:.3f} · {last.tokens_per_s:,.0f} words/s · {last.elapsed_s:.0f} s"
    budget = progress.budget
    if progress.status in ("stopped", "failed") and budget is not None:
        limit = f"{budget.steps:,} steps" if budget.steps else f"{budget.minutes:g} min"
        line += f" · stopped at {last.progress:.0%} of the budget ({limit})"
    return line


@st.fragment(run_every=1.0 if running else None)
def live_view(was_running: bool) -> None:
    """Redrawn every second while the run goes on; the rest of the page stays as it is."""
    current = my_run()
    if current is None:  # drawn only for a session with a run; nothing to redraw without one
        return
    progress = current.progress()
    if was_running and progress.status != "running":
        st.rerun()  # the run ended: redraw the whole page (buttons, replay, download)
    table = history_table(progress.reports)
    last = progress.reports[-1] if progress.reports else None
    phrase = {"running": "Training", "stopped": "Stopped", "finished": "Finished", "failed": "Failed"}
    st.subheader(
        f"{phrase.get(progress.status, '')}: your {plain(current.model_label)} model on "
        f"{plain(corpus_label(current.corpus.name))}"
    )
    if progress.error:
        st.error(f"The run failed: {plain(progress.error)}. Your last saved model is kept; Resume to go on.")
    if progress.stopping:
        st.info("Stopping… (saving the model; it takes a second)")
    if progress.preparing is not None and progress.status == "running":
        what, share = progress.preparing
        st.progress(share, text=f"Preparing the text before step 1: {what}… {share:.0%}")
    elif last is not None:
        st.progress(last.progress, text=progress_line(progress, last))
    elif progress.status == "stopped":
        st.caption("Stopped while the text was being prepared, before step 1: there is no model to keep yet.")
    loss_col, accuracy_col = st.columns(2)
    loss_col.plotly_chart(for_projector(loss_curve(table)), key="train_loss")
    accuracy_col.plotly_chart(for_projector(accuracy_curve(table)), key="train_accuracy")
    if progress.evaluations:
        step, scores = progress.evaluations[-1]
        accuracy_col.caption(
            f"Step {step:,}: the model guesses {scores['top1']:.1%} of held-out masked words first time; counting "
            f"which word follows which (bigram) gets {scores['bigram_top1']:.1%}. Held-out lines were never trained on."
        )
    if progress.snapshots and progress.status == "running":
        draw_probe(progress, len(progress.snapshots) - 1, "train_live")
        show_latest_roles(progress, is_right_to_left(" ".join(progress.probe_labels)))


with st.expander("Load a model you downloaded earlier", expanded="train_loaded_file" in st.session_state):
    archive = st.file_uploader(
        "The .zip from “Download my model”",
        type=["zip"],
        key="train_model_upload",
        max_upload_size=math.ceil(MAX_ARCHIVE_BYTES / 2**20),
    )
if archive is not None and st.session_state.get("train_loaded_file") != archive.file_id:
    st.session_state["train_loaded_file"] = archive.file_id  # read each upload once, not on every rerun
    try:
        st.session_state[UPLOADED_KEY] = load_model_archive(archive.getvalue(), archive.name)
        prefer_my_model("upload")
        st.session_state["train_load_message"] = (
            "success",
            f"Loaded {plain(archive.name)}: every page can use it now (sidebar: **Model**).",
        )
    except CheckpointError as error:
        st.session_state["train_load_message"] = (
            "error",
            f"{plain(error)}. Nothing changed: the pages keep the "
            "model they had (the shipped one if you have no other).",
        )
if archive is not None:
    st.button(
        "Train this model further on the text above",
        key="train_further",
        disabled=running,
        on_click=start,
        args=("archive", archive),
        help="Its own vocabulary and word pieces; the budget above.",
    )
if archive is not None and "train_load_message" in st.session_state:
    kind, message = st.session_state["train_load_message"]
    (st.success if kind == "success" else st.error)(message)

if run is None:
    st.info("Pick a text and press **Start a new run**. A 2-minute run on the Qurʾān shows heads forming.")
    st.stop()
live_view(running)

progress = run.progress()
if not running and progress.snapshots:
    st.subheader("Replay: how the attention emerged")
    steps = [s.step for s in progress.snapshots]
    picked = st.select_slider(
        "Step",
        options=range(len(steps)),
        value=len(steps) - 1,
        key="train_replay",
        format_func=lambda i: f"{steps[i]:,}",
    )
    if run.preset_name not in PRESETS:
        first = f"The first (step {steps[0]:,}) is the model as you loaded it"
    elif PRESETS[run.preset_name].local_init:
        first = (
            "Step 0 is the untrained model: its heads start on neighbouring words (a learned position bias, "
            "set at the start), and the words' own pull grows from there"
        )
    else:
        first = "Step 0 is the untrained model: random W1, W2, W3 spread attention almost evenly"
    st.caption(
        f"{len(steps)} snapshots, taken every few seconds of training. {first}. Slide right to watch the "
        "heads settle on their rules."
    )
    draw_probe(progress, picked, "train_replay_grid")
    show_roles_over_training(progress, picked, is_right_to_left(" ".join(progress.probe_labels)))
if not running and run.has_checkpoint:
    st.download_button(
        "Download my model (.zip: safetensors weights, config and vocabulary JSON)",
        data=run.checkpoint_zip,
        file_name=f"{run.download_stem}.zip",
        mime="application/zip",
        key="train_download",
    )
    st.download_button(
        "Download the training log (CSV)",
        history_table(progress.reports).to_csv().encode("utf-8"),
        file_name=f"{run.download_stem}-log.csv",
        mime="text/csv",
        key="train_log",
    )
