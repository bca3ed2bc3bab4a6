"""What the pages ask of a model: a floor above models/ (it reads them; story/ below reads no model). Each file
answers one question a page asks of any AttentionModel: what the layers make of the words (layers.py)."""
