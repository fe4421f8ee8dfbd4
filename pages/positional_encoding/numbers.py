"""The Positional encoding page's numbers (``analysis.positional``), each kept in the computation cache
(``ui.cache.computation``): shared by every session, read-only."""

from __future__ import annotations

from ui import runtime  # noqa: F401  (torch threads are set before any torch work)

from analysis import positional
from ui.cache import computation

pe_table = computation(positional.pe_table)
wavelengths = computation(positional.wavelengths)
similarity = computation(positional.similarity)
distance_profile = computation(positional.distance_profile)
shift_check = computation(positional.shift_check)
rope_scores = computation(positional.rope_scores)
alibi = computation(positional.alibi)
learned_table = computation(positional.learned_table)
learned_similarity = computation(positional.learned_similarity)
scheme_panels = computation(positional.scheme_panels)
