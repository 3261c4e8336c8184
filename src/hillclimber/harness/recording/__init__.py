"""Recording: the events a run emits and the trajectory written from them."""
