"""Streamlit widgets shared by the pages (the only package besides pages/ that imports streamlit)."""
