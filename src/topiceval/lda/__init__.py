"""topiceval.lda"""
