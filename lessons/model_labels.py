"""The model picker's label of the random model, in a module of its own: a lesson or a link can name it without
loading the models (torch) that the picker itself needs."""

RANDOM = "random model (settings below)"

# A lesson view's parameters that pick the random model: the lessons that teach a mechanism (its shapes, its
# settings) open the page on it, whatever model the page itself opens on.
ON_THE_RANDOM_MODEL = {"model": RANDOM}
