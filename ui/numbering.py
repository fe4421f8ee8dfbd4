"""How layers and heads are numbered on screen, in a module of its own (no torch): Home says it once."""

# Layers and heads on screen count from 1; the package, its record names and papers' code (TransformerLens)
# count from 0: the note Home shows once (and a layer or head control's help), so that a figure can be matched to a
# paper's.
NUMBERING = (
    "Numbering: layers and heads count from 1 in this dashboard; the package's record names "
    "(encoder.layers.0.self_attn) and TransformerLens count from 0, so layer 1 · head 2 here is "
    "L0H1 in a paper's figure."
)
# A layer or head control's help, on the pages
COUNTED_FROM_1 = "Layers and heads count from 1 here; papers' code counts from 0 (layer 1 · head 2 is L0H1)."
