"""The Train page's parts: its form, the text to learn from, and the heads' roles over a run."""
