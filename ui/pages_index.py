"""The pages of the dashboard, in navigation order: app.py routes them, Home links them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageInfo:
    """One page: its navigation section, script (``pages/<folder>/page.py``), title, icon, summary. Its URL keys
    are found by running it (``ui.rooms.schema.PAGE_KEYS``), the keys of its other controls as it draws them
    (``ui.page_url.page_run``)."""

    section: str
    path: str
    title: str
    icon: str
    summary: str

    @property
    def url_path(self) -> str:
        """The page's address: its folder's name (``/multi_head``); Home is also the root."""
        return self.path.split("/")[1]

    @property
    def is_home(self) -> bool:
        return self.path == HOME


HOME = "pages/home/page.py"


PAGES: tuple[PageInfo, ...] = (
    PageInfo(
        "Start",
        "pages/home/page.py",
        "Home",
        ":material/home:",
        "What the dashboard teaches and a map of the Transformer.",
    ),
    PageInfo(
        "Start",
        "pages/lessons/page.py",
        "Lessons",
        ":material/school:",
        "Start here: a course from tokens to a real pretrained model. Then one lesson a topic: prepared "
        "views, each with what to notice and a question answered before its answer shows; next and "
        "previous on every page, one click per step.",
    ),
    PageInfo(
        "Attention",
        "pages/self_attention/page.py",
        "Self-attention, step by step",
        ":material/function:",
        "softmax(QK^T / sqrt(d_k)) V on your sentence: embeddings, Q, K, V, scores, scaling, mask, "
        "softmax and output, with one query's weighted sum of values.",
    ),
    PageInfo(
        "Attention",
        "pages/multi_head/page.py",
        "Multi-head attention",
        ":material/view_module:",
        "Every head of every layer on your sentence: per-head maps, the whole stack in one figure, the "
        "head view, mean and rollout, per-head statistics, compare two heads, CSV download.",
    ),
    PageInfo(
        "Position & masks",
        "pages/positional_encoding/page.py",
        "Positional encoding",
        ":material/timeline:",
        "Sinusoidal curves and matrix, similarity between positions, PE(pos + k) as a rotation of "
        "PE(pos), learned, RoPE, ALiBi and none side by side, and the word-order demo.",
    ),
    PageInfo(
        "Position & masks",
        "pages/masks/page.py",
        "Masks",
        ":material/grid_on:",
        "Causal, padding and cross-attention masks, their effect on scores and weights, causal "
        "against bidirectional, and why a fully masked row needs care.",
    ),
    PageInfo(
        "Full model",
        "pages/encoder_decoder/page.py",
        "Encoder-decoder",
        ":material/swap_horiz:",
        "A source and a target sentence through the whole Transformer: the three kinds of attention, "
        "one layer step by step, shapes, parameters and the output distribution.",
    ),
    PageInfo(
        "Trained models",
        "pages/train/page.py",
        "Train a tiny Transformer",
        ":material/model_training:",
        "Watch a small model learn induction, copy, reverse, sort or a text in seconds on the CPU: loss, "
        "accuracy, heads that form, a step slider through training, and a checkpoint for every page.",
    ),
    PageInfo(
        "Trained models",
        "pages/pretrained/page.py",
        "A real pretrained model",
        ":material/psychology:",
        "all-MiniLM-L6-v2, run by this dashboard's own encoder and checked against Hugging Face: its 72 "
        "heads on your text, WordPiece tokens, head roles, two sentences compared.",
    ),
    PageInfo(
        "Trained models",
        "pages/generate/page.py",
        "Generate",
        ":material/edit_note:",
        "A decoder writes token by token: the distribution at each step under temperature, top-k and top-p, "
        "greedy, sampling and beam search side by side, the new token's attention, the KV cache, and what "
        "multi-query, grouped-query and windowed attention save, measured live: cache memory (sharing keys "
        "and values also saves parameters); their time per token, timed beside it, does not halve at these sizes.",
    ),
    PageInfo(
        "Trained models",
        "pages/vision/page.py",
        "Vision Transformer",
        ":material/image:",
        "Attention over image patches: draw a digit (mouse or finger) and watch a ViT read it; patches and "
        "[CLS], every head's attention over the image, the position embeddings it learned for patches "
        "numbered in a line (1-D) and whether neighbours on the grid come out alike, attention distance, patch "
        "filters, and heads knocked out.",
    ),
    PageInfo(
        "Trained models",
        "pages/experiments/page.py",
        "Experiments",
        ":material/science:",
        "Test what a head does: knock heads out, rank them by what their loss costs, watch one head's "
        "pattern without another, patch a clean run into a corrupted one, read each layer's guess (logit "
        "lens), attribute the output to heads, and build a head by hand.",
    ),
)

PAGE_SCRIPTS = {page.url_path: page.path for page in PAGES}  # url path -> the page's script (st.switch_page takes it)
