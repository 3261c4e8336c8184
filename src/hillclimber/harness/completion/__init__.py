"""Completion: when a trial may end, and on what evidence."""
