"""The lessons' data, one module a group of lessons; ``ui.lesson_catalogue`` puts them in order."""
