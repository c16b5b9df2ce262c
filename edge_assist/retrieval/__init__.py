"""The three retrieval paths (temporal, graph, visual), reconstruction and fusion. Reads
memory only through the MemoryReader protocol; every read is bounded by before_t."""
