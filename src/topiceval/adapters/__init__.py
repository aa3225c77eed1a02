"""Import LDA models trained by other libraries as ``topiceval.models.LDAModel``.

Every importer returns float64 topics ``phi`` (T x V, rows summing to 1), the document-topic
pseudo-counts ``alpha_m`` (T,), the symmetric word pseudo-count ``beta`` when there is one, the
words of phi's columns in the library's own order (``vocab``) and provenance in ``meta``
(library, version, importer, priors, how phi was formed).  The peer libraries are imported only
when an importer needs them (``pip install -e ".[adapters]"`` in a clone).

==========================  ==============================================================
``from_sklearn``            ``sklearn.decomposition.LatentDirichletAllocation`` + vocabulary
``from_gensim``             ``gensim.models.LdaModel`` / ``LdaMulticore``
``from_tomotopy``           ``tomotopy.LDAModel``
``from_mallet``             MALLET's ``--output-state`` file
``from_mallet_weights``     MALLET's ``--topic-word-weights-file`` + alpha
``from_lda``                the ``lda`` package's ``lda.LDA`` + vocabulary
==========================  ==============================================================

``own_number(model, documents)`` gives each library's own number for its model (a bound, a
plug-in, a joint; natural logs, per token, on which tokens), to set beside ``topiceval.evaluate``.
"""

from topiceval.adapters.gensim_lda import from_gensim
from topiceval.adapters.lda_package import from_lda
from topiceval.adapters.mallet import CutShortWarning, from_mallet, from_mallet_weights
from topiceval.adapters.own_numbers import OwnNumber, own_number
from topiceval.adapters.sklearn_lda import from_sklearn
from topiceval.adapters.tomotopy_lda import from_tomotopy

__all__ = ["CutShortWarning", "OwnNumber", "from_gensim", "from_lda", "from_mallet",
           "from_mallet_weights", "from_sklearn", "from_tomotopy", "own_number"]
