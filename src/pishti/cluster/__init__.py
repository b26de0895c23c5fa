"""Several table server processes on one PostgreSQL behind HAProxy (docs/deploy.md).

``postgres``: a throwaway PostgreSQL server (Debian's package) for a local cluster
and the tests; ``haproxy``: the load balancer's configuration; ``local``: the
whole local cluster that ``pishti cluster`` starts.
"""
