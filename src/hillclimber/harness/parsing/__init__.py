"""Answer parsing: tool calls out of whatever a small model wrote."""
