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
from attention_core.training.live import DEMO_PRESET, LIMITS, Progress, RunLimitError, TrainingRun, default_probe
from attention_core.training.train import StepReport, TrainSettings
from attention_core.words import Worded
from ui.accessibility import focus_here
from ui.head_grid import head_grid
from ui.i18n import N_, _, keep_choice_across_languages, ngettext, option_labels, say
from ui.markdown import plain
from ui.models import RUN_KEY, UPLOADED_KEY, my_run, prefer_my_model
from ui.navigation import ensure_app_frame
from ui.show import finished
from ui.train.corpora import CORPUS_CHOICES, PASTE, UPLOAD, chosen_corpus
from ui.train.form import (
    MODEL_LABELS,
    corpus_label,
    model_label,
    remember,
    remember_form,
    remembered,
    restore_form,
    text_size,
)
from ui.train.roles import show_latest_roles, show_roles_over_training

ensure_app_frame()

PROBE_MAX_WORDS = 24  # the probe is drawn once per head, small: longer ones are cut
PRESET_NOTES = {  # the Model size options, each under its preset's name (as the CLI's --preset says it); the first
    # is the default: the live demo, whose heads must find their neighbours in the run
    DEMO_PRESET: N_(
        "live demo: nothing built in, every head learns where to look (the shipped model's size: 3 layers × 4 "
        "heads, d = 128)"
    ),
    "arabic": N_("shipped recipe: each head built in on a neighbouring word from step 0 (3 layers × 4 heads, d = 128)"),
    "tiny": N_("tiny: 1 layer × 2 heads, d = 32: learns fast, learns little"),
    "small": N_("small: 2 layers × 4 heads, d = 128, positions from the sinusoidal encoding only"),
    "base": N_("base: 4 layers × 8 heads, d = 256: slow on a shared server"),
}
BUDGETS = {"minutes": N_("minutes"), "steps": N_("steps")}  # the Budget options, shown translated

st.title(_("Train your own attention"))
st.markdown(
    _(
        "Nobody tells attention what to look at. A model is given one game: hide a word of a sentence and guess it "
        "from the others (*masked language modelling*). To win it, its heads learn their own W1, W2, W3 (others say "
        "Q, K, V): which neighbours to read, and what to take from them. Train one on any text and watch the "
        "heatmaps of a probe sentence go from an even spread to rules such as “read the word before me”: with "
        "the default recipe (live demo) on the Qurʾān, no head knows where to look at step 0, and several become "
        "previous- or next-word heads within two minutes. Your model stays in your session; every page can use it "
        "(sidebar: **Model**)."
    )
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
keep_choice_across_languages("train_corpus")
corpus_choice = left.radio(
    _("Text to learn from"), CORPUS_CHOICES, key="train_corpus", format_func=option_labels(CORPUS_CHOICES), **form
)
upload = pasted = None
if corpus_choice == UPLOAD:
    upload = left.file_uploader(
        _("A UTF-8 .txt file, one sentence per line"),
        type=["txt"],
        key="train_upload",
        max_upload_size=math.ceil(LIMITS.max_corpus_bytes / 2**20),
        disabled=running,
    )
    if upload is None and run is not None and remembered("upload_name"):
        left.caption(
            _("Your run trains on {name}; a new run uses it again.").format(name=plain(remembered("upload_name")))
        )
elif corpus_choice == PASTE:
    pasted = left.text_area(
        _("Your text, one sentence per line (any language)"),
        key="train_paste",
        height=180,
        max_chars=LIMITS.max_corpus_bytes // 4,
        **form,
    )
    left.caption(
        _("{size} (training needs at least {least} lines)").format(size=text_size(pasted or ""), least=LIMITS.min_lines)
    )
preset_name = right.selectbox(
    _("Model size"),
    list(PRESET_NOTES),
    key="train_preset",
    **form,
    format_func={name: _(note) for name, note in PRESET_NOTES.items()}.__getitem__,
)
right.caption(_(PRESET_NOTES[preset_name]))  # whole: a box cuts a long option short on a projector or a phone
by = right.radio(
    _("Budget"),
    list(BUDGETS),
    key="train_budget_by",
    horizontal=True,
    format_func={by: _(label) for by, label in BUDGETS.items()}.__getitem__,
    **form,
)
if by == "minutes":
    budget = right.number_input(_("Minutes"), 0.25, LIMITS.max_minutes, step=0.25, key="train_minutes", **form)
    settings = TrainSettings(minutes=float(budget), steps=None)
else:
    budget = right.number_input(_("Steps"), 10, LIMITS.max_steps, step=100, key="train_steps", **form)
    settings = TrainSettings(steps=int(budget), minutes=LIMITS.max_minutes)
probe_text = right.text_input(
    _("Probe sentence, up to {most} words (its attention is drawn live)").format(most=PROBE_MAX_WORDS),
    key="train_probe",
    max_chars=500,
    **form,
    placeholder=_("empty: the first held-out line of the text"),
)
st.caption(
    _(
        "Limits on this shared server: {minutes:g} minutes or {steps:,} steps per run, uploads and pastes up to "
        "{megabytes:g} MB and at least {lines} lines, {runs} runs at once on the whole server. A run goes on while "
        "you visit other pages."
    ).format(
        minutes=LIMITS.max_minutes,
        steps=LIMITS.max_steps,
        megabytes=LIMITS.max_corpus_bytes / 1e6,
        lines=LIMITS.min_lines,
        runs=LIMITS.max_runs_at_once,
    )
)


def start(how: str, archive: UploadedFile | None = None) -> None:
    """Start a new run ("new", or "archive": a downloaded model trained further), "resume" the stopped one, or
    "longer": train the finished one for the budget above. Every failure is a message; nothing else changes."""
    try:
        current = my_run()
        if how in ("resume", "longer"):
            if current is None:  # the buttons are off without a run; a stale click from another tab lands here
                raise ValueError(Worded(N_("there is no run to go on with: start a new run first")))
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
                    raise ValueError(Worded(N_("choose a model file (.zip) to load first")))
                current = TrainingRun.from_archive(archive.getvalue(), archive.name, corpus, tokens)
            else:
                current = TrainingRun(corpus, preset_name, tokens, model_label=MODEL_LABELS[preset_name])
            notices = current.start(settings)
            st.session_state[RUN_KEY] = current  # only a run that started replaces the previous model
            remember("upload_name", upload.name if upload is not None else None)
            prefer_my_model()
        st.session_state["train_notices"] = notices
    except CheckpointError as error:  # a bad model file: said under the uploader, where the user looks
        st.session_state["train_load_message"] = ("error", Worded(N_("{error}. Nothing changed."), error=error))
    except (CorpusError, RunLimitError, ValueError) as error:
        st.session_state["train_error"] = error  # said in the language of the run that shows it


def stop_run() -> None:
    if (current := my_run()) is not None:
        current.stop()


remember_form()
progress = run.progress() if run is not None else None
stopping = progress is not None and progress.stopping
start_col, stop_col, resume_col, longer_col = st.columns(4)
start_col.button(
    _("Start a new run"),
    type="primary",
    disabled=running,
    on_click=start,
    args=("new",),
    key="train_start",
    help=_("Trains a new model from scratch (your previous one, if any, is replaced)."),
)
stop_col.button(
    _("Stopping…") if stopping else _("Stop"), disabled=not running or stopping, on_click=stop_run, key="train_stop"
)
resume_col.button(
    _("Resume"),
    disabled=progress is None or not progress.can_resume,
    on_click=start,
    args=("resume",),
    key="train_resume",
    help=_("Goes on from where the run stopped: the same budget, clock and learning-rate schedule."),
)
longer_col.button(
    _("Train longer"),
    disabled=progress is None or not progress.can_train_longer,
    on_click=start,
    args=("longer",),
    key="train_longer",
    help=_(
        "The finished model, trained further for the budget "
        "above (a new budget: its learning rate starts high again and decays)."
    ),
)
if (error := st.session_state.pop("train_error", None)) is not None:
    st.error(plain(say(error)))
for notice in st.session_state.pop("train_notices", []):
    st.info(say(notice))


def starting_point(preset_name: str) -> str:
    """What the run's first snapshot shows: what the model starts with, built in before any training."""
    if preset_name not in PRESETS:
        return _("the model as you loaded it, trained before")
    config = PRESETS[preset_name]
    if config.local_init:
        return _(
            "before training: random weights, and a position bias built in that starts each head on a neighbouring "
            "word (−1, +1, −2, +2), so those diagonals are there before any training"
        )
    if config.position_bias:
        return _("before training: random weights, and a position bias that starts at 0 (no head prefers any place)")
    return _("before training: random weights (no position bias; word order only in the sinusoidal encoding)")


def has_position_bias(run: TrainingRun) -> bool:
    """Whether the run's heads add a learned bias per distance B to their scores (the presets that start heads on
    a neighbouring word have one; a loaded model says so in its weights)."""
    if run.preset_name in PRESETS:
        return PRESETS[run.preset_name].position_bias
    model = run.model()
    return model is not None and model.has_position_bias


def draw_probe(progress: Progress, index: int, key: str, start: str, *, bias: bool) -> None:
    """The probe's attention at one snapshot; the first is headed with `start` (what the model starts with). bias:
    the heads add a learned position bias B to their scores, which the formula then shows."""
    snapshot = progress.snapshots[index]
    labels = word_labels(list(progress.probe_labels), progress.probe_known)
    rtl = is_right_to_left(" ".join(progress.probe_labels))
    if snapshot.loss is not None:
        heading = _("**The probe's attention at step {step:,}**, loss {loss:.2f}")
    else:
        heading = _("**The probe's attention at step {step:,}**: {start}")
    st.markdown(heading.format(step=snapshot.step, loss=snapshot.loss, start=start))
    st.latex(
        r"A^{(\ell,h)} = \mathrm{softmax}\!\left(\frac{V1\,V2^\top}{\sqrt{d_h}}"
        + (r" + B^{(\ell,h)}\right)" if bias else r"\right)")
    )
    st.caption(_("Shapes: ({n} × {n}) per head").format(n=len(labels)))  # words in KaTeX would not read Arabic
    if bias:
        st.caption(
            _(
                "B is the head's learned position bias: one number per distance between two words, added to every "
                "score, so a head can learn to look at the word before or after whatever the words are."
            )
        )
    head_grid(snapshot.weights, labels, rtl, key, average=False, whole_on_desktop=False)


def progress_line(progress: Progress, last: StepReport) -> str:
    """step · loss · speed · time, and for a stopped run where in its budget it stopped."""
    line = _("step {step:,} · loss {loss:.3f} · {speed:,.0f} words/s · {seconds:.0f} s").format(
        step=last.step, loss=last.loss, speed=last.tokens_per_s, seconds=last.elapsed_s
    )
    budget = progress.budget
    if progress.status in ("stopped", "failed") and budget is not None:
        if budget.steps:
            stopped = _("stopped at {share:.0%} of the budget ({steps:,} steps)")
        else:
            stopped = _("stopped at {share:.0%} of the budget ({minutes:g} min)")
        line = _("{progress} · {stopped}").format(
            progress=line, stopped=stopped.format(share=last.progress, steps=budget.steps, minutes=budget.minutes)
        )
    return line


# The live heading: what the run is doing, the model and the text (whole sentences, for the translator).
HEADINGS = {
    "running": N_("Training: your {model} model on {corpus}"),
    "stopped": N_("Stopped: your {model} model on {corpus}"),
    "finished": N_("Finished: your {model} model on {corpus}"),
    "failed": N_("Failed: your {model} model on {corpus}"),
}


def preparing(what: str) -> str:
    """What preparing the text is doing, in this session's language, a corpus by its title ("encoding the Qurʾān")."""
    corpus = what.values.get("corpus") if isinstance(what, Worded) else None
    if isinstance(what, Worded) and isinstance(corpus, str):
        return _(what.template).format(corpus=corpus_label(corpus))
    return say(what)


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
    heading = HEADINGS.get(progress.status, HEADINGS["running"])
    st.subheader(
        _(heading).format(
            model=plain(model_label(current.model_label, current.preset_name)),
            corpus=plain(corpus_label(current.corpus.name)),
        )
    )
    if progress.error:
        st.error(
            _("The run failed: {error}. Your last saved model is kept; Resume to go on.").format(
                error=plain(say(progress.error))
            )
        )
    if progress.stopping:
        st.info(_("Stopping… (saving the model; it takes a second)"))
    if progress.preparing is not None and progress.status == "running":
        what, share = progress.preparing
        st.progress(
            share,
            text=_("Preparing the text before step 1: {what}… {share:.0%}").format(what=preparing(what), share=share),
        )
    elif last is not None:
        st.progress(last.progress, text=progress_line(progress, last))
    elif progress.status == "stopped":
        st.caption(_("Stopped while the text was being prepared, before step 1: there is no model to keep yet."))
    loss_col, accuracy_col = st.columns(2)
    # Each curve in half the page: its title on two lines, or smaller, where one line would run off its edge
    for where, curve, key in ((loss_col, loss_curve, "train_loss"), (accuracy_col, accuracy_curve, "train_accuracy")):
        where.plotly_chart(finished(curve(table), key, share=0.5), key=key)
    if progress.evaluations:
        step, scores = progress.evaluations[-1]
        accuracy_col.caption(
            _(
                "Step {step:,}: the model guesses {model:.1%} of held-out masked words first time; counting "
                "which word follows which (bigram) gets {bigram:.1%}. Held-out lines were never trained on."
            ).format(step=step, model=scores["top1"], bigram=scores["bigram_top1"])
        )
    if progress.snapshots and progress.status == "running":
        draw_probe(
            progress,
            len(progress.snapshots) - 1,
            "train_live",
            starting_point(current.preset_name),
            bias=has_position_bias(current),
        )
        show_latest_roles(progress)


with st.expander(_("Load a model you downloaded earlier"), expanded="train_loaded_file" in st.session_state):
    archive = st.file_uploader(
        _("The .zip from “Download my model”"),
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
            Worded(N_("Loaded {name}: every page can use it now (sidebar: **Model**)."), name=plain(archive.name)),
        )
    except CheckpointError as error:
        st.session_state["train_load_message"] = (
            "error",
            Worded(
                N_(
                    "{error}. Nothing changed: the pages keep the "
                    "model they had (the shipped one if you have no other)."
                ),
                error=error,
            ),
        )
if archive is not None:
    st.button(
        _("Train this model further on the text above"),
        key="train_further",
        disabled=running,
        on_click=start,
        args=("archive", archive),
        help=_("Its own vocabulary and word pieces; the budget above."),
    )
if archive is not None and "train_load_message" in st.session_state:
    kind, message = st.session_state["train_load_message"]  # said now: the language may have changed since
    if kind == "success":
        st.success(say(message))
    else:
        st.error(plain(say(message)))

if run is None:
    st.info(
        _(
            "Pick a text and press **Start a new run**. With the defaults (live demo, the Qurʾān, 2 minutes) heads "
            "that start spread evenly become previous- and next-word heads, most within the first minute."
        )
    )
    st.stop()
if running:
    focus_here("train_run")  # after Start (or Resume, Train longer): focus on the run's progress
live_view(running)

progress = run.progress()
if not running and progress.snapshots:
    st.subheader(_("Replay: how the attention emerged"))
    steps = [s.step for s in progress.snapshots]
    picked = st.select_slider(
        _("Step"),
        options=range(len(steps)),
        value=len(steps) - 1,
        key="train_replay",
        format_func=lambda i: f"{steps[i]:,}",
    )
    first = _("The first (step {step:,}) is {start}.").format(step=steps[0], start=starting_point(run.preset_name))
    snapshots = ngettext(
        "{n} snapshot, taken every few seconds of training.",
        "{n} snapshots, taken every few seconds of training.",
        len(steps),
    ).format(n=len(steps))
    st.caption(" ".join((snapshots, first, _("Slide right to watch the heads settle on their rules."))))
    draw_probe(progress, picked, "train_replay_grid", starting_point(run.preset_name), bias=has_position_bias(run))
    show_roles_over_training(progress, picked, is_right_to_left(" ".join(progress.probe_labels)))
if not running and run.has_checkpoint:
    st.download_button(
        _("Download my model (.zip: safetensors weights, config and vocabulary JSON)"),
        data=run.checkpoint_zip,
        file_name=f"{run.download_stem}.zip",
        mime="application/zip",
        key="train_download",
    )
    st.download_button(
        _("Download the training log (CSV)"),
        history_table(progress.reports).to_csv().encode("utf-8"),
        file_name=f"{run.download_stem}-log.csv",
        mime="text/csv",
        key="train_log",
    )
