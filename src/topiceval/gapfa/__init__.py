"""topiceval.gapfa"""
