"""topiceval.plots"""
