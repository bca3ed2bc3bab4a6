"""Word order's parts: the controls that move and swap words."""
