"""Tries: one trial runs the agent several times from the same fresh start and keeps the
answer independent tries agree on (`harness.config.Tries`). `answer.py` reads what a try left,
`choice.py` groups equal answers and picks one, `run.py` runs the tries of a trial."""
