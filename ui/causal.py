"""Can words look ahead? The words of the causal-mask switch, shared by Similarity and Trainable attention."""

CAUSAL_HELP = (
    "On: each word looks only at itself and the words before it. Scores above the diagonal become −∞ before the "
    "softmax, so their weights are exactly 0 (without softmax, they are set to 0). GPT-style text generators attend "
    "this way."
)
CAUSAL_NOTE = (
    "Only the words before: every weight above the diagonal is 0. A text generator writes one word at a time, so "
    "while it learns to guess the next word it must not see it; a masked-word model may read both sides of its blank, "
    "and so learns from the words after it too."
)
