"""Classes: a teacher's view followed by students, and where it is kept."""
