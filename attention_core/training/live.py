"""A training run in a background thread, for the app: start, stop, resume, and watch attention emerge.

The app's script reruns many times a second while a run goes on, and the user may leave for another page, so the
run cannot live inside a script run. `TrainingRun` owns a thread that calls `train(...)`; the page only polls it
(`progress()`), which copies what the thread has published under a lock. While training, the run keeps:

- the step reports (loss, learning rate, held-out accuracy on evaluation steps) for the live chart;
- snapshots of every head's attention on a probe sentence, a few seconds apart, for the replay slider;
- a copy of the latest weights as a `TrainedModel`, so every page can use "my model" even mid-run.

Before the first step the text is prepared (word pieces learned, lines encoded: about 15 s on the hadith); the
run publishes how far that got, and a built-in corpus is prepared once per server and shared, read-only.
Stop is answered within about a second, also while preparing or evaluating. Resume goes on with the same budget,
clock and learning-rate schedule; a finished run is trained further only when asked (`train_longer`), for a new
budget. A run can also start from a model the user downloaded earlier (`TrainingRun.from_archive`).

Runs are bounded (`Limits`) and counted server-wide: a classroom of thirty must not start thirty runs on two cores.
"""

from __future__ import annotations

import copy
import io
import re
import shutil
import tempfile
import threading
import time
import weakref
import zipfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import torch

from attention_core.models.archive import unpack_model_archive
from attention_core.models.checkpoint import WEIGHTS, CheckpointError
from attention_core.models.encoder import MaskedLanguageModel, preset
from attention_core.models.trained import TrainedModel
from attention_core.models.vocabulary import Vocabulary
from attention_core.story.text import Token, tokenize
from attention_core.training.corpora import BUILT_IN, CREDITS, Corpus, CorpusError
from attention_core.training.prepare import Prepared
from attention_core.training.train import Spent, StepReport, TrainSettings, train
from attention_core.words import N_, Worded

Status = Literal["ready", "running", "stopped", "finished", "failed"]


@dataclass(frozen=True)
class Limits:
    """What one run may use. The defaults keep a 2-core server answering while two runs go on."""

    max_minutes: float = 10.0
    max_steps: int = 20_000
    max_corpus_bytes: int = 2_000_000  # an uploaded or pasted text (the Qurʾān is 0.7 MB of UTF-8)
    min_lines: int = 20  # every tenth line is held out: 20 lines leave 2 to score
    max_runs_at_once: int = 2  # on the whole server, all sessions together


LIMITS = Limits()
DEMO_PRESET = "live"  # the Train page's default recipe: nothing built in, so the heads' roles emerge in the run
SNAPSHOT_EVERY_S = 2.0  # seconds of training between two snapshots of the probe's attention
MAX_SNAPSHOTS = 90  # when reached, every other snapshot is dropped (the replay keeps its whole span)

# One torch thread trains. On two cores shared with page runs and other work, a second OpenMP thread waits for the
# first at every parallel region: a median 1.97 steps/s against 8.18 with one thread, 5 stretches each under a load
# of about 5 (bench/training_threads.py, docs/runs/training_threads.txt). On an idle machine two threads were 14 %
# faster (6,560 against 7,650 words/s), a gain a shared server rarely sees.
TRAINING_THREADS = 1
_RUN_SLOTS = threading.BoundedSemaphore(LIMITS.max_runs_at_once)  # shared by every session of the server


class _SharedPreparations:
    """Built-in corpora prepared once per server (read-only after; each run forks its lexicon). A user's own text
    is never kept here: it stays in that user's run."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._prepared: dict[tuple[Corpus, int], Prepared] = {}

    @staticmethod
    def shareable(corpus: Corpus) -> bool:
        return all(part.name in BUILT_IN and part.credit == CREDITS[part.name] for part in corpus.weighted_parts())

    def get(self, corpus: Corpus, max_len: int) -> Prepared | None:
        with self._lock:
            return self._prepared.get((corpus, max_len)) if self.shareable(corpus) else None

    def put(self, corpus: Corpus, max_len: int, prepared: Prepared) -> None:
        if self.shareable(corpus):
            with self._lock:
                self._prepared[(corpus, max_len)] = prepared  # at most 3 corpora × 2 lengths on this server


_SHARED = _SharedPreparations()


class RunLimitError(RuntimeError):
    """Too many runs on this server right now; the message says so in plain words."""


class RunStateError(ValueError):
    """A control pressed when the run cannot do it (a stale click from another tab); the message says why."""


@dataclass(frozen=True)
class Snapshot:
    step: int
    loss: float | None  # the training loss at that step (None before the first step)
    weights: torch.Tensor  # (n_layers, n_heads, n, n): every head's attention on the probe sentence


@dataclass(frozen=True)
class Progress:
    """What the page draws, copied out of the running thread in one piece."""

    status: Status
    reports: tuple[StepReport, ...]
    snapshots: tuple[Snapshot, ...]
    probe_labels: tuple[str, ...]  # [CLS] and the probe's words, as typed
    probe_known: tuple[bool, ...]
    error: str | None
    preparing: tuple[str, float] | None = None  # (what is being done, share done) before the first step
    budget: TrainSettings | None = None  # the budget of the current stretch of training
    stopping: bool = False  # Stop was pressed and the run has not ended yet

    can_resume: bool = False  # stopped or failed with a saved model and budget left: Resume goes on with it
    can_train_longer: bool = False  # finished (or stopped with its budget used): a new budget, asked for explicitly

    @property
    def evaluations(self) -> list[tuple[int, dict]]:
        return [(r.step, r.evaluation) for r in self.reports if r.evaluation]


def check_corpus(corpus: Corpus, limits: Limits = LIMITS) -> None:
    """Raise CorpusError, in words a user understands, when a corpus is too small to train on and score.
    (The size limit applies where the user's bytes arrive: `lines_from_bytes(..., limits.max_corpus_bytes)`.)"""
    lines = len(corpus.train) + len(corpus.held_out)
    if lines < limits.min_lines:
        raise CorpusError(
            Worded(
                N_(
                    "{name}: {lines} non-blank lines; training needs at least {least} "
                    "(every tenth line is held out to measure the model on sentences it never saw)"
                ),
                name=corpus.name,
                lines=lines,
                least=limits.min_lines,
            )
        )


def default_probe(corpus: Corpus, max_words: int = 12) -> list[Token]:
    """A probe sentence for a corpus: the start of its first held-out line (a sentence the model never trains on)."""
    for line in (*corpus.held_out, *corpus.train):
        if tokens := tokenize(line):
            return tokens[:max_words]
    raise CorpusError(Worded(N_("{name}: no words to make a probe sentence from"), name=corpus.name))


def bounded(settings: TrainSettings, limits: Limits = LIMITS) -> tuple[TrainSettings, list[str]]:
    """The settings cut to the limits, and a notice for every cut."""
    notices: list[str] = []
    minutes, steps = settings.minutes, settings.steps
    if minutes is None or minutes > limits.max_minutes:
        notices.append(Worded(N_("Runs here last at most {minutes:g} minutes."), minutes=limits.max_minutes))
        minutes = limits.max_minutes
    if steps is not None and steps > limits.max_steps:
        notices.append(Worded(N_("Runs here take at most {steps:,} steps."), steps=limits.max_steps))
        steps = limits.max_steps
    return replace(settings, minutes=minutes, steps=steps), notices


@dataclass
class _Published:
    """State the thread writes and the page reads, always under the run's lock."""

    status: Status = "ready"
    reports: list[StepReport] = field(default_factory=list)
    snapshots: list[Snapshot] = field(default_factory=list)
    latest: TrainedModel | None = None
    error: str | None = None
    preparing: tuple[str, float] | None = None


def failure(error: Exception) -> str:
    """What a failed run says: the error's kind and its message (translatable when the package worded it)."""
    message = error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Worded) else str(error)
    return Worded("{kind}: {message}", kind=type(error).__name__, message=message)


def live_eval_lines(corpus: Corpus, masked_words: int = 2_000, most: int = 150) -> int:
    """Held-out lines of each part scored at each live evaluation: about `masked_words` words (each is masked in
    turn), at most `most` lines. 150 Qurʾān āyāt are about 1,800 words; 150 hadith records would be ten thousand,
    and the evaluation every 100 steps would take most of the run's time."""
    longest = max(
        (
            sum(len(line.split()) for line in part.held_out) / len(part.held_out)
            for part in corpus.weighted_parts()
            if part.held_out
        ),
        default=1.0,
    )
    return max(10, min(most, int(masked_words / max(longest, 1.0))))


def download_stem(model_label: str, corpus_name: str) -> str:
    """A file name (without extension) that says what the user chose: attention-tiny-on-pasted-text. Letters of
    any script are kept; spaces and punctuation become single hyphens."""
    words = re.findall(r"\w+", f"{model_label} on {corpus_name}".replace("_", " "))
    return "-".join(["attention", *words])[:120]


class TrainingRun:
    """One user's model: trained in a background thread into its own temporary folder, resumable."""

    def __init__(
        self, corpus: Corpus, preset_name: str, probe: list[Token], *, seed: int = 0, model_label: str = ""
    ) -> None:
        check_corpus(corpus)
        self.corpus = corpus
        self.preset_name = preset_name  # a preset's name, or "" for a model loaded from a file
        self.model_label = model_label or preset_name  # what the page and the file names call the model
        self.probe = list(probe)
        self.seed = seed
        self.folder = Path(tempfile.mkdtemp(prefix="attention-run-"))
        weakref.finalize(self, shutil.rmtree, self.folder, True)  # the folder goes with the run
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._published = _Published()
        self._last_snapshot_at = 0.0
        self._prepared: Prepared | None = None  # this run's encoded text, kept for Resume
        self._budget: TrainSettings | None = None  # the current stretch's budget (bounded)
        self._budget_first_step = 0  # the step the current budget began at
        self.probe_labels: tuple[str, ...] = ()  # filled in by the first snapshot
        self.probe_known: tuple[bool, ...] = ()

    @classmethod
    def from_archive(cls, data: bytes, name: str, corpus: Corpus, probe: list[Token]) -> TrainingRun:
        """A run that trains a downloaded model further, on `corpus`, with the model's own vocabulary. Raises
        CheckpointError (nothing is kept) when the file is not a model zip of this app."""
        run = cls(corpus, "", probe)
        unpack_model_archive(data, name, run.folder)
        run.model_label = Path(name).stem
        return run

    # --- control, called from the page -------------------------------------------------------------------------

    def start(self, settings: TrainSettings) -> list[str]:
        """Start training a new model (or a loaded one) for this budget; returns notices about limits applied.
        Raises RunLimitError when the server already runs its maximum of runs."""
        return self._launch(settings, resume=self.has_checkpoint, spent=None)

    def resume(self) -> list[str]:
        """Go on after a stop with the same budget, clock and learning-rate schedule."""
        if not self.progress().can_resume or self._budget is None:
            raise RunStateError(Worded(N_("there is no stopped run with budget left to resume")))
        last = self.progress().reports[-1] if self.progress().reports else None
        spent = Spent(last.step - self._budget_first_step, last.elapsed_s) if last is not None else Spent()
        return self._launch(self._budget, resume=True, spent=spent)

    def train_longer(self, settings: TrainSettings) -> list[str]:
        """Train the saved model further for a new budget (its cosine schedule restarts, without warm-up)."""
        if not self.has_checkpoint:
            raise RunStateError(Worded(N_("there is no saved model to train longer")))
        return self._launch(settings, resume=True, spent=None)

    def _launch(self, settings: TrainSettings, *, resume: bool, spent: Spent | None) -> list[str]:
        with self._lock:
            if self._published.status == "running":
                return []
        settings, notices = bounded(settings)
        if not _RUN_SLOTS.acquire(blocking=False):
            raise RunLimitError(
                Worded(
                    N_(
                        "{runs} training runs are already going on this server (it has few cores). "
                        "Try again in a few minutes; every other page works meanwhile."
                    ),
                    runs=LIMITS.max_runs_at_once,
                )
            )
        self._stop.clear()
        if spent is None:
            reports = self._published.reports
            self._budget_first_step = reports[-1].step if reports else 0
        self._budget = settings
        with self._lock:
            self._published.status, self._published.error = "running", None
        self._thread = threading.Thread(target=self._run, args=(settings, resume, spent), daemon=True, name="training")
        self._thread.start()
        return notices

    def stop(self) -> None:
        """Ask the run to stop; it saves its checkpoint and ends within about a second."""
        self._stop.set()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    # --- what the page reads -------------------------------------------------------------------------------------

    @property
    def has_checkpoint(self) -> bool:
        return (self.folder / WEIGHTS).is_file()

    @property
    def download_stem(self) -> str:
        return download_stem(self.model_label, self.corpus.name)

    def progress(self) -> Progress:
        with self._lock:
            p = self._published
            reports = tuple(p.reports)
            used_up = bool(reports) and reports[-1].progress >= 1.0
            saved = p.status in ("stopped", "failed", "finished") and self.has_checkpoint
            return Progress(
                p.status,
                reports,
                tuple(p.snapshots),
                self.probe_labels,
                self.probe_known,
                p.error,
                p.preparing,
                self._budget,
                p.status == "running" and self._stop.is_set(),
                can_resume=saved and p.status != "finished" and not used_up and self._budget is not None,
                can_train_longer=saved and (p.status == "finished" or used_up),
            )

    def model(self) -> TrainedModel | None:
        """The latest weights (a copy: pages can use it while the thread trains on)."""
        with self._lock:
            return self._published.latest

    def checkpoint_zip(self) -> bytes:
        """The saved checkpoint folder (safetensors weights; config, vocabulary and tokenizer JSON) as a zip file."""
        if self.progress().status == "running":
            raise CheckpointError(Worded(N_("the run is still going: stop it first, then download")))
        if not self.has_checkpoint:
            raise CheckpointError(Worded(N_("nothing trained yet")))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(self.folder.iterdir()):
                if path.is_file() and not path.name.startswith("."):
                    archive.write(path, f"my-attention-model/{path.name}")
        return buffer.getvalue()

    # --- the thread ----------------------------------------------------------------------------------------------

    def _run(self, settings: TrainSettings, resume: bool, spent: Spent | None) -> None:
        torch.set_num_threads(TRAINING_THREADS)
        try:
            # 64 sentences a step, not the CLI's 96: a shared server holds a run's activations for every session's
            # sake (the Qurʾān's longest āyāt made 96-sentence steps cost ~300 MB).
            lines = live_eval_lines(self.corpus)
            eval_settings = replace(
                settings,
                seed=self.seed,
                batch_size=64,
                eval_every=100,
                eval_lines=lines,
                log_every=50,
                save_every_s=60.0,
            )
            max_len = preset(self.preset_name).max_len if self.preset_name else None
            prepared = self._prepared or (_SHARED.get(self.corpus, max_len) if max_len else None)
            result = train(
                self.corpus,
                self.preset_name or "arabic",
                eval_settings,
                out=self.folder,
                resume=resume,
                spent=spent,
                prepared=prepared,
                on_prepare=self._on_prepare,
                on_step=self._on_step,
                should_stop=self._stop.is_set,
                observe=self._observe,
            )
            if result.prepared is not None and result.prepared is not prepared:
                self._prepared = result.prepared
                if max_len:
                    _SHARED.put(self.corpus, max_len, result.prepared)
            if result.model is not None and result.vocabulary is not None:
                self._observe(result.step, result.model, result.vocabulary, final=True)
            final_status: Status = "stopped" if result.stopped else "finished"
            with self._lock:
                self._published.status = final_status
        except Exception as error:  # the page shows the reason; the thread must never die silently
            with self._lock:
                self._published.status, self._published.error = "failed", failure(error)
        finally:
            with self._lock:
                self._published.preparing = None
            _RUN_SLOTS.release()

    def _on_prepare(self, what: str, share: float) -> None:
        with self._lock:
            self._published.preparing = (what, share)

    def _on_step(self, report: StepReport) -> None:
        with self._lock:
            self._published.preparing = None
            self._published.reports.append(report)

    def _observe(self, step: int, model: MaskedLanguageModel, vocabulary: Vocabulary, final: bool = False) -> None:
        """A snapshot every SNAPSHOT_EVERY_S seconds (and of the final weights): the probe's attention, and a
        copy of the model for the other pages. The copy is analysed, so the training model's mode never changes."""
        now = time.monotonic()
        last = self._published.snapshots[-1].step if self._published.snapshots else None
        if last is not None and now - self._last_snapshot_at < SNAPSHOT_EVERY_S and not final:
            return
        self._last_snapshot_at = now
        trained = TrainedModel(copy.deepcopy(model), vocabulary, name="my model", step=step)
        analysis = trained.analyze(self.probe)
        # This thread is the only writer of the reports, so it may read the last one without the lock.
        reports = self._published.reports
        snapshot = Snapshot(step, reports[-1].loss if step and reports else None, analysis.weights)
        with self._lock:
            if not self.probe_labels:
                self.probe_labels, self.probe_known = tuple(analysis.labels), analysis.known
            if last != step:
                self._published.snapshots.append(snapshot)
            if len(self._published.snapshots) > MAX_SNAPSHOTS:
                kept = self._published.snapshots
                self._published.snapshots = kept[::2] if kept[-1] in kept[::2] else [*kept[::2], kept[-1]]
            self._published.latest = trained
