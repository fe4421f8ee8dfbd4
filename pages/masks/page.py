"""Masks: causal, padding, cross-attention shapes, their effect on the scores, the fully masked row.

The batch and the model are chosen at the top; each section is a lazy tab (its label is the
URL's ``section``), so a change builds and redraws only the open tab's charts.
"""

import streamlit as st

from transformer.spec import ModelSpec
from analysis import masks as mask_math
from pages.masks import sections as sections
from ui.controls import d_model_control, heads_control, layers_control, seed_control
from ui.forward import stack_config
from ui.model_picker import load_or_stop, model_choice
from ui.routing import require_navigation
from ui.text import tokenize_text

require_navigation()

st.title("Masks")
st.markdown(
    "A mask says which keys each query may look at. Here, as in PyTorch's "
    "`F.scaled_dot_product_attention`, **True means may attend**. A forbidden score is replaced by "
    "$-\\infty$ before the softmax, so its weight becomes exactly 0 and every row renormalises over "
    "the keys that remain:"
)
st.latex(r"A = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}} + M\right),\qquad "
         r"M_{ij} = \begin{cases}0 & \text{query } i \text{ may attend to key } j\\ -\infty & \text{otherwise}\end{cases}")

choice = model_choice(("encoder-only", "decoder-only"), help="The last three tabs run this model's "
                      "self-attention with the mask you pick, whatever mask it was trained with.")
c = st.columns(6)
if choice is None:
    d_model = d_model_control(container=c[0])
    heads = heads_control(d_model, container=c[1])
    layers = layers_control(container=c[2], max_value=4)
    seed = seed_control(container=c[3])
    spec = ModelSpec.random(stack_config(layers, d_model=d_model, num_heads=heads), seed, "encoder-only")
else:
    spec = choice
loaded = load_or_stop(spec)
layers, heads = loaded.config.num_encoder_layers, loaded.config.num_heads
if loaded.kind == "decoder-only":
    layers = loaded.config.num_decoder_layers
layer = c[4].slider("layer to show", 1, layers, 1, key="layer", bind="query-params") if layers > 1 else 1
head = c[5].selectbox("head to show", list(range(1, heads + 1)), key="head", bind="query-params")
shown = sections.ShownHead(spec, min(layer, layers), min(int(head or 1), heads) - 1)

cols = st.columns(4)
defaults = ("The cat sat", "The cat sat on the mat", "Dogs bark loudly")
texts = [cols[i].text_input(f"sentence {i + 1}", defaults[i], key=f"s{i + 1}", bind="query-params",
                            max_chars=300) for i in range(3)]
typed = [t for t in (tokenize_text(text, max_tokens=16, tokenizer=loaded.tokenizer) for text in texts)
         if t is not None]
batch = None
if typed:
    row = cols[3].selectbox("sentence to follow", list(range(len(typed))), format_func=lambda i: f"sentence {i + 1}",
                            key="row", bind="query-params")
    tokens, ids, lengths = mask_math.pad_batch([t.tokens for t in typed], [t.ids for t in typed])
    batch = sections.Batch(tokens, ids, lengths, [f"sentence {i + 1} ({lengths[i]} tokens)" for i in range(len(typed))],
                           row, typed[row])
st.caption(f"The batch of sentences feeds every tab but the first; the model ({loaded.label}) feeds the "
           "last three.")

tabs = dict(zip(sections.SECTIONS, st.tabs(list(sections.SECTIONS), key="section", bind="query-params")))
if tabs["Causal"].open:
    with tabs["Causal"]:
        sections.render_causal()
for name, render in (("Padding", sections.render_padding), ("Cross-attention", sections.render_cross),
                     ("Scores", sections.render_scores),
                     ("Causal vs bidirectional", sections.render_causal_vs_bidirectional),
                     ("Fully masked row", sections.render_fully_masked)):
    if not tabs[name].open:
        continue
    with tabs[name]:
        if batch is None:
            st.info("Type at least one sentence above to build a batch (they are all empty now).")
        elif name in ("Padding", "Cross-attention"):
            render(batch)
        else:
            render(batch, shown)
