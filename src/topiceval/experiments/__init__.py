"""topiceval.experiments"""
