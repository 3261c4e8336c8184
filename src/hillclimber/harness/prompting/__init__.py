"""Prompt building: what the model sees each turn, fitted to its window."""
