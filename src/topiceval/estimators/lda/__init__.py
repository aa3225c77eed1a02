"""topiceval.estimators.lda"""
