"""topiceval.data: from raw corpus files to ``Corpus`` objects.

* ``sources``: the registry of raw files (mirror path, canonical URL, accepted sha256);
* ``download``: ``fetch`` copies from a mirror or downloads, verifies checksums and archive
  integrity, all or nothing;
* ``nltk_resources``: NLTK stop words and WordNet from a mirror or ``nltk.download``;
* ``readers``: one reader per staged format, returning a ``RawCorpus``;
* ``splits``: archive / random / no split, and per-split subsampling;
* ``preprocess``: the named recipes (``asis``, ``bechard2018``, ``capdevila2018``,
  ``wallach2009``);
* ``prepare``: ``build_corpus(dataset, raw_dir, recipe, options, nltk_data, log)``;
* ``stats``: the corpus statistics table next to the papers' numbers.
"""
