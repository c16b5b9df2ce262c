"""The glasses link's cryptography, without sockets: known answers for every primitive and
for the Noise handshake, the transport's replay window and rekeying, and tampering."""

from __future__ import annotations

import hashlib
import os
import struct
import zlib
from typing import Any

import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from firmware_bridge import handshake
from firmware_bridge.crypto import (
    NONCE_WINDOW,
    Inbound,
    Outbound,
    Pairing,
    RekeyPolicy,
    ReplayedFrame,
    fingerprint,
)
from firmware_bridge.frames import FrameError, MsgType, parse
from firmware_bridge.handshake import HandshakeRefused, HostHandshakes
from firmware_bridge.noise import CipherState, HandshakeState, KeyPair, NoiseError, SymmetricState, dh
from firmware_bridge.noise import protocol_name as noise_name

H = bytes.fromhex

# -- the primitives, from their RFCs -------------------------------------------------------


def test_x25519_rfc7748_section_6_1() -> None:
    alice = KeyPair.from_private(H("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"))
    bob = KeyPair.from_private(H("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb"))
    assert alice.public == H("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
    assert bob.public == H("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f")
    shared = H("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742")
    assert dh(alice, bob.public) == dh(bob, alice.public) == shared
    with pytest.raises(NoiseError):  # a low-order point: the all-zero secret is refused
        dh(alice, bytes(32))


def test_chacha20_poly1305_rfc8439_section_2_8_2() -> None:
    key = bytes(range(0x80, 0xA0))
    nonce = H("070000004041424344454647")
    aad = H("50515253c0c1c2c3c4c5c6c7")
    plaintext = (
        b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for "
        b"the future, sunscreen would be it."
    )
    expected = H(
        "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca967128"
        "2fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fa"
        "b324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
        "1ae10b594f09e26a7e902ecbd0600691"
    )
    assert ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad) == expected
    # Noise's nonce (12.3): 32 zero bits, then the counter little-endian.
    c = CipherState(key)
    c.set_nonce(0x4746454443424140)
    ours = c.encrypt_with_ad(aad, plaintext)
    assert ours == ChaCha20Poly1305(key).encrypt(H("000000004041424344454647"), plaintext, aad)


def test_blake2s_rfc7693_appendix_b() -> None:
    assert hashlib.blake2s(b"abc").digest() == H(
        "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c866759 82".replace(" ", "")
    )


def test_symmetric_state_matches_wireguard_constants() -> None:
    # WireGuard runs the same suite: its published C_i = HASH(construction) and
    # H_i = HASH(C_i || identifier) are InitializeSymmetric and MixHash(prologue).
    s = SymmetricState(noise_name("IKpsk2"))
    assert s.ck == H("60e26daef327efc02ec335e2a025d2d016eb4206f87277f52d38d1988b78cd36")
    s.mix_hash(b"WireGuard v1 zx2c4 Jason@zx2c4.com")
    assert s.h == H("2211b361081ac566691243db458ad5322d9c6c662293e8b70ee19c65ba079ef3")


# -- the handshake: answers recorded from an independent implementation ---------------------
# Produced by the `noiseprotocol` package (itself checked against the cacophony vectors) with
# the keys below; `test_interop_with_noiseprotocol` re-derives them when it is installed.


def _k(n: int) -> bytes:
    return bytes((n + i) % 256 for i in range(32))


PSK = _k(129)
I_S, R_S, I_E, R_E = (KeyPair.from_private(_k(n)) for n in (1, 33, 65, 97))
PROLOGUE = b"edge-assist known answer"
VECTORS: dict[str, dict[str, Any]] = {
    "IKpsk2": {
        "payloads": [b"hello", b"world"],
        "messages": [
            "64b101b1d0be5a8704bd078f9895001fc03e8e9f9522f188dd128d9846d48466158a0e4ca242d151ca97ab9015"
            "9a98b67e616625e68b4065d357376b6598e644e1be99b8390e410f9c16d9866a0075c81e51079676d5f87f011f"
            "8a6056a58425b4692f9ddd",
            "244fe3b963e899dd295baffce248d3530f3a9a7479ba063002680ebfe7adad493530c1bbc63d1fa7110eb8184c"
            "8f758c0f2284c311",
        ],
        "hash": "a894503a6e9f1934f14f09d1154e18055c6a3ab4af43fa111c117508fbcf5106",
        "transport": [
            "aefd1bd5d8dde24db1ba949a2d045ca9c0f33d1354a5a92f65c3688489bf",
            "1b4e70f0063c574f7858aac08dacc7dcaea6e1f0f122d7e383da2b714b37",
            "6293a0a1a14da6d48be756403b987c63ff23cdcfa581a33106b0ee",
        ],
    },
    "XXpsk3": {
        "payloads": [b"a", b"bb", b"ccc"],
        "messages": [
            "64b101b1d0be5a8704bd078f9895001fc03e8e9f9522f188dd128d9846d48466fd38d26d52d0936e716327e2fd"
            "cb7e0e8f",
            "244fe3b963e899dd295baffce248d3530f3a9a7479ba063002680ebfe7adad495534b09106d6431df60439ae87"
            "012b0ff75811d92fed166927637d77348e2f230c1a3623e093aa7a25fcf94ea947bb22586e5b707f9e33b8252f"
            "8a78f501a543611b",
            "c75dbfb0fd84919698d97fcc5630990e56e502eacac5c29677ff2cd0457f4fe40c42de8f8e1f93aa9ad1721e48"
            "d3c24ea9d50bba170f182a9c6ef98b38676fee3e7bbf",
        ],
        "hash": "f42a346605f9f8dd499982a7a80c5fd2bd2ffc2de30cfa77b8707935160a8c1c",
        "transport": [
            "d6b1d37466dc00a261e73b9e5f59fdc3f38fef3b810d28536344f60f872d",
            "f3744014a0326f25797e357fa1781f1c0d668309dee9e28c2516dec7467e",
            "031fae6000e816b5d4e82d31552d2e7f3b715a3911a6ddd745a284",
        ],
    },
}


def _run(pattern: str) -> tuple[list[bytes], bytes, list[bytes]]:
    """Both sides of the pattern with the fixed keys; returns messages, hash, transport."""
    rs = R_S.public if pattern == "IKpsk2" else None
    ini = HandshakeState(pattern, True, PROLOGUE, s=I_S, e=I_E, rs=rs, psk=PSK)
    res = HandshakeState(pattern, False, PROLOGUE, s=R_S, e=R_E, psk=PSK)
    messages, ciphers_i, ciphers_r = [], None, None
    for k, payload in enumerate(VECTORS[pattern]["payloads"]):
        writer, reader = (ini, res) if k % 2 == 0 else (res, ini)
        msg, w_ciphers = writer.write_message(payload)
        got, r_ciphers = reader.read_message(msg)
        assert got == payload
        messages.append(msg)
        if w_ciphers:
            ciphers_i, ciphers_r = (w_ciphers, r_ciphers) if writer is ini else (r_ciphers, w_ciphers)
    assert ciphers_i and ciphers_r and ini.handshake_hash == res.handshake_hash
    t1 = ciphers_i[0].encrypt_with_ad(b"", b"transport i->r")
    assert ciphers_r[0].decrypt_with_ad(b"", t1) == b"transport i->r"
    t2 = ciphers_r[1].encrypt_with_ad(b"", b"transport r->i")
    assert ciphers_i[1].decrypt_with_ad(b"", t2) == b"transport r->i"
    ciphers_i[0].rekey()
    t3 = ciphers_i[0].encrypt_with_ad(b"", b"after rekey")
    return messages, ini.handshake_hash, [t1, t2, t3]


@pytest.mark.parametrize("pattern", sorted(VECTORS))
def test_handshake_known_answers(pattern: str) -> None:
    messages, h, transport = _run(pattern)
    v = VECTORS[pattern]
    assert [m.hex() for m in messages] == v["messages"]
    assert h.hex() == v["hash"]
    assert [t.hex() for t in transport] == v["transport"]


@pytest.mark.parametrize("pattern", sorted(VECTORS))
def test_interop_with_noiseprotocol(pattern: str) -> None:
    conn = pytest.importorskip("noise.connection")  # a dev-only check, never a dependency
    them = conn.NoiseConnection.from_name(noise_name(pattern))
    them.set_as_responder()
    them.set_psks(PSK)
    them.set_prologue(PROLOGUE)
    them.set_keypair_from_private_bytes(conn.Keypair.STATIC, R_S.private)
    them.start_handshake()
    rs = R_S.public if pattern == "IKpsk2" else None
    us = HandshakeState(pattern, True, PROLOGUE, s=I_S, rs=rs, psk=PSK)  # fresh ephemeral
    ciphers = None
    for k, payload in enumerate(VECTORS[pattern]["payloads"]):
        if k % 2 == 0:
            msg, ciphers = us.write_message(payload)
            assert them.read_message(msg) == payload
        else:
            got, ciphers = us.read_message(them.write_message(payload))
            assert got == payload
    assert ciphers is not None and us.handshake_hash == them.get_handshake_hash()
    assert them.decrypt(ciphers[0].encrypt_with_ad(b"", b"up")) == b"up"
    assert ciphers[1].decrypt_with_ad(b"", them.encrypt(b"down")) == b"down"


# -- pairing, handshake frames, tampering ----------------------------------------------------


def _pair(secret: bytes | None = None) -> tuple[Pairing, Pairing]:
    secret = secret or os.urandom(32)
    return Pairing.from_secret(secret, "glasses"), Pairing.from_secret(secret, "host")


def _connect(glasses: Pairing, host: Pairing, policy: RekeyPolicy | None = None):  # type: ignore[no-untyped-def]
    policy = policy or RekeyPolicy()
    init, hello = handshake.initiate(glasses, b"G" * 8)
    h_session, reply = handshake.answer(host, parse(hello), b"H" * 8, None, policy, 0.0)
    g_session = handshake.finish({init.echo: init}, parse(reply), None, policy, 0.0)
    return g_session, h_session, hello, reply


def _answer(host: Pairing, hello: bytes):  # type: ignore[no-untyped-def]
    return handshake.answer(host, parse(hello), b"H" * 8, None, RekeyPolicy(), 0.0)


def _recrc(frame: bytearray) -> bytes:
    body = bytes(frame[:-4])
    return body + struct.pack(">I", zlib.crc32(body))


def test_pairing_pins_the_other_side_and_the_fingerprint_hides_the_secret() -> None:
    secret = os.urandom(32)
    g, h = _pair(secret)
    assert g.psk == h.psk and g.peer_static == h.static.public and h.peer_static == g.static.public
    assert fingerprint(secret) == fingerprint(secret) != fingerprint(os.urandom(32))
    assert _pair(os.urandom(32))[0].static != g.static  # re-pairing rotates the keys and the PSK


def test_handshake_gives_matching_sessions_and_fresh_keys_each_time() -> None:
    g, h = _pair()
    gs, hs, _, _ = _connect(g, h)
    assert gs.sid == hs.sid and gs.peer_epoch == b"H" * 8 and hs.peer_epoch == b"G" * 8
    frame = parse(gs.seal(int(MsgType.QUESTION), 1, 5, b"where are my keys?", 0.0))
    assert b"keys" not in frame.payload
    assert hs.inbound.open(frame.header.phase, frame.header.nonce, frame.header_bytes, frame.payload) == (
        b"where are my keys?"
    )
    gs2, _, _, _ = _connect(g, h)
    assert gs2.sid != gs.sid  # new ephemerals, new keys


def test_every_flipped_byte_of_a_sealed_frame_is_rejected() -> None:
    g, h = _pair()
    gs, hs, _, _ = _connect(g, h)
    good = gs.seal(int(MsgType.QUESTION), 1, 9, b"open the door", 0.0)
    for i in range(len(good) - 4):  # every byte but the CRC, with the CRC made right again
        bad = bytearray(good)
        bad[i] ^= 0x01
        with pytest.raises((FrameError, NoiseError, ReplayedFrame)):
            raw = parse(_recrc(bad))
            hs.inbound.open(raw.header.phase, raw.header.nonce, raw.header_bytes, raw.payload)
    raw = parse(good)
    assert hs.inbound.open(raw.header.phase, raw.header.nonce, raw.header_bytes, raw.payload)


def _initiation(g: Pairing, e: KeyPair) -> tuple[handshake.Initiation, bytes]:
    """The glasses' HELLO with a fixed ephemeral key, so it can be made again for every try."""
    hs = HandshakeState("IKpsk2", True, handshake.prologue(1), s=g.static, e=e, rs=g.peer_static, psk=g.psk)
    message, _ = hs.write_message(b"G" * 8)
    return handshake.Initiation(hs, message[: handshake.ECHO_LEN]), message


def test_every_flipped_byte_of_a_handshake_is_rejected() -> None:
    g, h = _pair()
    e = KeyPair.generate()
    _, hello = handshake.initiate(g, b"G" * 8)
    for i in range(len(hello) - 4):
        bad = bytearray(hello)
        bad[i] ^= 0x80
        with pytest.raises((HandshakeRefused, FrameError)):
            handshake.answer(h, parse(_recrc(bad)), b"H" * 8, None, RekeyPolicy(), 0.0)
    hello = handshake.handshake_frame(MsgType.HELLO, 0, bytes([1]) + _initiation(g, e)[1])
    _, reply = handshake.answer(h, parse(hello), b"H" * 8, None, RekeyPolicy(), 0.0)
    for i in range(len(reply) - 4):
        bad = bytearray(reply)
        bad[i] ^= 0x80
        init, _ = _initiation(g, e)  # reading spends an initiation: the same one again for each try
        with pytest.raises((HandshakeRefused, FrameError)):
            handshake.finish({init.echo: init}, parse(_recrc(bad)), None, RekeyPolicy(), 0.0)
    init, _ = _initiation(g, e)
    assert handshake.finish({init.echo: init}, parse(reply), None, RekeyPolicy(), 0.0).sid


def test_wrong_psk_and_unpaired_static_key_fail_the_handshake() -> None:
    g, h = _pair()
    wrong_psk = Pairing(os.urandom(32), g.static, g.peer_static)
    init, hello = handshake.initiate(wrong_psk, b"G" * 8)
    _, reply = handshake.answer(h, parse(hello), b"H" * 8, None, RekeyPolicy(), 0.0)  # psk2: not yet
    with pytest.raises(HandshakeRefused) as e:
        handshake.finish({init.echo: init}, parse(reply), None, RekeyPolicy(), 0.0)
    assert e.value.kind == "auth_failures"
    stranger = Pairing(g.psk, KeyPair.generate(), g.peer_static)  # knows the PSK, not the paired key
    with pytest.raises(HandshakeRefused, match="not the paired ones"):
        handshake.answer(
            h, parse(handshake.initiate(stranger, b"G" * 8)[1]), b"H" * 8, None, RekeyPolicy(), 0
        )
    with pytest.raises(HandshakeRefused, match="does not authenticate"):  # another pairing altogether
        handshake.answer(
            h, parse(handshake.initiate(_pair()[0], b"G" * 8)[1]), b"H" * 8, None, RekeyPolicy(), 0
        )


def test_a_recorded_session_stays_sealed_for_a_thief_with_the_pairing_secret() -> None:
    secret = os.urandom(32)
    g, h = _pair(secret)
    gs, _, hello, _ = _connect(g, h)
    recorded = parse(gs.seal(int(MsgType.QUESTION), 1, 1, b"my PIN is 1234", 0.0))
    # The thief holds everything the pairing gave the host, and replays the recorded HELLO.
    thief, _ = handshake.answer(
        Pairing.from_secret(secret, "host"), parse(hello), b"T" * 8, None, RekeyPolicy(), 0
    )
    with pytest.raises(NoiseError):
        h_ = recorded.header
        thief.inbound.open(h_.phase, h_.nonce, recorded.header_bytes, recorded.payload)


def test_replayed_hello_and_other_pattern_are_refused() -> None:
    g, h = _pair()
    book = HostHandshakes()
    _, hello = handshake.initiate(g, b"G" * 8)
    book.answer(h, parse(hello), b"H" * 8, None, RekeyPolicy(), 0.0)
    with pytest.raises(HandshakeRefused) as e:
        book.answer(h, parse(hello), b"H" * 8, None, RekeyPolicy(), 0.0)
    assert e.value.kind == "replays"
    _, other = handshake.initiate(g, b"G" * 8, pattern_id=2)
    with pytest.raises(HandshakeRefused) as e:
        book.answer(h, parse(other), b"H" * 8, None, RekeyPolicy(), 0.0)
    assert e.value.kind == "version_errors"
    assert str(e.value) == (
        "the glasses asked for Noise_XXpsk3_25519_ChaChaPoly_BLAKE2s; this assistant speaks only "
        "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s: update the glasses' firmware"
    )


# -- the transport: replay window and rekeying --------------------------------------------


def _pipe(policy: RekeyPolicy) -> tuple[Outbound, Inbound]:
    key = os.urandom(32)
    return Outbound(CipherState(key), policy, 0.0), Inbound(CipherState(key))


def _seal(out: Outbound, text: bytes, now: float = 0.0) -> tuple[int, int, bytes, bytes]:
    phase, nonce = out.next(now)
    header = struct.pack(">BQ", phase, nonce)
    return phase, nonce, header, out.seal(header, text)


def test_replay_window_accepts_reordering_and_refuses_repeats() -> None:
    out, inn = _pipe(RekeyPolicy())
    frames = [_seal(out, f"m{i}".encode()) for i in range(NONCE_WINDOW + 10)]
    assert inn.open(*frames[5]) == b"m5"
    assert inn.open(*frames[2]) == b"m2"  # reordered within the window: accepted
    for f in (frames[5], frames[2]):
        with pytest.raises(ReplayedFrame):
            inn.open(*f)
    assert inn.open(*frames[-1]) == f"m{NONCE_WINDOW + 9}".encode()
    with pytest.raises(ReplayedFrame):
        inn.open(*frames[3])  # never seen, but too far behind now
    assert inn.open(*frames[20]) == b"m20"  # inside the window behind the highest


def test_rekey_by_frames_and_by_time_keeps_both_sides_in_step() -> None:
    out, inn = _pipe(RekeyPolicy(after_frames=3, after_s=10.0))
    frames = [_seal(out, f"m{i}".encode()) for i in range(10)]
    assert out.rekeys == 3 and [f[0] for f in frames] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3]
    assert inn.open(*frames[4]) == b"m4"  # phase 1: the receiver steps forward
    assert inn.open(*frames[1]) == b"m1"  # a late phase-0 frame: the previous key still opens it
    assert inn.open(*frames[9]) == b"m9"  # phase 3 while phase 2 was lost: two steps at once
    assert inn.phase == 3 and inn.rekeys == 3
    with pytest.raises(NoiseError):
        inn.open(*frames[0])  # two phases back: that key is gone (forward secrecy within a session)
    late = _seal(out, b"an hour later", now=3600.0)
    assert late[0] == 4 and inn.open(*late) == b"an hour later"
    with pytest.raises(NoiseError):  # a forged phase far ahead is refused, not followed
        inn.open(40, 99, struct.pack(">BQ", 40, 99), os.urandom(30))


def test_fuzzed_receive_path_refuses_cleanly() -> None:
    from benchmarks.fuzz_bridge import run

    result = run(3000, seed=7)  # `python -m benchmarks.fuzz_bridge` runs 200k
    assert result["failure"] is None and result["inputs"] == 3000
    assert result["outcomes"]["transport:auth_failure"] > 100 and result["outcomes"]["frame:version"] > 10


def test_version_lines_say_which_side_to_update() -> None:
    from firmware_bridge.handshake import version_mismatch

    assert version_mismatch("host", 1).endswith("version 2: update the glasses' firmware")
    assert version_mismatch("host", 3).endswith("update edge-assist")
    assert version_mismatch("glasses", 1) == (
        "the assistant speaks protocol version 1, these glasses version 2: update edge-assist"
    )
    assert version_mismatch("glasses", 3).endswith("update the glasses' firmware")
