"""The lessons' data, one module a group of lessons; ``lessons.catalogue`` puts them in order."""
