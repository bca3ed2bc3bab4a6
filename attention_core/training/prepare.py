"""A corpus made ready for training: word pieces and vocabulary learned, every line encoded, the baselines counted.

On the hadith this is the slow part of starting a run (tokenizing 13,000 long records in Python, then encoding
them), so it reads the text once, reports how far it got, and stops between lines when asked. The result is
read-only once built: the live service shares one per built-in corpus between runs (each run forks its own
lexicon, which an evaluation grows).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from attention_core.models.vocabulary import Vocabulary, build_vocabulary
from attention_core.training.baselines import BigramCounts
from attention_core.training.batches import Lexicon, encode_lines
from attention_core.training.corpora import Corpus
from attention_core.training.evaluate import StopRequested
from attention_core.words import N_, Worded

CHECK_EVERY_LINES = 100  # a hundred hadith records tokenize in about 0.1 s: Stop waits no longer than that

OnPrepare = Callable[[str, float], None]  # (what is being done, Worded for the app; share of it done 0 … 1)


@dataclass(frozen=True)
class Prepared:
    """Everything training reads besides the model; never mutated after `prepare` returns."""

    vocabulary: Vocabulary
    lexicon: Lexicon
    sequences: list[list[int]]  # every part's training windows, repeated by the part's weight (one epoch)
    counts: BigramCounts  # the counting baselines, from the training lines (each once)

    def fork(self) -> Prepared:
        """The same data with a lexicon of its own (evaluation adds unseen held-out tokens to a lexicon)."""
        return Prepared(self.vocabulary, self.lexicon.copy(), self.sequences, self.counts)


def _watched(
    lines: tuple[str, ...], what: str, on_prepare: OnPrepare | None, should_stop: Callable[[], bool] | None
) -> Iterator[str]:
    """The lines, reporting the share read and raising StopRequested every CHECK_EVERY_LINES lines."""
    for i, line in enumerate(lines):
        if i % CHECK_EVERY_LINES == 0:
            if should_stop is not None and should_stop():
                raise StopRequested
            if on_prepare is not None:
                on_prepare(what, i / len(lines))
        yield line


def prepare(
    corpus: Corpus,
    max_len: int,
    *,
    vocabulary: Vocabulary | None = None,
    min_count: int = 2,
    max_vocab: int = 24_000,
    n_pieces: int = 16_000,
    on_prepare: OnPrepare | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Prepared:
    """Learn a vocabulary from corpus.train (unless one is given: resuming or training a loaded model), then
    encode each part's training lines once. Raises StopRequested when should_stop() becomes true."""
    if vocabulary is None:
        lines: Iterable[str] = _watched(corpus.train, Worded(N_("learning word pieces")), on_prepare, should_stop)
        vocabulary = build_vocabulary(lines, min_count, max_vocab, n_pieces)
    lexicon = Lexicon(vocabulary)
    sequences: list[list[int]] = []
    once: list[list[int]] = []
    for part in corpus.weighted_parts():
        watched = _watched(part.train, Worded(N_("encoding {corpus}"), corpus=part.name), on_prepare, should_stop)
        encoded = encode_lines(watched, lexicon, max_len)  # type: ignore[arg-type]  # it only iterates
        sequences += encoded * part.weight
        once += encoded
    if on_prepare is not None:
        on_prepare(Worded(N_("counting word pairs")), 1.0)
    return Prepared(
        vocabulary, lexicon, sequences, BigramCounts(once, len(lexicon), vocabulary.n_special, lexicon.n_output)
    )
