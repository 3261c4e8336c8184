"""Acting: the tools, what each does on the sandbox, and what a failure means."""
