"""Where the stream comes from: cameras (OpenCV, picamera2) and replay of recorded video
or of caption streams. Replay is just another camera (DESIGN.md convention 4)."""
