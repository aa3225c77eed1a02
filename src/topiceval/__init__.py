"""topiceval: held-out likelihood estimators for topic models, checked against exact answers."""

__version__ = "0.1.0"
