"""The guided tour: its steps, entry, completion and card (guide.py) and the fact each step computes (facts.py)."""
