"""Rate limits: a token bucket, and one bucket per client address.

Every table a person creates and every seat taken is committed to the
database, so one client could otherwise fill it at will.  The hub limits the
messages of each WebSocket with a :class:`TokenBucket`; the HTTP routes that
create a table or take a seat share an :class:`AddressLimiter`.
"""

from __future__ import annotations

from collections.abc import Callable


class TokenBucket:
    """A token bucket: ``rate`` tokens a second, at most ``burst`` saved up."""

    __slots__ = ("burst", "last", "rate", "tokens")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        """Start full at time ``now`` (seconds)."""
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now

    def take(self, now: float) -> bool:
        """Take one token at time ``now``; False when the bucket is empty."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next token, as of the last :meth:`take` (0 if there is one)."""
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate


class AddressLimiter:
    """One :class:`TokenBucket` per client address.

    Args:
        rate: requests a second each address may make (above 0).
        burst: requests an address may make at once (at least 1).
        now: the clock, in seconds.
        max_addresses: buckets kept; beyond that, the full ones are dropped.

    Raises:
        ValueError: ``rate`` is not above 0 or ``burst`` is below 1.
    """

    def __init__(
        self,
        rate: float,
        burst: float,
        now: Callable[[], float],
        max_addresses: int = 10_000,
    ) -> None:
        if rate <= 0 or burst < 1:
            raise ValueError("a rate limit needs a rate above 0 and a burst of at least 1")
        self.rate = rate
        self.burst = burst
        self.now = now
        self.max_addresses = max_addresses
        self.buckets: dict[str, TokenBucket] = {}

    def check(self, address: str) -> float:
        """Count one request from ``address``; 0.0 if it is allowed, else the seconds
        to wait before the next one will be."""
        now = self.now()
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.max_addresses:
                self._prune(now)
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, now)
        if bucket.take(now):
            return 0.0
        return bucket.wait()

    def _prune(self, now: float) -> None:
        """Drop the buckets that have filled up again (their addresses lose nothing)."""
        full = [
            address
            for address, bucket in self.buckets.items()
            if bucket.tokens + (now - bucket.last) * bucket.rate >= bucket.burst
        ]
        for address in full:
            del self.buckets[address]
