"""The Abstraction page's parts: words and texts layer by layer, attention's part, its quiz and the probe's results."""
