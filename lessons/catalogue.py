"""The lessons, in the order the Lessons page lists them: the Start here course first, then the topics in
the course's order. The data is in ``lessons/`` (one module a group); a view is a page, its URL settings,
what to notice, a question answered by a choice or a number, and its answer.
"""

from __future__ import annotations

from lessons.attention import HEADS, SCALING, WHY_ATTENTION
from lessons.course import START_HERE
from lessons.generate import ONE_TOKEN_AT_A_TIME
from lessons.kinds import Choice, Lesson, Number, Shipped, View
from lessons.model import CROSS_ATTENTION, ENCODER_DECODER, LAYER
from lessons.objectives import OBJECTIVES
from lessons.position import CAUSAL, OFFSET, PADDING, WORD_ORDER
from lessons.reading import READING
from lessons.schemes import SCHEMES_LESSON
from lessons.trained import CIRCUIT, PRETRAINED, TRAINED
from lessons.todays_block import TODAYS_BLOCK
from lessons.translation import TRANSLATION
from lessons.vision import FROM_WORDS_TO_PATCHES

__all__ = ["LESSONS", "Choice", "Lesson", "Number", "Shipped", "View", "lesson_by_id"]

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


def lesson_by_id(lesson_id: str) -> Lesson | None:
    """The lesson whose id (its links' ``lesson=``) is ``lesson_id``, or None."""
    return next((lesson for lesson in LESSONS if lesson.id == lesson_id), None)
