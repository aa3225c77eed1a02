"""``Encoder``: a neural topic model's amortized posterior q(z | w_d), held as arrays.

Described in docs/methods/logistic-normal.md#is-encoder.

    x = n_d (the counts of the V words) or n_d / N_d (``inputs="frequencies"``)
    h_0 = x,   h_l = a_l(W_l h_{l-1} + b_l)            l = 1..L (dropout off: evaluation mode)
    m = W_mu h_L + b_mu,   log s^2 = W_v h_L + b_v     (K,) each
    q(z | w_d) = N(m, diag(s^2))

A batch norm after a head, in evaluation mode, is affine in its input and folded into the head's
weights (``model.fold_batch_norm``).  Activations ``a_l`` (``ACTIVATIONS``): relu, tanh,
softplus, leaky_relu (slope ``parameters[l]``; PyTorch's RReLU in evaluation mode is a leaky
ReLU of slope (lower + upper) / 2), elu (alpha ``parameters[l]``), selu.

Work of one forward pass (multiply-adds): J H_1 for the first layer (only the J distinct words
of the document have x_v != 0), sum_l H_l H_{l+1} and 2 K H_L for the heads (``work``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from topiceval.models import _float_array

ACTIVATIONS = ("relu", "tanh", "softplus", "leaky_relu", "elu", "selu")
INPUTS = ("counts", "frequencies")
SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805
HEADS = ("mu_weight", "mu_bias", "logvar_weight", "logvar_bias")


def activation(name: str, parameter: float, x: np.ndarray) -> np.ndarray:
    """a(x) of the module docstring."""
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "tanh":
        return np.tanh(x)
    if name == "softplus":
        return np.logaddexp(0.0, x)
    if name == "leaky_relu":
        return np.where(x >= 0, x, parameter * x)
    if name == "elu":
        return np.where(x > 0, x, parameter * np.expm1(np.minimum(x, 0.0)))
    return SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(np.minimum(x, 0.0)))


@dataclass(frozen=True, eq=False)
class Encoder:
    """The encoder of the module docstring.

    Parameters
    ----------
    weights, biases : sequence of arrays
        W_l (H_l, H_{l-1}) and b_l (H_l,) of the hidden layers (H_0 = V), PyTorch's layout.
    activations : sequence of str
        a_l, one of ``ACTIVATIONS`` per hidden layer.
    parameters : sequence of float
        The activation's parameter per layer (leaky_relu: the slope; elu: alpha; else unused).
    mu_weight, mu_bias, logvar_weight, logvar_bias : arrays
        The heads (K, H_L) and (K,): the mean and the log variance of q.
    inputs : {"counts", "frequencies"}
        What the network reads: the word counts or the counts over the document's length.
    """

    weights: tuple
    biases: tuple
    activations: tuple
    parameters: np.ndarray
    mu_weight: np.ndarray
    mu_bias: np.ndarray
    logvar_weight: np.ndarray
    logvar_bias: np.ndarray
    inputs: str = "counts"

    def __post_init__(self) -> None:
        if self.inputs not in INPUTS:
            raise ValueError(f"encoder inputs must be 'counts' or 'frequencies', got "
                             f"{self.inputs!r}")
        acts = tuple(str(a) for a in self.activations)
        unknown = [a for a in acts if a not in ACTIVATIONS]
        if unknown:
            raise ValueError(f"encoder activation {unknown[0]!r} is not one of "
                             f"{', '.join(ACTIVATIONS)}")
        weights = tuple(_finite(w, f"encoder weight {i}", 2) for i, w in enumerate(self.weights))
        biases = tuple(_finite(b, f"encoder bias {i}", 1) for i, b in enumerate(self.biases))
        params = _finite(self.parameters, "encoder parameters", 1)
        if not len(weights) == len(biases) == len(acts) == params.size:
            raise ValueError(f"the encoder has {len(weights)} weights, {len(biases)} biases, "
                             f"{len(acts)} activations and {params.size} parameters; one each "
                             "per hidden layer")
        for i, (w, b) in enumerate(zip(weights, biases, strict=True)):
            if b.shape != (w.shape[0],) or (i and w.shape[1] != weights[i - 1].shape[0]):
                raise ValueError(f"encoder layer {i}: weight {w.shape} and bias {b.shape} do "
                                 "not chain with the layer before")
        heads = {name: _finite(getattr(self, name), f"encoder {name}", 1 + name.endswith("weight"))
                 for name in HEADS}
        width = weights[-1].shape[0] if weights else None
        k = heads["mu_bias"].size
        for name in ("mu", "logvar"):
            w, b = heads[f"{name}_weight"], heads[f"{name}_bias"]
            if b.shape != (k,) or w.shape[0] != k or (width is not None and w.shape[1] != width):
                raise ValueError(f"encoder {name} head: weight {w.shape} and bias {b.shape} must "
                                 f"be ({k}, {width if width is not None else 'V'}) and ({k},)")
        for name, value in (("weights", weights), ("biases", biases), ("activations", acts),
                            ("parameters", params), *heads.items()):
            object.__setattr__(self, name, value)

    @property
    def n_inputs(self) -> int:
        """V, the width of the network's input."""
        return (self.weights[0] if self.weights else self.mu_weight).shape[1]

    @property
    def n_topics(self) -> int:
        return self.mu_bias.size

    def gaussian(self, words: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(m, s) of q(z | w_d) (module docstring) for the document with ``counts`` of each of
        its distinct ``words``.

        Parameters
        ----------
        words : (J,) int
            The document's distinct words (columns of the vocabulary).
        counts : (J,) float
            How often each occurs in it.
        """
        x = np.asarray(counts, dtype=np.float64)
        if self.inputs == "frequencies":
            x = x / x.sum()
        first = self.weights[0] if self.weights else None
        if first is None:
            return (self.mu_weight[:, words] @ x + self.mu_bias,
                    np.exp(0.5 * (self.logvar_weight[:, words] @ x + self.logvar_bias)))
        h = activation(self.activations[0], self.parameters[0],
                       first[:, words] @ x + self.biases[0])
        for w, b, act, par in zip(self.weights[1:], self.biases[1:], self.activations[1:],
                                  self.parameters[1:], strict=True):
            h = activation(act, par, w @ h + b)
        return (self.mu_weight @ h + self.mu_bias,
                np.exp(0.5 * (self.logvar_weight @ h + self.logvar_bias)))

    def work(self, distinct):
        """Multiply-adds of one forward pass for documents of ``distinct`` words (module
        docstring).

        Parameters
        ----------
        distinct : int or array of int
            The number of distinct words of each document.
        """
        distinct = np.asarray(distinct, dtype=np.float64)
        if not self.weights:
            return 2.0 * self.n_topics * distinct
        inner = sum(w.shape[0] * w.shape[1] for w in self.weights[1:])
        return (distinct * self.weights[0].shape[0] + inner
                + 2.0 * self.n_topics * self.weights[-1].shape[0])

    def arrays(self) -> dict:
        """The members of a model file holding the encoder (read back by ``encoder_from_npz``)."""
        out = {"encoder_inputs": np.array(self.inputs),
               "encoder_activations": np.array(self.activations, dtype=str).reshape(-1),
               "encoder_parameters": self.parameters}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            out[f"encoder_weight_{i}"], out[f"encoder_bias_{i}"] = w, b
        out.update({f"encoder_{name}": getattr(self, name) for name in HEADS})
        return out


def encoder_from_npz(data) -> Encoder:
    """The encoder held by an open model file (``Encoder.arrays``); ``ValueError`` from the
    checks, the file's own failure for a missing or mistyped member."""
    acts = data.strings("encoder_activations")
    layers = range(acts.size)
    return Encoder(tuple(data.numbers(f"encoder_weight_{i}") for i in layers),
                   tuple(data.numbers(f"encoder_bias_{i}") for i in layers),
                   tuple(acts.tolist()), data.numbers("encoder_parameters"),
                   *(data.numbers(f"encoder_{name}") for name in HEADS),
                   inputs=data.text("encoder_inputs"))


def _finite(value, name: str, ndim: int) -> np.ndarray:
    arr = _float_array(value, name)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be a {ndim}-D array, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite entries")
    return arr
