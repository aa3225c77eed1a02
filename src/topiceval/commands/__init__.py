"""Sub-commands of the ``topiceval`` command, one module each."""
