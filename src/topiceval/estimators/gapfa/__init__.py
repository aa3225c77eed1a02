"""topiceval.estimators.gapfa"""
