"""Skills: short reference approaches retrieved for a task and shown as examples, never as tools
(skill.py: the skill and the shipped library; rank.py: BM25 and the hashed baseline;
select.py: which skills a task is shown, and how; store.py: learned skills and uses in SQLite;
learn.py: a skill distilled from a solved task; trial.py: one trial's skills)."""
