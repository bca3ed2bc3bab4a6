"""Training a model by the masking task: texts (corpora), lines to batches (batches), the masked-word objective
(masked_lm), a text made ready (prepare), the loop and its CLI (train: `python -m attention_core.training.train`),
held-out scores against counting baselines (evaluate, baselines), and a run in the app's background (live)."""
