"""Vision Transformer: attention over image patches, on a ViT trained on 8 x 8 handwritten digits."""

import streamlit as st

from pages.vision import sections
from pages.vision.picture import chosen_image
from ui.presentation import explanation
from ui.controls import section_picker
from ui.model_picker import trained_model
from ui.routing import require_navigation
from ui.formulas import formula

require_navigation()

SECTIONS = (
    "Draw a digit",
    "Patches",
    "Attention on the image",
    "Position embeddings",
    "Attention distance",
    "Patch filters",
    "Knock out",
)

st.title("Vision Transformer")
with explanation():
    st.markdown(
        "The same encoder that reads words can read an image (Dosovitskiy et al., 2020, *An Image is Worth 16x16 "
        "Words*): cut the image into $p \\times p$ patches, flatten each into a vector, project it to $d_{model}$ "
        "with one learned matrix $E$, put a learned **[CLS]** vector in front and add a position embedding to "
        "every token. The encoder's attention then lets every patch read every other, and a linear layer on "
        "[CLS]'s final vector names the digit. Here the images are 8 × 8 handwritten digits; the model shipped "
        "here reads them in 2 × 2 patches, 16 patch tokens after [CLS]."
    )
    formula(
        r"z_0 = [\,x_{\text{cls}};\ x_1E;\ x_2E;\ \dots;\ x_NE\,] + E_{\text{pos}},\quad "
        r"z_L = \mathrm{Encoder}(z_0),\quad y = z_L^{0}\,W_{\text{head}}"
    )


@st.fragment
def vision_view() -> None:
    """The model, the image and the open section: a change reruns this part only."""
    loaded = trained_model(
        ("vision",),
        "digits_vit",
        "A Vision Transformer trained on the 8 x 8 digits: the one shipped here, or one you uploaded.",
    )
    section = section_picker(SECTIONS)
    image = chosen_image(loaded, drawing=section == "Draw a digit")
    if image is None:
        return
    sections.RENDER[section](loaded, image)


vision_view()
