"""The models behind the pages: what the app reads from any of them (interface: AttentionModel, MaskedWordModel,
Analysis), multi-head attention (multihead), our masked-word encoder (encoder, position_bias), the trained model
(trained) and pretrained MiniLM (pretrained, bert), how they read words (piece_tokenizer, vocabulary,
word_pieces), one head taken apart (head_view), and saving and sharing a model (checkpoint, archive)."""
