"""Home: what the dashboard teaches, a map of the architecture, and a link to every page."""

import streamlit as st

from ui import model_sizes as sizes
from ui.numbering import NUMBERING
from lessons.catalogue import lesson_by_id
from ui.lessons import view_query
from ui.pages_index import PAGE_SCRIPTS, PAGES
from viz.architecture import ArchitectureSpec, architecture_dot
from ui.routing import require_navigation
from ui.formulas import formula

require_navigation()


def described(size: sizes.Size, stacks: int = 1) -> str:
    """A default size as the caption reads it: "2 layers, d_model = 64, 4 heads" ("2 + 2 layers" for two stacks)."""
    layers = " + ".join([str(size.layers)] * stacks)
    return (
        f"{layers} layer{'' if layers == '1' else 's'}, d_model = {size.d_model}, {size.heads} "
        f"head{'' if size.heads == 1 else 's'}"
    )


CLASSROOM_SIZES = (
    "The pages run the same design at classroom sizes; their random models start at "
    f"{described(sizes.SHARED, 2)} and d_ff = {sizes.ENCODER_DECODER_D_FF} on the Encoder-decoder page, whose "
    f"“Paper's sizes” runs this one; {described(sizes.SHARED)} on Multi-head attention, Masks and Positional "
    f"encoding's word order; {described(sizes.SELF_ATTENTION)} on Self-attention."
)

st.title("Attention Lab")
st.markdown(
    "See inside a Transformer. Every model here runs in this dashboard's own Transformer code, written from "
    "scratch in PyTorch: small models with random weights or trained on toy tasks, text and handwritten digits, "
    "an encoder-decoder trained here to translate English into French, as the paper's did, "
    "and a real pretrained one, all-MiniLM-L6-v2, whose weights are loaded into that code. The pages run them on "
    "**your** text (on the Vision Transformer page, a digit you draw) and **your** settings, and draw what their "
    "attention heads compute; Lessons leads through prepared views of those pages. "
    "Change a knob and the figures recompute at once; copy the address bar to share the exact view."
)
course = lesson_by_id("start")
with st.container(border=True):
    st.markdown(
        f"**First time here?** {course.summary} {len(course.views)} steps, each with one thing to "
        "notice and a question to answer before its answer shows; **Next** on every page leads on."
    )
    st.page_link(
        PAGE_SCRIPTS[course.views[0].page],
        label=f"**{course.title}**",
        icon=":material/flag:",
        query_params=view_query(course, 0),
    )

left, right = st.columns([3, 2], gap="large")
with left:
    st.header("The idea in one formula")
    formula(r"\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)V")
    st.markdown(
        "Each token asks a **query** and offers a **key** and a **value**. A token's output is the "
        "average of the values it may attend to (all of them, or under a causal mask those up to its own), "
        "weighted by how well its query matches each key. Several **heads** do "
        "this in parallel, each with its own projections:"
    )
    formula(r"\mathrm{MultiHead}(Q,K,V) = \allowbreak \mathrm{Concat}(\mathrm{head}_1,\dots,\mathrm{head}_h)\,W^O")
    st.markdown(
        "Attention without a causal mask ignores word order (reordering the tokens only reorders its outputs), "
        "so a **positional encoding** is added to the token embeddings, "
        "$x_{pos} = E[\\text{token}]\\sqrt{d_{model}} + PE_{pos}$. The factor $\\sqrt{d_{model}}$ has nothing to "
        "do with order: the paper multiplies its embedding weights by it, and shares that one matrix between "
        "the two embedding layers and the pre-softmax linear layer."
    )
    formula(r"PE_{(pos,2i)} = \sin\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)")
    formula(r"PE_{(pos,2i+1)} = \cos\!\left(\frac{pos}{10000^{2i/d_{model}}}\right)")
    st.markdown(
        "Each layer adds a position-wise **feed-forward** network, "
        "$\\mathrm{FFN}(x) = \\max(0, xW_1 + b_1)W_2 + b_2$, and wraps every sub-layer in a residual "
        "connection and layer normalisation (**add & norm**). The decoder masks the future (a causal "
        "mask) and attends to the encoder's output (**cross-attention**)."
    )
    st.caption(NUMBERING)
    st.header("Pages")
    for page in PAGES:
        if page.is_home:
            continue
        st.page_link(page.path, label=f"**{page.title}**", icon=page.icon)
        st.caption(page.summary)

with right:
    st.header("Map of the architecture")
    st.caption(
        "The encoder-decoder of *Attention Is All You Need* at the paper's base sizes: N = 6 layers per "
        "stack, d_model = 512, h = 8 heads, d_ff = 2048, one embedding matrix shared by both embeddings and "
        "the pre-softmax layer over about 37,000 tokens (the paper reports about 65 M parameters). Shapes "
        "for a 6-token source and a 5-token target; read from the bottom up. " + CLASSROOM_SIZES
    )
    st.graphviz_chart(architecture_dot(ArchitectureSpec(6, 6, 512, 8, 2048, vocab_size=37000)), width="stretch")
