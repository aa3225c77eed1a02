"""Write the model files of pyro's ProdLDA, the Embedded Topic Model, scholar and OCTIS that
tests/test_logistic_normal_import_more.py imports, and <name>_check.npz, each library's own
word distributions p(w | theta) for a few theta.

Run once, in an environment with torch 2.13.0+cpu, pyro-ppl 1.9.2, embedded-topic-model 1.2.1
and octis 1.14.0 (the last two installed with ``pip install --no-deps``):

    python tests/data/logistic_normal/make_neural_files.py

* ``pyro_prodlda.pth``: ``torch.save(prodLDA.state_dict())`` of the ProdLDA module of pyro's
  tutorial "Probabilistic Topic Modeling" (the tutorial defines the module in the notebook, not
  in the package; it is written out below as the tutorial has it: the decoder is a Linear
  without bias and a BatchNorm1d(affine=False), the prior on the logits N(0, I)).  Its batch
  norms get running statistics from training-mode passes; the check is the module's own
  ``decoder`` in evaluation mode.  ``pyro_prodlda_v1.pth``: the decoder of the tutorial's
  earlier version (a Linear with bias, a BatchNorm1d with affine parameters), its
  ``state_dict`` after training-mode passes and with affine parameters away from 1 and 0.
* ``etm_model.pth`` (word embeddings trained) and ``etm_fixed.pth`` (fixed, given embeddings,
  which the module keeps as a plain tensor attribute): ``torch.save(model)`` of
  embedded-topic-model's own ``Model``, as its ``ETM`` wrapper saves it (``model_path=``) and
  as the reference code (adjidieng/ETM, main.py) saves its ``ETM`` module; ``etm_state.pth``: the
  trained one's ``state_dict()``.  The check is the module's ``get_beta()`` and
  ``theta @ beta``, its decoder.
* ``scholar/`` (beta.npz, bg.npz, vocab.json): scholar is not on the package index, so these
  are NOT written by scholar's code: they reproduce the files its ``run_scholar.py`` writes
  (``save_weights``: ``np.savez(beta.npz, beta=model.get_weights())``, the decoder Linear's
  weight transposed, (K, V) float32; ``np.savez(bg.npz, bg=model.get_bg())``, its bias, (V,)
  float32; the vocabulary as a JSON list).  The check is a torch Linear with that weight and
  bias and scholar's evaluation-mode decoder softmax(beta_layer(theta)) (``eta_bn_prop=0``).
* ``octis_output.npz``: OCTIS's own ``save_model_output`` of a model-output dictionary;
  ``octis_prodlda_network.pth``: ``torch.save(octis_model.model.model)``, the decoder network of
  OCTIS's ProdLDA saved whole, as the refusal of the output tells the user to save it; made with
  ``learn_priors=False``, where its prior mean and variance are plain tensor attributes that a
  state_dict leaves out.
* ``<name>_encoder_check.npz`` for ``pyro_prodlda``, ``etm_model``, ``etm_fixed`` and
  ``etm_rrelu`` (an ETM whose activation is RReLU, a leaky ReLU in evaluation mode): a few
  documents' word counts and the library's own evaluation-mode encoder output for them, the
  mean and the standard deviation of q(z | w) (pyro: the tutorial's ``Encoder.forward``; ETM:
  ``Model.encode`` on the normalised counts, as ``bow_norm`` feeds it, exp(0.5 logsigma)).  Made
  by ``write_encoder_checks`` from the saved files, loaded back with torch.
"""

# the libraries of one kind of file each (ETM, OCTIS) are imported where that file is made, so
# that benchmarks/ln_encoder.py can take the pyro model without them
import json
from pathlib import Path

import numpy as np
import pyro
import pyro.distributions as dist
import torch
import torch.nn.functional as F
from torch import nn

HERE = Path(__file__).parent
VOCAB = ["apple", "bread", "cheese", "dog", "egg", "fish", "grape", "honey", "ink", "jam",
         "kale", "lime"]
K = 3


class Encoder(nn.Module):
    """The tutorial's encoder (the guide's network)."""

    def __init__(self, vocab_size, num_topics, hidden, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.fc1 = nn.Linear(vocab_size, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fcmu = nn.Linear(hidden, num_topics)
        self.fclv = nn.Linear(hidden, num_topics)
        self.bnmu = nn.BatchNorm1d(num_topics, affine=False)
        self.bnlv = nn.BatchNorm1d(num_topics, affine=False)

    def forward(self, inputs):
        h = self.drop(F.softplus(self.fc2(F.softplus(self.fc1(inputs)))))
        return self.bnmu(self.fcmu(h)), (0.5 * self.bnlv(self.fclv(h))).exp()


class Decoder(nn.Module):
    """The tutorial's decoder: softmax(BN(beta(theta)))."""

    def __init__(self, vocab_size, num_topics, dropout):
        super().__init__()
        self.beta = nn.Linear(num_topics, vocab_size, bias=False)
        self.bn = nn.BatchNorm1d(vocab_size, affine=False)
        self.drop = nn.Dropout(dropout)

    def forward(self, inputs):
        return F.softmax(self.bn(self.beta(self.drop(inputs))), dim=1)


class ProdLDA(nn.Module):
    """The tutorial's model: logtheta ~ N(0, I), theta = softmax(logtheta)."""

    def __init__(self, vocab_size, num_topics, hidden, dropout):
        super().__init__()
        self.num_topics = num_topics
        self.encoder = Encoder(vocab_size, num_topics, hidden, dropout)
        self.decoder = Decoder(vocab_size, num_topics, dropout)

    def model(self, docs):
        pyro.module("decoder", self.decoder)
        with pyro.plate("documents", docs.shape[0]):
            loc = docs.new_zeros((docs.shape[0], self.num_topics))
            scale = docs.new_ones((docs.shape[0], self.num_topics))
            logtheta = pyro.sample("logtheta", dist.Normal(loc, scale).to_event(1))
            theta = F.softmax(logtheta, -1)
            count_param = self.decoder(theta)
            pyro.sample("obs", dist.Multinomial(int(docs.sum(-1).max()), count_param), obs=docs)

    def guide(self, docs):
        pyro.module("encoder", self.encoder)
        with pyro.plate("documents", docs.shape[0]):
            loc, scale = self.encoder(docs)
            pyro.sample("logtheta", dist.Normal(loc, scale).to_event(1))


def check_thetas(n=5):
    return torch.softmax(torch.randn(n, K), dim=1)


def save_check(name, theta, word_dist):
    np.savez(HERE / f"{name}_check.npz", theta=theta.numpy().astype(np.float64),
             word_dist=word_dist.numpy().astype(np.float64), vocab=np.array(VOCAB))


def write_pyro_prodlda():
    torch.manual_seed(0)
    pyro.set_rng_seed(0)
    pyro.clear_param_store()
    module = ProdLDA(len(VOCAB), K, hidden=8, dropout=0.2)
    docs = torch.poisson(torch.full((16, len(VOCAB)), 2.0))
    svi = pyro.infer.SVI(module.model, module.guide, pyro.optim.Adam({"lr": 1e-2}),
                         loss=pyro.infer.TraceMeanField_ELBO())
    for _ in range(5):  # training steps: the batch norms' running statistics move
        svi.step(docs)
    module.eval()
    torch.save(module.state_dict(), HERE / "pyro_prodlda.pth")
    theta = check_thetas()
    with torch.no_grad():
        save_check("pyro_prodlda", theta, module.decoder(theta))


def write_pyro_prodlda_v1():
    torch.manual_seed(4)
    decoder = nn.Sequential()
    decoder.beta = nn.Linear(K, len(VOCAB))
    decoder.bn = nn.BatchNorm1d(len(VOCAB))
    with torch.no_grad():
        decoder.bn.weight.uniform_(0.5, 1.5)
        decoder.bn.bias.uniform_(-0.5, 0.5)
        for _ in range(5):  # training-mode passes: the running statistics
            decoder.bn(decoder.beta(torch.softmax(torch.randn(16, K), dim=1)))
    decoder.eval()
    torch.save({f"decoder.{name}": value for name, value in decoder.state_dict().items()},
               HERE / "pyro_prodlda_v1.pth")
    theta = check_thetas()
    with torch.no_grad():  # the earlier tutorial's Decoder.forward, evaluation mode
        save_check("pyro_prodlda_v1", theta, F.softmax(decoder.bn(decoder.beta(theta)), dim=1))


def write_etm():
    from embedded_topic_model.models.model import Model as EtmModel
    torch.manual_seed(1)
    cpu = torch.device("cpu")
    trained = EtmModel(cpu, K, len(VOCAB), t_hidden_size=8, rho_size=4, emsize=4,
                       theta_act="relu", train_embeddings=True)
    fixed = EtmModel(cpu, K, len(VOCAB), t_hidden_size=8, rho_size=4, emsize=4,
                     theta_act="tanh", embeddings=torch.randn(len(VOCAB), 4),
                     train_embeddings=False)
    for name, model in (("etm_model", trained), ("etm_fixed", fixed)):
        model.eval()
        with open(HERE / f"{name}.pth", "wb") as file:
            torch.save(model, file)
        theta = check_thetas()
        with torch.no_grad():
            save_check(name, theta, theta @ model.get_beta())
    torch.save(trained.state_dict(), HERE / "etm_state.pth")


def write_scholar():
    torch.manual_seed(2)
    folder = HERE / "scholar"
    folder.mkdir(exist_ok=True)
    counts = np.random.default_rng(2).poisson(2.0, size=(20, len(VOCAB))).sum(axis=0) + 1
    bg = np.log(counts) - np.log(counts.sum())  # run_scholar.get_init_bg
    beta_layer = nn.Linear(K, len(VOCAB))
    nn.init.xavier_uniform_(beta_layer.weight)
    with torch.no_grad():
        beta_layer.bias.copy_(torch.from_numpy(bg.astype(np.float32)))
    np.savez(folder / "beta.npz", beta=beta_layer.weight.detach().numpy().T)
    np.savez(folder / "bg.npz", bg=beta_layer.bias.detach().numpy())
    (folder / "vocab.json").write_text(json.dumps(VOCAB))
    theta = check_thetas()
    with torch.no_grad():
        save_check("scholar", theta, F.softmax(beta_layer(theta), dim=1))


def write_octis():
    from octis.models.model import save_model_output
    from octis.models.pytorchavitm.avitm.decoder_network import DecoderNetwork
    rng = np.random.default_rng(3)
    output = {"topics": [VOCAB[:4], VOCAB[4:8], VOCAB[8:]],
              "topic-word-matrix": rng.dirichlet(np.ones(len(VOCAB)), size=K),
              "topic-document-matrix": rng.dirichlet(np.ones(K), size=6).T}
    save_model_output(output, str(HERE / "octis_output"))
    torch.manual_seed(3)
    net = DecoderNetwork(len(VOCAB), K, "prodLDA", hidden_sizes=(8,), learn_priors=False)
    x = torch.poisson(torch.full((16, len(VOCAB)), 2.0))
    for _ in range(5):  # training-mode passes: the batch norm's running statistics
        net(x)
    net.eval()
    torch.save(net, HERE / "octis_prodlda_network.pth")
    theta = check_thetas()
    with torch.no_grad():  # the network's own evaluation-mode decoder
        save_check("octis_prodlda_network", theta,
                   F.softmax(net.beta_batchnorm(theta @ net.beta), dim=1))


def check_docs(n=4):
    return torch.poisson(torch.full((n, len(VOCAB)), 1.5, dtype=torch.float64)).float() + \
        torch.eye(n, len(VOCAB))


def write_encoder_checks():
    from embedded_topic_model.models.model import Model as EtmModel
    torch.manual_seed(5)
    rrelu = EtmModel(torch.device("cpu"), K, len(VOCAB), t_hidden_size=8, rho_size=4, emsize=4,
                     theta_act="rrelu", train_embeddings=True)
    rrelu.eval()
    with open(HERE / "etm_rrelu.pth", "wb") as file:
        torch.save(rrelu, file)
    docs = check_docs()
    module = ProdLDA(len(VOCAB), K, hidden=8, dropout=0.2)
    module.load_state_dict(torch.load(HERE / "pyro_prodlda.pth"))
    module.eval()
    with torch.no_grad():
        loc, scale = module.encoder(docs)
    np.savez(HERE / "pyro_prodlda_encoder_check.npz", docs=docs.numpy().astype(np.int64),
             mu=loc.numpy().astype(np.float64), sd=scale.numpy().astype(np.float64))
    for name in ("etm_model", "etm_fixed", "etm_rrelu"):
        model = torch.load(HERE / f"{name}.pth", weights_only=False)
        model.eval()
        with torch.no_grad():
            mu, logsigma, _ = model.encode(docs / docs.sum(1, keepdim=True))
        np.savez(HERE / f"{name}_encoder_check.npz", docs=docs.numpy().astype(np.int64),
                 mu=mu.numpy().astype(np.float64),
                 sd=torch.exp(0.5 * logsigma).numpy().astype(np.float64))


if __name__ == "__main__":
    write_pyro_prodlda()
    write_pyro_prodlda_v1()
    write_etm()
    write_scholar()
    write_octis()
    write_encoder_checks()
