"""Plotly figures from plain data (arrays, token labels, dicts); nothing here loads a model."""
