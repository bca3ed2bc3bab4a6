"""Fill the blank's parts: its quiz, when the model decided and what mattered, what to expect from a short text."""
