"""The story a learner reads, in its order: a sentence's words (text), where they stand (positional), the sentence
as a matrix V (embeddings), and attention itself (attention: similarity, then the one formula); trainable attention
before training (trainable) and what word order does (word_order)."""
