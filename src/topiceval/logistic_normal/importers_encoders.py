"""The encoders q(z | w) that pyro's ProdLDA and the Embedded Topic Model save, as
``encoder.Encoder``.

Described in docs/logistic-normal.md#import-a-saved-model.  Read from what
``torchfile.read_torch_file`` gives, in evaluation mode (dropout off, batch norms on their
running statistics, folded into the heads by ``model.fold_batch_norm``).

pyro's ProdLDA (the tutorial's ``Encoder``, the guide's network), on the word counts:

    h = softplus(fc2(softplus(fc1(x)))),  m = bnmu(fcmu(h)),  log s^2 = bnlv(fclv(h))

(the guide's scale is exp(0.5 bnlv(...))).  ETM (``Model.encode``), on the counts over the
document's length when the library normalises them (``bow_norm``, both libraries' default):

    h = a(W_2 a(W_1 x + b_1) + b_2),  m = mu_q_theta(h),  log s^2 = logsigma_q_theta(h)

(``logsigma_q_theta`` is a log variance: its KL term and ``reparameterize`` use exp(0.5 .)), a
the ``theta_act`` module, found by its class name in a model saved whole; a ``state_dict`` does
not name it, so it gives no encoder.  GLU halves its input and is not supported.
"""

from __future__ import annotations

import numpy as np

from topiceval.logistic_normal.encoder import Encoder
from topiceval.logistic_normal.model import fold_batch_norm
from topiceval.logistic_normal.torchfile import Inert

BATCH_NORM_EPS = 1e-5  # torch.nn.BatchNorm1d's default, which both libraries keep
PYRO_LAYERS = ("fc1", "fc2")
PYRO_HEADS = (("mu", "fcmu", "bnmu"), ("logvar", "fclv", "bnlv"))
# PyTorch's activation classes and (our name, the parameter's attribute, its default)
TORCH_ACTIVATIONS = {"ReLU": ("relu", None, 0.0), "Tanh": ("tanh", None, 0.0),
                     "Softplus": ("softplus", None, 0.0),
                     "LeakyReLU": ("leaky_relu", "negative_slope", 0.01),
                     "ELU": ("elu", "alpha", 1.0), "SELU": ("selu", None, 0.0)}
RRELU_BOUNDS = (1.0 / 8.0, 1.0 / 3.0)  # torch.nn.RReLU's default lower and upper


def pyro_encoder(state: dict, prefix: str) -> Encoder | None:
    """The encoder of a pyro ProdLDA state_dict (``prefix`` "encoder."), None when the file
    holds only the decoder."""
    names = [f"{prefix}{layer}.{p}" for layer in (*PYRO_LAYERS, "fcmu", "fclv")
             for p in ("weight", "bias")]
    names += [f"{prefix}{bn}.running_{s}" for bn in ("bnmu", "bnlv") for s in ("mean", "var")]
    if not all(isinstance(state.get(name), np.ndarray) for name in names):
        return None
    arr = {name: np.asarray(value, dtype=np.float64) for name, value in state.items()
           if name.startswith(prefix) and isinstance(value, np.ndarray)}
    heads = []
    for _, linear, norm in PYRO_HEADS:
        weight, bias = fold_batch_norm(
            arr[f"{prefix}{linear}.weight"].T, arr[f"{prefix}{linear}.bias"],
            arr[f"{prefix}{norm}.running_mean"], arr[f"{prefix}{norm}.running_var"],
            arr.get(f"{prefix}{norm}.weight"), arr.get(f"{prefix}{norm}.bias"),
            eps=BATCH_NORM_EPS)
        heads += [weight.T, bias]
    return Encoder(tuple(arr[f"{prefix}{layer}.weight"] for layer in PYRO_LAYERS),
                   tuple(arr[f"{prefix}{layer}.bias"] for layer in PYRO_LAYERS),
                   ("softplus", "softplus"), np.zeros(len(PYRO_LAYERS)), *heads,
                   inputs="counts")


def etm_encoder(saved, state: dict, bow_norm: bool, path) -> Encoder | None:
    """The encoder of an ETM module saved whole (``saved``, an ``Inert``; ``state`` its
    arrays), None for a ``state_dict`` (no activation named) or a file without q_theta."""
    needed = [f"q_theta.{i}.{p}" for i in (0, 2) for p in ("weight", "bias")]
    needed += [f"{head}.{p}" for head in ("mu_q_theta", "logsigma_q_theta")
               for p in ("weight", "bias")]
    if not isinstance(saved, Inert) or not all(name in state for name in needed):
        return None
    modules = _children(_children(saved).get("q_theta"))
    acts = [_activation(modules.get(str(i)), path) for i in (1, 3)]
    arr = {name: np.asarray(state[name], dtype=np.float64) for name in needed}
    return Encoder((arr["q_theta.0.weight"], arr["q_theta.2.weight"]),
                   (arr["q_theta.0.bias"], arr["q_theta.2.bias"]),
                   tuple(a[0] for a in acts), np.array([a[1] for a in acts]),
                   arr["mu_q_theta.weight"], arr["mu_q_theta.bias"],
                   arr["logsigma_q_theta.weight"], arr["logsigma_q_theta.bias"],
                   inputs="frequencies" if bow_norm else "counts")


def _children(module) -> dict:
    state = module.state if isinstance(module, Inert) else None
    children = state.get("_modules") if isinstance(state, dict) else None
    return children if isinstance(children, dict) else {}


def _activation(module, path) -> tuple[str, float]:
    """(name, parameter) of a saved PyTorch activation module, evaluation mode."""
    cls = getattr(module, "name", "?").rsplit(".", 1)[-1]
    state = module.state if isinstance(getattr(module, "state", None), dict) else {}
    if cls == "RReLU":
        lower, upper = (float(state.get(k, d)) for k, d in zip(("lower", "upper"), RRELU_BOUNDS,
                                                                strict=True))
        return "leaky_relu", 0.5 * (lower + upper)
    if cls not in TORCH_ACTIVATIONS:
        raise ValueError(f"{path}: the encoder's activation {cls} is not supported (relu, tanh, "
                         "softplus, leakyrelu, rrelu, elu, selu are)")
    name, attribute, default = TORCH_ACTIVATIONS[cls]
    return name, float(state.get(attribute, default)) if attribute else default
