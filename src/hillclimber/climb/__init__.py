"""`hillclimber climb`: the harness's settings tuned to one model on tasks it trains on, and
judged on tasks it never saw.

- `space.py`: the settings worth trying and their values (data: `space.toml`, or a user's).
- `tasks.py`: the train and held-out tasks (`SOURCE[:TASKS]`, or a file of them).
- `search.py`: the plain method, coordinate ascent, over a function that scores a setting on
  the train tasks; the noise first, from repeats of the starting setting.
- `evaluate.py`: that function: the runner's trials, scored by the tasks' own tests after the
  agent stops, recorded in the store.
- `store.py`: SQLite: what was tried, each trial's outcome, the path; a killed climb resumes.
- `tuned.py`: the tuned setting as a settings file, its evidence in comments.
"""
