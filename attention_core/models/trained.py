"""A trained model as the app uses it: fill in a [MASK], or look inside — V and every head's attention.

from attention_core import load_model
model = load_model()                      # the shipped Arabic model (Qurʾān + hadith)
model.fill_mask("بسم الله [MASK] الرحيم")  # [("الرحمن", 0.93), …]
analysis = model.analyze("الحمد لله رب العالمين")
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import torch

from attention_core.models.checkpoint import load_checkpoint
from attention_core.models.encoder import EncoderConfig, MaskedLanguageModel
from attention_core.models.interface import Analysis, MaskedWordModel, unread_rows_as_zero
from attention_core.models.knock_out import Ablation, HeadSet, head_masks
from attention_core.models.vocabulary import CLS, Vocabulary
from attention_core.models.word_pieces import WordPieces
from attention_core.story.embeddings import Sentence
from attention_core.story.text import Token, tokenize

SHIPPED = Path(__file__).parents[1] / "shipped" / "arabic"  # attention_core/shipped/arabic
CLS_TOKEN = Token(CLS, CLS, is_word=False)


class TrainedModel(MaskedWordModel):
    """A masked-language model trained here (the shipped Arabic one, or a user's): one token per typed word, each
    word's vector built from its word pieces, so every typed word has a learned vector."""

    model: MaskedLanguageModel
    reads_word_pieces = False  # attention runs over whole words; pieces only build the words' vectors
    builds_words_from_pieces = True

    def __init__(self, model: MaskedLanguageModel, vocabulary: Vocabulary, *, name: str, step: int) -> None:
        self.model = model.eval()
        self.vocabulary = vocabulary
        self.name = name
        self.step = step
        with torch.no_grad():
            # [UNK] stands for a word with a character never seen in training, so its vector was never trained and
            # nothing is known of the word: give it the zero vector. It then resembles no word (V·Vᵀ shows only its
            # position), where a trained-looking vector, even the mean one, resembles many (the piece vectors share
            # a common direction: in one sentence the mean's cosine with a word was 0.70, above any real pair there).
            self.model.embedding.weight[vocabulary.unk_id] = 0.0
            # The guessable words' vectors are built from their pieces (24,000 embedding bags): once, not per guess.
            self._output_vectors = self.model.output_vectors()
        self._never_guessed = torch.tensor(vocabulary.never_guessed, dtype=torch.long)

    @property
    def shape(self) -> EncoderConfig:
        return self.model.config

    @property
    def has_position_bias(self) -> bool:  # type: ignore[override]  # read from the network, not a class constant
        """True when the heads add a learned bias per distance to their scores (the shipped preset)."""
        return self.model.config.position_bias

    def pieces(self, tokens: list[Token]) -> torch.Tensor:
        """(1, n, P) the piece ids of each token, padded with [PAD]."""
        rows = [self.vocabulary.pieces.ids(t.norm) for t in tokens]
        ids = torch.zeros(1, len(rows), max(map(len, rows), default=1), dtype=torch.long)
        for i, row in enumerate(rows):
            ids[0, i, : len(row)] = torch.tensor(row)
        return ids

    def encode(self, tokens: list[Token]) -> tuple[list[Token], torch.Tensor, tuple[bool, ...]]:
        """([CLS] + tokens cut to max_len, their pieces (1, n, P), which ones have a learned vector)."""
        tokens = [CLS_TOKEN, *tokens][: self.model.config.max_len]
        known = tuple(self.vocabulary.is_known(t.norm) for t in tokens)
        return tokens, self.pieces(tokens), known

    @property
    def max_words(self) -> int:
        """The longest sentence the model reads: its position table's length less the [CLS] in front."""
        return self.model.config.max_len - 1

    def words_read(self, tokens: list[Token]) -> int:
        """How many of the typed words and marks the model reads."""
        return min(len(tokens), self.max_words)

    def known_share(self, tokens: list[Token]) -> float:
        """Share of the words (not punctuation) with a learned vector; 0.0 for a sentence without words."""
        words = [t for t in tokens if t.is_word]
        return sum(self.vocabulary.is_known(t.norm) for t in words) / len(words) if words else 0.0

    def word_pieces_of(self, token: Token) -> list[str]:
        """How the model reads one typed word: its pieces (continuations start with ##)."""
        return self.vocabulary.pieces.strings(token.norm)

    @property
    def guessable_words(self) -> int:
        return len(self.vocabulary) - len(self.vocabulary.never_guessed)

    @torch.no_grad()
    def word_probabilities(self, final: torch.Tensor) -> torch.Tensor:
        """(…, d) final vectors at a blank → (…, vocabulary) probabilities; never [PAD], [UNK], [MASK], [CLS], nor
        an entry that is no word (Vocabulary.never_guessed: the shipped model's '', a lone tatweel's form)."""
        logits = self.model.predict_words(final, self._output_vectors)
        logits[..., self._never_guessed] = float("-inf")
        return torch.softmax(logits, dim=-1)

    def word_shown(self, index: int) -> str:
        return self.vocabulary.shown(index)

    @torch.no_grad()
    def predict(
        self, tokens: list[Token], k: int = 5, knock_out: HeadSet = (), ablation: Ablation = "zero"
    ) -> list[tuple[str, float]]:
        """fill_mask for tokens: the k likeliest whole words for the first [MASK] token, as people write them;
        with the heads in `knock_out` removed (models/knock_out.py)."""
        masks = head_masks(knock_out, self.n_layers, self.n_heads)
        all_tokens, pieces, _ = self.encode(tokens)
        blank = self.blank_position(all_tokens)
        return self.guesses(self.model(pieces, predict=False, knock_out=masks, ablation=ablation).hidden[0, blank], k)

    @torch.no_grad()
    def first_input(self, tokens: list[Token]) -> torch.Tensor:
        return self.model.embed(self.encode(tokens)[1])

    @torch.no_grad()
    def run_layer(
        self, layer: int, x: torch.Tensor, knock_out: torch.Tensor | None = None, ablation: Ablation = "zero"
    ) -> torch.Tensor:
        return self.model.blocks[layer](x, None, False, knock_out, ablation)[0]

    @torch.no_grad()
    def final_states(self, x: torch.Tensor) -> torch.Tensor:
        return self.model.norm(x)  # pre-norm: the last layer's output is normalised once more

    @torch.no_grad()
    def analyze(
        self, text: str | list[Token], knock_out: HeadSet = (), ablation: Ablation = "zero", *, causal: bool = False
    ) -> Analysis:
        """Tokens, V, what every layer's attention reads and every head's weights for a sentence (text or tokens),
        with the heads in `knock_out` removed, and the future hidden when causal. The layers run one by one, as
        MaskedLanguageModel.forward runs them in eval mode (a test compares)."""
        masks = head_masks(knock_out, self.n_layers, self.n_heads)
        tokens, pieces, known = self.encode(tokenize(text) if isinstance(text, str) else list(text))
        V = self.model.embed(pieces)
        x, inputs, weights = V, [], []
        for layer, removed in zip(self.model.blocks, masks, strict=True):
            inputs.append(layer.norm1(x)[0])  # pre-norm: the attention reads the normalised input
            x, layer_weights = layer(x, None, True, removed, ablation, causal)
            assert layer_weights is not None  # asked for (need_weights)
            weights.append(layer_weights[0])
        labels = [t.surface for t in tokens]
        pieces_of = WordPieces.one_per_token(labels, [i == 0 for i in range(len(tokens))], list(known))
        final = self.final_states(x)[0]
        return Analysis(tuple(tokens), known, V[0], torch.stack(weights), pieces_of, tuple(inputs), final)

    def position_bias(self, layer: int, n: int) -> torch.Tensor | None:
        """(n_heads, n, n) the layer's learned relative-position bias, or None without one."""
        bias = self.model.blocks[layer].position_bias
        return bias(n)[0] if bias is not None else None

    @torch.no_grad()
    def sentence(self, tokens: list[Token], use_position: bool = True, whole_words: bool = True) -> Sentence:
        """The sentence as the model's first layer sees it (without its [CLS]): each word's vector (the mean of
        its pieces' trained vectors, scaled by √d), plus the positional encoding of its place after [CLS]; a word it
        cannot read is a zero row (unread_rows_as_zero).
        whole_words=False: one row per piece instead (its own vector, plus the position of its word)."""
        all_tokens, pieces, known = self.encode(tokens)
        scale = math.sqrt(self.model.config.d_model)
        position = self.model.position[1 : len(all_tokens)]
        add_position = use_position and self.model.config.sinusoidal
        if whole_words:
            words = self.model.embed(pieces, use_position=False)[0, 1:]
            V = unread_rows_as_zero(words + position if add_position else words, known[1:])
            return Sentence(tokens=tuple(all_tokens[1:]), words=words, V=V, known=known[1:])
        rows, labels, row_known, places = [], [], [], []
        for place, token in enumerate(all_tokens[1:]):
            for piece_id, piece in zip(self.vocabulary.pieces.ids(token.norm), self.word_pieces_of(token), strict=True):
                rows.append(piece_id)
                labels.append(Token(piece, piece, is_word=token.is_word))
                row_known.append(piece_id != self.vocabulary.unk_id)
                places.append(place)
        words = self.model.embedding.weight[torch.tensor(rows, dtype=torch.long)] * scale
        V = words + position[torch.tensor(places, dtype=torch.long)] if add_position else words
        return Sentence(
            tokens=tuple(labels), words=words, V=unread_rows_as_zero(V, tuple(row_known)), known=tuple(row_known)
        )


def load_model(path: str | Path | None = None) -> TrainedModel:
    """The shipped default model, or the checkpoint folder at `path` (raises CheckpointError if unusable)."""
    folder = Path(path) if path is not None else SHIPPED
    model, vocabulary, step = load_checkpoint(folder)
    return TrainedModel(model, vocabulary, name=folder.name, step=step)


def measured_scores(folder: str | Path = SHIPPED) -> dict | None:
    """What bench/arabic_model_report.py measured for the model in `folder` (its scores.json: top-1 of the model and
    of the left+right bigram on held-out lines, whole and in 40- and 12-word windows), or None if never measured."""
    path = Path(folder) / "scores.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
