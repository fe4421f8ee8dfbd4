"""The embedding table the models use: ``nn.Embedding``, less its random draw on the meta device."""

from __future__ import annotations

from torch import nn


class Embedding(nn.Embedding):
    """``nn.Embedding`` (a ``[num_embeddings, embedding_dim]`` table; ids ``[...]`` -> vectors ``[..., dim]``) that
    draws no random weights on the meta device. A model is built there to read a folder's shapes and then takes the
    folder's weights (``hf_folder``); a normal draw on meta runs PyTorch's reference kernels, whose first use imports
    its compiler (about 1.7 s, once per process), for weights that are replaced anyway. Elsewhere it is nn.Embedding,
    N(0, 1), and ``seeding.init_parameters`` draws every embedding again from its own generator."""

    def reset_parameters(self) -> None:
        if not self.weight.is_meta:
            super().reset_parameters()
