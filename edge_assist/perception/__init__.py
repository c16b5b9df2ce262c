"""From frames to words: the segmenter (clips and keyframes) and the captioner stage."""
