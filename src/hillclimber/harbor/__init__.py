"""Harbor interop: a run written as a Harbor job folder (`export`, no Harbor needed)."""
