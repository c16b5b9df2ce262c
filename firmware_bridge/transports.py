"""Byte carriers for the protocol: a serial line (COBS-framed) and UDP datagrams.

A transport moves whole frames and knows nothing of sessions or keys. `open()` waits for
the carrier to come up (the glasses may be switched on after the assistant), `recv()`
raises `TransportLost` when the carrier goes away, and the endpoint then opens it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Callable
from typing import Any, Protocol

from firmware_bridge.errors import BridgeError
from firmware_bridge.frames import FrameError, StreamDeframer, cobs_decode, stream_encode

log = logging.getLogger(__name__)

Address = Any
_RX_QUEUE = 256  # frames buffered between the socket and the endpoint before drops


class TransportLost(Exception):
    """The carrier went away (cable pulled, pty closed); open() again to resume."""


class Transport(Protocol):
    name: str
    rx_dropped: int  # frames the carrier delivered but nobody had room for
    rx_malformed: int  # byte-level framing errors (COBS)

    async def open(self) -> None: ...

    async def recv(self) -> tuple[bytes, Address]: ...

    async def send(self, frame: bytes, addr: Address = None) -> None: ...

    async def close(self) -> None: ...


class FdStreamTransport:
    """A byte stream on a non-blocking file descriptor, read by the event loop (no threads).

    `opener` returns a fresh fd each time the carrier is (re)opened; `closer` releases it.
    """

    def __init__(
        self,
        name: str,
        opener: Callable[[], int],
        closer: Callable[[int], None] | None = None,
        *,
        retry_s: float = 1.0,
    ) -> None:
        self.name = name
        self._opener = opener
        self._closer = closer
        self._retry_s = retry_s
        self._fd: int | None = None
        self._rx: asyncio.Queue[bytes | None] = asyncio.Queue(_RX_QUEUE)
        self._deframer = StreamDeframer()
        self.rx_dropped = 0
        self.rx_malformed = 0

    async def open(self) -> None:
        warned = False
        while True:
            try:
                fd = await asyncio.to_thread(self._opener)
                break
            except OSError as e:
                if not warned:
                    log.warning(
                        "%s not available yet (%s); retrying every %.1f s", self.name, e, self._retry_s
                    )
                    warned = True
                await asyncio.sleep(self._retry_s)
        os.set_blocking(fd, False)
        self._fd = fd
        self._rx = asyncio.Queue(_RX_QUEUE)
        self._deframer = StreamDeframer()
        asyncio.get_running_loop().add_reader(fd, self._on_readable)
        if warned:
            log.info("%s is up", self.name)

    def _on_readable(self) -> None:
        fd = self._fd
        if fd is None:
            return
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            return
        except OSError as e:
            if e.errno not in (errno.EIO, errno.ENXIO, errno.EBADF):
                log.warning("%s read failed: %s", self.name, e)
            data = b""
        if not data:
            self._detach()
            self._put(None)
            return
        for encoded in self._deframer.feed(data):
            try:
                self._put(cobs_decode(encoded))
            except FrameError:
                self.rx_malformed += 1

    def _put(self, item: bytes | None) -> None:
        if item is None:
            # The loss marker must get through even when the queue is full.
            while self._rx.full():
                self._rx.get_nowait()
                self.rx_dropped += 1
        elif self._rx.full():
            self.rx_dropped += 1
            return
        self._rx.put_nowait(item)

    def _detach(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(fd)
        if self._closer is not None:
            with contextlib.suppress(OSError):
                self._closer(fd)

    async def recv(self) -> tuple[bytes, Address]:
        item = await self._rx.get()
        if item is None:
            raise TransportLost(f"{self.name} closed")
        return item, None

    async def send(self, frame: bytes, addr: Address = None) -> None:
        data = stream_encode(frame)
        while data:
            fd = self._fd
            if fd is None:
                raise TransportLost(f"{self.name} is not open")
            try:
                n = os.write(fd, data)
            except BlockingIOError:
                await self._writable(fd)
                continue
            except OSError as e:
                self._detach()
                self._put(None)
                raise TransportLost(f"{self.name} write failed: {e}") from None
            data = data[n:]

    async def _writable(self, fd: int) -> None:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not fut.done():
                fut.set_result(None)

        loop.add_writer(fd, wake)
        try:
            await fut
        finally:
            loop.remove_writer(fd)

    async def close(self) -> None:
        self._detach()


def serial_transport(device: str, baud: int, *, retry_s: float = 1.0) -> FdStreamTransport:
    """The glasses on a serial port (USB CDC, UART, BLE-serial), opened with pyserial."""
    try:
        import serial  # type: ignore[import-untyped]
    except ImportError:
        raise BridgeError("the serial bridge needs pyserial: pip install 'edge-assist[serial]'") from None
    ports: dict[int, Any] = {}

    def opener() -> int:
        try:
            port = serial.Serial(device, baud, timeout=0, write_timeout=0, exclusive=True)
        except serial.SerialException as e:
            raise OSError(str(e)) from None
        fd = port.fileno()
        ports[fd] = port
        return int(fd)

    def closer(fd: int) -> None:
        port = ports.pop(fd, None)
        if port is not None:
            port.close()

    return FdStreamTransport(f"serial {device}", opener, closer, retry_s=retry_s)


class _Datagrams(asyncio.DatagramProtocol):
    def __init__(self, owner: UdpTransport) -> None:
        self.owner = owner

    def datagram_received(self, data: bytes, addr: Address) -> None:
        q = self.owner._rx
        if q.full():
            self.owner.rx_dropped += 1
        else:
            q.put_nowait((data, addr))

    def error_received(self, exc: Exception) -> None:
        # ICMP port unreachable while the peer restarts: the endpoint's retransmission copes.
        log.debug("%s: %s", self.owner.name, exc)


class UdpTransport:
    """One frame per datagram. `server` binds host:port; `client` sends to host:port."""

    def __init__(self, host: str, port: int, *, mode: str = "server") -> None:
        self.name = f"udp {'listening on' if mode == 'server' else 'to'} {host}:{port}"
        self.host, self.port, self.mode = host, port, mode
        self._transport: asyncio.DatagramTransport | None = None
        self._rx: asyncio.Queue[tuple[bytes, Address]] = asyncio.Queue(_RX_QUEUE)
        self.rx_dropped = 0
        self.rx_malformed = 0

    @property
    def local_address(self) -> tuple[str, int]:
        if self._transport is None:
            raise RuntimeError("transport not open")
        return self._transport.get_extra_info("sockname")[:2]  # type: ignore[no-any-return]

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        if self.mode == "server":
            try:
                transport, _ = await loop.create_datagram_endpoint(
                    lambda: _Datagrams(self), local_addr=(self.host, self.port)
                )
            except OSError as e:
                raise BridgeError(
                    f"cannot listen on udp {self.host}:{self.port} ({e.strerror}); "
                    "set bridge.port to a free port"
                ) from None
        else:
            transport, _ = await loop.create_datagram_endpoint(
                lambda: _Datagrams(self), remote_addr=(self.host, self.port)
            )
        self._transport = transport

    async def recv(self) -> tuple[bytes, Address]:
        return await self._rx.get()

    async def send(self, frame: bytes, addr: Address = None) -> None:
        if self._transport is None:
            raise TransportLost(f"{self.name} is not open")
        if self.mode == "server":
            if addr is None:
                return  # nobody to send to yet: the endpoint's pending queue keeps acked messages
            self._transport.sendto(frame, addr)
        else:
            self._transport.sendto(frame)

    async def close(self) -> None:
        if self._transport is not None:
            self._transport.close()
            self._transport = None
            # The socket is released on the next loop turn; a restart on the same port needs it gone.
            await asyncio.sleep(0)
