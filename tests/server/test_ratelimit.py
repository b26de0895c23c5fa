"""Rate limits: the token bucket and the per-address limiter of table creation and joins."""

from __future__ import annotations

import pytest

from pishti.server.ratelimit import AddressLimiter, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_bucket_gives_its_burst_then_one_token_per_refill() -> None:
    bucket = TokenBucket(rate=2.0, burst=3.0, now=0.0)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.wait() == pytest.approx(0.5)
    assert not bucket.take(0.25)
    assert bucket.take(0.5)
    assert bucket.take(10.0) and bucket.take(10.0) and bucket.take(10.0)
    assert not bucket.take(10.0)  # never more than the burst saved up


def test_each_address_has_its_own_bucket() -> None:
    clock = Clock()
    limiter = AddressLimiter(rate=0.5, burst=2, now=clock)
    assert [limiter.check("10.0.0.1") for _ in range(3)] == [0.0, 0.0, 2.0]
    assert limiter.check("10.0.0.2") == 0.0
    clock.t += 1.0
    assert limiter.check("10.0.0.1") == pytest.approx(1.0)  # half a token back
    clock.t += 1.0
    assert limiter.check("10.0.0.1") == 0.0


def test_full_buckets_are_dropped_when_there_are_too_many() -> None:
    clock = Clock()
    limiter = AddressLimiter(rate=1.0, burst=2, now=clock, max_addresses=3)
    for address in ("a", "b", "c"):
        limiter.check(address)
    limiter.check("c")
    limiter.check("c")  # c is empty, a and b hold one token each
    clock.t += 1.0  # a and b are full again, c holds one token
    assert limiter.check("d") == 0.0
    assert sorted(limiter.buckets) == ["c", "d"]
    assert limiter.check("c") == 0.0 and limiter.check("c") > 0  # c kept its count


@pytest.mark.parametrize(("rate", "burst"), [(0.0, 5), (-1.0, 5), (1.0, 0.5)])
def test_a_limiter_needs_a_rate_and_a_burst(rate: float, burst: float) -> None:
    with pytest.raises(ValueError, match="rate above 0"):
        AddressLimiter(rate=rate, burst=burst, now=Clock())
