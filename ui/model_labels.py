"""The model picker's label of the random model, in a module of its own: a lesson or a link can name it without
loading the models (torch) that the picker itself needs."""

RANDOM = "random model (settings below)"
