"""One reader per staged format; each returns a ``RawCorpus`` of ``RawDocument``s."""

from topiceval.data.readers.base import RawCorpus, RawDocument
from topiceval.data.readers.ldac import read_ldac
from topiceval.data.readers.newsgroups import read_newsgroups
from topiceval.data.readers.nips import read_nips
from topiceval.data.readers.reuters21578 import read_reuters21578
from topiceval.data.readers.sttm import read_sttm
from topiceval.data.readers.uci_bow import read_uci_docword
from topiceval.data.readers.user import (
    read_csv_column,
    read_jsonl_field,
    read_text_folder,
    read_uci_named,
)

__all__ = [
    "RawCorpus",
    "RawDocument",
    "read_csv_column",
    "read_jsonl_field",
    "read_ldac",
    "read_newsgroups",
    "read_nips",
    "read_reuters21578",
    "read_sttm",
    "read_text_folder",
    "read_uci_docword",
    "read_uci_named",
]
