"""Everything that thinks: LLM and VLM through llama.cpp (or a remote OpenAI-compatible
server), and the ONNX text and image encoders. Knows no storage and no policy."""
