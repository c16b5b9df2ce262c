"""Spoken questions: microphone capture, voice-activity detection, speech-to-text, and the
`VoiceQuestions` stage that turns the wearer's speech into `UserQuery` events."""

from edge_assist.voice.questions import VoiceQuestions, build_voice_questions
from edge_assist.voice.status import voice_status

__all__ = ["VoiceQuestions", "build_voice_questions", "voice_status"]
