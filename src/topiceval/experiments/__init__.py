"""The experiments of the four papers, on shared machinery.

A paper module holds what is particular to its paper: its grid of typed tasks, how one task is
run, its summaries and the captions of its tables (docs/methods/experiments.md):

* ``bechard2018``: Béchard & Gervet, 001-F4, 001-T1, 001-T2;
* ``wallach2009``: Wallach, Murray, Salakhutdinov & Mimno 2009, 002-F1, F2, F3, T1;
* ``foulds_smyth``: Foulds & Smyth, 003-F1 and the reciprocal check 003-X1;
* ``capdevila2018``: Capdevila et al. 2018, 004-T1, F1, F2, F3;

and, on the same machinery, ``study``: a user's own corpus and models compared (which model is
best on my documents, and by how much; the ``study:`` configuration key).

The machinery they share, one job per module:

* ``tasks``: blocks of documents (or repeats), task names, shards of a task grid, scaled counts;
* ``timings``: a shard's rows split into estimates and wall-clock timings;
* ``rows``: shard tables read back in order;
* ``bootstrap``: the mean of runs in probability space (2.0) and its bootstrap over runs;
* ``trained``: Gibbs-trained LDA models of a training split, corpora matched to a model;
* ``paired``: totals and paired differences of per-document estimates with their sampling and
  Monte Carlo errors, and seeded samples of documents.

Every seed comes from ``topiceval.seeds``.  The captions of the figures are beside the figures,
in ``topiceval.plots``: the function that draws a figure's file also writes its caption.
"""
