"""Matrices into Plotly figures: heatmaps and grids of heads (heatmaps), a lesson's outlined cell (marks), and the
training curves (training)."""
