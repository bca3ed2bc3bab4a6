"""attention_core: the maths, models and figures behind the attention explainer (never imports streamlit)."""

from attention_core.models.encoder import PRESETS, EncoderConfig, MaskedLanguageModel, preset
from attention_core.models.interface import Analysis, AttentionModel, MaskedWordModel
from attention_core.models.multihead import MultiHeadAttention
from attention_core.models.pretrained import PretrainedModel, load_minilm
from attention_core.models.trained import TrainedModel, load_model
from attention_core.readings.layers import layer_similarity, sentence_similarity
from attention_core.story.attention import (
    Attention,
    attend,
    attend_heads,
    attention,
    causal_mask,
    normalise,
    random_projections,
    similarity,
)
from attention_core.story.embeddings import Sentence, embed_sentence
from attention_core.story.positional import positional_encoding
from attention_core.story.text import Token, is_right_to_left, normalize_word, read_sentence, tokenize

__all__ = [
    "PRESETS",
    "Analysis",
    "Attention",
    "AttentionModel",
    "EncoderConfig",
    "MaskedLanguageModel",
    "MaskedWordModel",
    "MultiHeadAttention",
    "PretrainedModel",
    "Sentence",
    "Token",
    "TrainedModel",
    "attend",
    "attend_heads",
    "attention",
    "causal_mask",
    "embed_sentence",
    "is_right_to_left",
    "layer_similarity",
    "load_minilm",
    "load_model",
    "normalise",
    "normalize_word",
    "positional_encoding",
    "preset",
    "random_projections",
    "read_sentence",
    "sentence_similarity",
    "similarity",
    "tokenize",
]
