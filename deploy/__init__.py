"""Serving many classes from one machine: deploy/serve.py (nginx in front of several app processes)."""
