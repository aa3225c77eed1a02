"""topiceval.data"""
