"""Climbing: candidate actions tried on the workspace, the best one kept."""
