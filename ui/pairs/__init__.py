"""Minimal pairs' parts: two sentences a word apart, side by side."""
