"""The lessons, in the order the Lessons page lists them: the Start here course first, then the topics in
the course's order. The data is in ``ui/catalogue/`` (one module a group); a view is a page, its URL settings,
what to notice, a question answered by a choice or a number, and its answer.
"""

from __future__ import annotations

from ui.catalogue.attention import HEADS, SCALING, WHY_ATTENTION
from ui.catalogue.course import START_HERE
from ui.catalogue.generate import ONE_TOKEN_AT_A_TIME
from ui.catalogue.kinds import Choice, Lesson, Number, Shipped, View
from ui.catalogue.model import CROSS_ATTENTION, ENCODER_DECODER, LAYER
from ui.catalogue.objectives import OBJECTIVES
from ui.catalogue.position import CAUSAL, OFFSET, PADDING, WORD_ORDER
from ui.catalogue.reading import READING
from ui.catalogue.schemes import SCHEMES_LESSON
from ui.catalogue.trained import CIRCUIT, PRETRAINED, TRAINED
from ui.catalogue.todays_block import TODAYS_BLOCK
from ui.catalogue.translation import TRANSLATION
from ui.catalogue.vision import FROM_WORDS_TO_PATCHES

__all__ = ["LESSONS", "Choice", "Lesson", "Number", "Shipped", "View"]

LESSONS: tuple[Lesson, ...] = (
    START_HERE,
    WHY_ATTENTION,
    SCALING,
    HEADS,
    WORD_ORDER,
    OFFSET,
    SCHEMES_LESSON,
    CAUSAL,
    PADDING,
    LAYER,
    ENCODER_DECODER,
    CROSS_ATTENTION,
    TRANSLATION,
    TODAYS_BLOCK,
    TRAINED,
    PRETRAINED,
    ONE_TOKEN_AT_A_TIME,
    OBJECTIVES,
    CIRCUIT,
    READING,
    FROM_WORDS_TO_PATCHES,
)
