"""Planted designs: count tables with known structure and a chosen kind of noise.

Each design draws, from its own seed, a table of true counts `y` whose mean `mu` has a planted
partition of the rows (communities of a network, dominant topics of documents), then a kind of
noise on top of the mean:

* ``poisson``   y ~ Pois(mu)
* ``cell-nb``   y ~ Pois(mu * d), d ~ Gamma(shape 0.3, rate 0.3) per cell (variance mu + mu^2/0.3)
* ``row-level`` y ~ Pois(mu * g_i), g_i ~ Gamma(shape 1, rate 1) per row (degree heterogeneity
                the planted mean does not have)
* ``outliers``  y ~ Pois(mu), then 2 % of the cells get an extra floor(10 * mean(mu) * P),
                P ~ Pareto(1.5) (heavy-tailed, infinite variance)

Shapes:

* ``network``  a directed network of 60 actors in 3 communities of 20 (off-diagonal cells),
               mu_ij = a_i a_j B[c_i, c_j], activities a_i ~ Gamma(4, rate 4), B = 3 within and
               0.3 between communities: sparse (mean count about 1)
* ``network-large`` Enron's size: as ``network`` with 120 actors in 8 communities of 15 and
               B = 12 within, 1.2 between (mean count about 2.5; the Enron network has 117 actors
               and a mean count of 2.7)
* ``topics``   90 documents x 60 words, 3 topics of 30 documents; each topic puts 80 % of its
               mass on its own 20 words; document lengths L_d ~ 300 Gamma(5, rate 5): dense
               (mean count about 5)
"""

import numpy as np

NOISES = ("poisson", "cell-nb", "row-level", "outliers")
SHAPES = ("network", "topics", "network-large")
# The verdict's error-rate study (tools/planted/verdict.py): a network of 45 actors in 3
# communities of 15, mean count about 1.2 whatever the strength of the structure.
STRENGTHS = {"null": (1.2, 1.2), "weak": (2.0, 0.8), "strong": (3.0, 0.3)}


def _network(rng, actors, communities, within, between, popularity=False):
    """Rates a_i a'_j B[c_i, c_j] off the diagonal: a'_j = a_j (an actor sends as much as it
    receives), or with `popularity` drawn apart from the sending activities."""
    group = np.repeat(np.arange(communities), actors // communities)
    activity = rng.gamma(4.0, 1.0 / 4.0, size=actors)
    receiving = rng.gamma(4.0, 1.0 / 4.0, size=actors) if popularity else activity
    block = np.full((communities, communities), between)
    np.fill_diagonal(block, within)
    mu = np.outer(activity, receiving) * block[np.ix_(group, group)]
    np.fill_diagonal(mu, 0.0)
    return mu, group


def _topics(rng, docs=90, words=60, topics=3, length=300.0):
    group = np.repeat(np.arange(topics), docs // topics)
    own = words // topics
    phi = np.full((topics, words), 0.2 / (words - own))
    for k in range(topics):
        phi[k, k * own:(k + 1) * own] = 0.8 / own
    lengths = length * rng.gamma(5.0, 1.0 / 5.0, size=docs)
    return lengths[:, None] * phi[group], group


def draw_strength(strength, noise, seed):
    """(true counts, true rates, planted groups) of a verdict design: 45 actors in 3 communities,
    sending activities and receiving popularities drawn apart, block rates `STRENGTHS[strength]`
    (within, between); "null" has no structure beyond the activities and popularities, so the
    independence model `a_i b_j` holds its rates. `noise` is
    "poisson" or "cell-nb" (as in `draw`)."""
    rng = np.random.default_rng(seed)
    within, between = STRENGTHS[strength]
    mu, group = _network(rng, 45, 3, within, between, popularity=True)
    return _noised(rng, mu, noise), mu, group


def _noised(rng, mu, noise):
    """Counts around the mean `mu`: Poisson, or cell-level NB(0.3) (zero where `mu` is)."""
    if noise == "poisson":
        return rng.poisson(mu)
    if noise == "cell-nb":
        return rng.poisson(mu * rng.gamma(0.3, 1.0 / 0.3, size=mu.shape))
    raise ValueError(f"noise {noise!r}: poisson or cell-nb")


def draw(shape, noise, seed):
    """(true counts, true rates, planted row groups, square) of one design from `seed`.

    The true rates are the counts' mean given the design's factors: the planted mean, times the
    row's multiplier under ``row-level`` noise (before the cell multipliers of ``cell-nb`` and the
    outliers, which no rank-K mean can hold)."""
    rng = np.random.default_rng(seed)
    if shape == "network":
        mu, group = _network(rng, 60, 3, 3.0, 0.3)
    elif shape == "network-large":
        mu, group = _network(rng, 120, 8, 12.0, 1.2)
    elif shape == "topics":
        mu, group = _topics(rng)
    else:
        raise ValueError(f"shape {shape!r}: one of {SHAPES}")
    square = shape.startswith("network")
    if noise in ("poisson", "cell-nb"):
        y = _noised(rng, mu, noise)
    elif noise == "row-level":
        mu = mu * rng.gamma(1.0, 1.0, size=(mu.shape[0], 1))
        y = rng.poisson(mu)
    elif noise == "outliers":
        y = rng.poisson(mu)
        hit = rng.random(mu.shape) < 0.02
        if square:
            np.fill_diagonal(hit, False)
        extra = np.floor(10.0 * mu.mean() * (rng.pareto(1.5, size=mu.shape) + 1.0))
        y = y + np.where(hit, extra, 0).astype(y.dtype)
    else:
        raise ValueError(f"noise {noise!r}: one of {NOISES}")
    if square:
        np.fill_diagonal(y, 0)
    return y, mu, group, square
