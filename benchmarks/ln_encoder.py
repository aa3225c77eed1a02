"""IS-encoder against IS-Laplace on an imported, trained ProdLDA: error per CPU-second (issue 49).

The model: pyro's tutorial ProdLDA (the module of tests/data/logistic_normal/make_neural_files.py,
hidden 100, dropout 0.2, K = 10) trained with its TraceMeanField_ELBO (Adam, lr 1e-2, batches of
32, 80 epochs, seed 0) on the first 400 AP documents (/work/shared/data/ap) over their 1,000
most frequent words, saved with ``torch.save(prodLDA.state_dict())`` and imported by
``from_pyro_prodlda`` (encoder included).  Torch and pyro are needed for the training only.

Held out: the next 30 AP documents with at least 10 tokens in that vocabulary.  Per document and
method, REPEATS = 16 independent estimates of S = 1,000 weights each (seeds 0..15), timed with
``time.process_time``; the reference log P(w_d) is the average in probability of all the
methods' weights together (4 x 16,000, each set unbiased for P).  Printed per method: the
median over documents of the RMSE of one estimate against the reference (nats), of the CPU
milliseconds per estimate, of the *cost of accuracy* RMSE^2 x CPU-seconds (the CPU-seconds an
estimate would need for an RMSE of 1 nat: lower is better, and it does not depend on S while
the error falls as 1/sqrt(S)), and of k-hat of one estimate's weights.

Protocol, fixed before the run: is_encoder is recommended on imported models with an encoder
if its median cost of accuracy is below IS-Laplace t_5's (the default); else is_laplace stays
the recommendation and is_encoder is only a cross-check.

    NUMBA_NUM_THREADS=1 nice python benchmarks/ln_encoder.py
"""

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from topiceval.logistic_normal.importers import from_pyro_prodlda
from topiceval.logistic_normal.is_encoder import is_encoder
from topiceval.logistic_normal.is_laplace import is_laplace
from topiceval.logistic_normal.weights import estimate_from_weights

AP = Path("/work/shared/data/ap/ap.dat")
N_TRAIN, N_TEST, V, K, MIN_TOKENS = 400, 30, 1000, 10, 10
SAMPLES, REPEATS = 1000, 16
METHODS = {
    "is_laplace_t5": lambda m, doc, d, r: is_laplace(m, doc, samples=SAMPLES, df=5.0, seed=r,
                                                     document=d),
    "is_laplace_gauss": lambda m, doc, d, r: is_laplace(m, doc, samples=SAMPLES, seed=r,
                                                        document=d),
    "is_encoder_gauss": lambda m, doc, d, r: is_encoder(m, doc, samples=SAMPLES, seed=r,
                                                        document=d),
    "is_encoder_t5": lambda m, doc, d, r: is_encoder(m, doc, samples=SAMPLES, df=5.0, seed=r,
                                                     document=d),
}


def read_ap():
    docs = []
    for line in AP.read_text().splitlines():
        pairs = [p.split(":") for p in line.split()[1:]]
        docs.append({int(w): int(c) for w, c in pairs})
    return docs


def corpus():
    """(training counts (N_TRAIN, V), held-out token-id arrays) over the top-V words."""
    docs = read_ap()
    train = docs[:N_TRAIN]
    freq = {}
    for doc in train:
        for w, c in doc.items():
            freq[w] = freq.get(w, 0) + c
    top = sorted(freq, key=lambda w: (-freq[w], w))[:V]
    column = {w: i for i, w in enumerate(top)}
    counts = np.zeros((N_TRAIN, V))
    for d, doc in enumerate(train):
        for w, c in doc.items():
            if w in column:
                counts[d, column[w]] = c
    held = []
    for doc in docs[N_TRAIN:]:
        ids = np.repeat([column[w] for w in doc if w in column],
                        [c for w, c in doc.items() if w in column]).astype(np.int64)
        if ids.size >= MIN_TOKENS:
            held.append(ids)
        if len(held) == N_TEST:
            break
    return counts, held


def train(counts, path):
    """The tutorial's training loop; the state_dict saved to ``path``."""
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests" / "data" / "logistic_normal"))
    import pyro
    import torch
    from make_neural_files import ProdLDA

    torch.manual_seed(0)
    pyro.set_rng_seed(0)
    pyro.clear_param_store()
    module = ProdLDA(V, K, hidden=100, dropout=0.2)
    svi = pyro.infer.SVI(module.model, module.guide, pyro.optim.Adam({"lr": 1e-2}),
                         loss=pyro.infer.TraceMeanField_ELBO())
    data = torch.tensor(counts, dtype=torch.float32)
    rng = np.random.default_rng(0)
    for epoch in range(80):
        order = rng.permutation(N_TRAIN)
        loss = sum(svi.step(data[order[i:i + 32]]) for i in range(0, N_TRAIN, 32))
        if epoch % 20 == 0:
            print(f"epoch {epoch}: loss {loss / counts.sum():.3f} per token", flush=True)
    module.eval()
    torch.save(module.state_dict(), path)


def main():
    counts, held = corpus()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "prodlda.pth"
        train(counts, path)
        model = from_pyro_prodlda(path)
    print(f"K = {K}, V = {V}, {len(held)} held-out documents of "
          f"{min(map(len, held))}-{max(map(len, held))} tokens")
    for run in METHODS.values():  # compile the kernels outside the timing
        run(model, held[0][:2], 0, 0)
    table = {name: {"rmse": [], "ms": [], "cost": [], "khat": []} for name in METHODS}
    for d, doc in enumerate(held):
        estimates, seconds = {}, {}
        for name, run in METHODS.items():
            start = time.process_time()
            estimates[name] = [run(model, doc, d, r) for r in range(REPEATS)]
            seconds[name] = (time.process_time() - start) / REPEATS
        reference = estimate_from_weights(np.concatenate(
            [e.log_weights for runs in estimates.values() for e in runs])).log_p
        for name, runs in estimates.items():
            err = np.array([e.log_p for e in runs]) - reference
            rmse = float(np.sqrt(np.mean(err**2)))
            table[name]["rmse"].append(rmse)
            table[name]["ms"].append(1e3 * seconds[name])
            table[name]["cost"].append(rmse**2 * seconds[name])
            table[name]["khat"].append(float(np.median([e.khat for e in runs])))
    print(f"{'method':18s} {'RMSE (nats)':>12s} {'CPU ms':>8s} {'RMSE^2 x s':>11s} "
          f"{'k-hat':>6s}   (medians over documents; S = {SAMPLES})")
    for name, cols in table.items():
        med = {key: float(np.median(value)) for key, value in cols.items()}
        print(f"{name:18s} {med['rmse']:12.4f} {med['ms']:8.1f} {med['cost']:11.2e} "
              f"{med['khat']:6.2f}")
    base = np.array(table["is_laplace_t5"]["cost"])
    for name in ("is_encoder_gauss", "is_encoder_t5"):
        ratio = np.array(table[name]["cost"]) / base
        print(f"{name} / is_laplace_t5 cost of accuracy: median {np.median(ratio):.2f}, "
              f"documents where lower: {int(np.sum(ratio < 1))}/{ratio.size}")


if __name__ == "__main__":
    main()
