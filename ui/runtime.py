"""Process-wide settings applied before any torch work: many sessions share 2 cores."""

import torch

torch.set_num_threads(1)
try:
    torch.set_num_interop_threads(1)
except RuntimeError:  # already set once in this process
    pass
