"""Sums of weight rows over sparse (row, index) pairs: the first layer of a network
whose inputs are mostly 0 (``simulation.card_net``'s fit), and its gradient."""

from belote_sim.kernels._jit import kernel


@kernel
def gather_pair_rows(row, index, weights, out):
    """``out[row[j]] += weights[index[j]]`` for every pair j: each batch row's sum of
    the weight rows of its inputs that are on."""
    for j in range(row.shape[0]):
        out[row[j]] += weights[index[j]]


@kernel
def scatter_pair_rows(row, index, grad, out):
    """``out[index[j]] += grad[row[j]]`` for every pair j: the weights' gradient of
    ``gather_pair_rows`` given the gradient ``grad`` of its output."""
    for j in range(row.shape[0]):
        out[index[j]] += grad[row[j]]


__all__ = [
    "gather_pair_rows",
    "scatter_pair_rows",
]
