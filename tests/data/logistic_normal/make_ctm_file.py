"""Write ctm_prodlda.pth and ctm_lda.pth, model files as contextualized-topic-models'
``CTM.save`` writes them, and ctm_<type>_check.npz, the decoder's own word distributions for a
few theta.

Run once, in an environment with torch and contextualized-topic-models (installed with
``pip install --no-deps contextualized-topic-models==2.6.1`` beside torch 2.13.0+cpu):

    python tests/data/logistic_normal/make_ctm_file.py

``CTM.save`` writes ``torch.save({"state_dict": model.state_dict(), "dcue_dict":
ctm.__dict__})``; the CTM object's ``__dict__`` holds the model itself and other objects, which
an importer must skip without running them.  The network here is the library's own
``DecoderNetwork`` (ProdLDA, ZeroShotTM's inference network), its batch norm given running
statistics by a few training-mode passes, then put in evaluation mode.
"""

from pathlib import Path

import numpy as np
import torch
from contextualized_topic_models.networks.decoding_network import DecoderNetwork

HERE = Path(__file__).parent
VOCAB = ["apple", "bread", "cheese", "dog", "egg", "fish", "grape", "honey", "ink", "jam",
         "kale", "lime"]


def write(model_type, name):
    torch.manual_seed(0)
    net = DecoderNetwork(len(VOCAB), 4, "zeroshot", n_components=3, model_type=model_type,
                         hidden_sizes=(8,))
    with torch.no_grad():
        net.prior_mean.copy_(torch.tensor([0.2, -0.1, 0.0]))
        net.prior_variance.copy_(torch.tensor([0.8, 0.5, 1.2]))
        x = torch.poisson(torch.full((16, len(VOCAB)), 2.0))
        for _ in range(5):  # training-mode passes: the batch norm's running statistics
            net.train()
            net(x, torch.randn(16, 4))
    net.eval()
    dcue = {"model_type": model_type, "n_components": 3, "model": net,
            "idx2token": dict(enumerate(VOCAB))}
    with open(HERE / f"ctm_{name}.pth", "wb") as file:
        torch.save({"state_dict": net.state_dict(), "dcue_dict": dcue}, file)
    theta = torch.softmax(torch.randn(5, 3), dim=1)
    with torch.no_grad():  # the library's forward pass, evaluation mode, without the encoder
        if model_type == "prodLDA":
            word_dist = torch.softmax(net.beta_batchnorm(theta @ net.beta), dim=1)
        else:
            word_dist = theta @ torch.softmax(net.beta_batchnorm(net.beta), dim=1)
    np.savez(HERE / f"ctm_{name}_check.npz", theta=theta.numpy().astype(np.float64),
             word_dist=word_dist.numpy().astype(np.float64), vocab=np.array(VOCAB))


if __name__ == "__main__":
    write("prodLDA", "prodlda")
    write("LDA", "lda")
