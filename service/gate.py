"""`Gate`: what guards a server's routes, built once from its config: the keys (`--keys`,
None: open reads), the per-principal rate limit, the audit log, and the refusal counters."""

from __future__ import annotations

from dataclasses import dataclass

from common.keys.keystore import KeyStore

from .audit import AuditLog
from .metrics import Metrics
from .ratelimit import TokenBuckets


@dataclass
class Gate:
    metrics: Metrics
    keys: KeyStore | None = None
    buckets: TokenBuckets | None = None
    audit: AuditLog | None = None

    def refused(self, principal, method: str, route: str, index: str | None, status: int,
                reason: str, documents: list[str] | None = None) -> None:
        """Count a refused request by `reason` and write its audit line."""
        self.metrics.access_refused.labels(reason).inc()
        if self.audit is not None:
            self.audit.record(principal=getattr(principal, "name", principal), method=method,
                              route=route, index=index, documents=documents, status=status,
                              outcome="refused", reason=reason)

    def wrote(self, principal, method: str, route: str, index: str, documents: list[str],
              status: int, reason: str | None = None) -> None:
        """Write the audit line of a document write (`status` 200: done)."""
        if self.audit is not None:
            self.audit.record(principal=getattr(principal, "name", principal), method=method,
                              route=route, index=index, documents=documents, status=status,
                              outcome="written" if status < 400 else "failed", reason=reason)

    def close(self) -> None:
        if self.audit is not None:
            self.audit.close()
