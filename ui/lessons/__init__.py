"""Lessons: what a lesson is and its link (lesson.py), the catalogue (catalogue.py), a lesson opened on its page
(view.py)."""
