"""topiceval.estimators"""
