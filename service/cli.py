"""`python -m service [--host 127.0.0.1] [--port 8000] [--index-root indexes]
[--keys keys.toml | --api-key-file FILE] [--audit-log FILE] [--rate-limit N/s] [--batching]
[--max-concurrent-requests N] [--idle-timeout S] [--request-timeout S]`: serve every index
under the root over HTTP. `python -m service keys add|remove|list ...`: the keys file
(service/keys_cli.py)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from common.argtypes import host, integer, number
from common.cli_parser import Parser
from common.keys.keyfile import KeysFileError, read_keys

from .audit import AuditLog, AuditLogError
from .config import MAX_WAIT_MS, MIN_TIMEOUT_S, ServiceConfig
from .ratelimit import parse_rate

AUDIT_DEFAULT = ".audit.jsonl"  # under the index root, with --keys or --api-key-file


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="python -m service", description=__doc__.split(":")[1].split("`")[0],
               epilog="keys: `python -m service keys add NAME --keys keys.toml --groups g1,g2 "
               "--scope 'team-a*:read'` prints a new key; `keys remove NAME` revokes NAME's "
               "keys (docs/SECURITY.md)")
    p.add_argument("--host", type=host, default="127.0.0.1", help="address to listen on (default "
                   "127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--index-root", type=Path, default=Path("indexes"),
                   help="folder whose sub-folders are the indexes served (default indexes)")
    p.add_argument("--keys", type=Path, metavar="FILE", help="a TOML or YAML file of "
                   "principals (keys as salted hashes, groups, per-index scopes read / write / "
                   "admin): then every route but /health, /ready and the docs needs "
                   "'Authorization: Bearer KEY', and each sees only its scopes; re-read when it "
                   "changes. Without it reads are open to anyone who reaches the port")
    p.add_argument("--api-key-file", type=Path, help="a file holding the one key that "
                   "document writes must send as 'Authorization: Bearer KEY' (without it and "
                   "--keys: writes off); not with --keys")
    p.add_argument("--audit-log", metavar="FILE", help="JSONL of every write and refused "
                   f"request (default INDEX_ROOT/{AUDIT_DEFAULT} with --keys or --api-key-file, "
                   "else off; 'off': none)")
    p.add_argument("--audit-max-bytes", type=integer(1024), default=100 * 1024 * 1024,
                   help="the audit log's size before it is renamed .1 (.1 to .2, five kept; "
                   "default 100 MiB)")
    p.add_argument("--rate-limit", type=parse_rate, metavar="N/s", help="requests a second "
                   "each principal may send (token bucket, bursts of N; past it a 429 with "
                   "Retry-After); with --keys; default none")
    p.add_argument("--batching", action="store_true", help="batch concurrent encodings into "
                   "one call: on an int8 model about 2x the requests/s at 32 clients, a "
                   "millisecond more for a lone request (off by default; docs/API.md)")
    p.add_argument("--batch-wait-ms", type=number(0, maximum=MAX_WAIT_MS), default=2.0,
                   help="how long a batch waits for more requests (default 2 ms; at most "
                   f"{MAX_WAIT_MS:g})")
    p.add_argument("--max-batch", type=int, default=64, help="texts in one batch (default 64)")
    p.add_argument("--faiss-threads", type=int, default=1, help="OpenMP threads of FAISS for a "
                   "batch of more than 8 queries; fewer always run on one (default 1: requests "
                   "run side by side; measured on bbc-news, a "
                   "flat search of one query took 0.19 ms on 1 thread, 19.7 ms on 2 on a busy "
                   "2-core machine)")
    p.add_argument("--workers", type=int, default=1, help="server processes (each loads its "
                   "own encoders; every one sees each write at its next request)")
    p.add_argument("--max-concurrent-requests", type=int, default=256, help="requests "
                   "answered at once (default 256; 0: no bound); past it a JSON 429 with "
                   "Retry-After, while /health, /ready and /metrics still answer")
    p.add_argument("--idle-timeout", type=number(MIN_TIMEOUT_S), default=5.0, help="seconds a "
                   "connection may send nothing, new or between requests, before it is closed "
                   f"(default 5; at least {MIN_TIMEOUT_S:g})")
    p.add_argument("--request-timeout", type=number(MIN_TIMEOUT_S), default=30.0,
                   help="seconds from a "
                   "request's first byte until its headers and body have all arrived; past "
                   "it a 408 and the connection closed (default 30)")
    p.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    return p.parse_args(argv)


def read_key(path: Path) -> str:
    try:
        key = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise SystemExit(f"error: --api-key-file {path}: {exc}") from exc
    if len(key) < 16 or any(c.isspace() for c in key):
        raise SystemExit(f"error: --api-key-file {path}: the key must be one line of at least "
                         "16 characters without spaces")
    return key


def audit_path(args: argparse.Namespace) -> Path | None:
    if args.audit_log == "off":
        return None
    if args.audit_log:
        return Path(args.audit_log)
    if args.keys or args.api_key_file:
        args.index_root.mkdir(parents=True, exist_ok=True)  # checked: not a file
        return args.index_root / AUDIT_DEFAULT
    return None


def startup_line(config: ServiceConfig) -> str:
    """What this server lets through, said once at start."""
    if config.keys_file is None:
        said = ("no --keys: reads are open to anyone who can reach the port; "
                + ("document writes need the key in --api-key-file" if config.api_key
                   else "document writes are off"))
    else:
        said = (f"--keys {config.keys_file}: every route but /health, /ready and the docs "
                "needs a Bearer key, each principal its scopes"
                + (f", at most {config.rate_limit:g} requests a second each"
                   if config.rate_limit else ""))
    audit = f"; audit log {config.audit_log}" if config.audit_log else "; no audit log"
    return f"bertscope service: {said}{audit}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["keys"]:
        from .keys_cli import main as keys_main

        return keys_main(argv[1:])
    args = parse(argv)
    if not 0 <= args.port <= 65535:
        raise SystemExit(f"error: --port {args.port} is not a port (0-65535)")
    if args.max_batch < 1:
        raise SystemExit(f"error: --max-batch must be >= 1, got {args.max_batch}")
    if args.index_root.exists() and not args.index_root.is_dir():
        raise SystemExit(f"error: --index-root {args.index_root} is a file, not a folder: give "
                         "the folder whose sub-folders are the indexes (default indexes)")
    if not args.index_root.is_dir():
        print(f"warning: --index-root {args.index_root} does not exist yet; no index is served "
              "until one is built there", file=sys.stderr)
    if args.workers < 1 or args.faiss_threads < 1:
        raise SystemExit("error: --workers and --faiss-threads must be >= 1")
    if args.max_concurrent_requests < 0:
        raise SystemExit("error: --max-concurrent-requests must be >= 0 (0: no bound)")
    if args.keys and args.api_key_file:
        raise SystemExit("error: --keys and --api-key-file exclude each other: --api-key-file "
                         "is the one-writer shorthand; with --keys, give the writer a 'write' "
                         "scope (python -m service keys add NAME --scope 'INDEX:write')")
    if args.rate_limit and not args.keys:
        raise SystemExit("error: --rate-limit is per principal and needs --keys (the global "
                         "bound is --max-concurrent-requests)")
    audit = audit_path(args)
    settings = {"index_root": str(args.index_root), "batching": args.batching,
                "max_batch_texts": args.max_batch, "max_wait_ms": args.batch_wait_ms,
                "api_key_file": str(args.api_key_file) if args.api_key_file else None,
                "log_level": args.log_level, "faiss_threads": args.faiss_threads,
                "max_concurrent_requests": args.max_concurrent_requests or None,
                "idle_timeout_s": args.idle_timeout, "request_timeout_s": args.request_timeout,
                "keys": str(args.keys) if args.keys else None,
                "audit_log": str(audit) if audit else None,
                "audit_max_bytes": args.audit_max_bytes, "rate_limit": args.rate_limit}
    config = config_from(settings)  # a bad key file fails here, before any worker starts
    print(startup_line(config), file=sys.stderr, flush=True)
    from .server import serve, uvicorn_config

    options = {"host": args.host, "port": args.port, "log_level": args.log_level}
    if args.workers == 1:
        from .app import create_app

        process_setup(settings)
        serve(uvicorn_config(create_app(config), config, **options))
    else:  # each worker process builds its app from the settings (uvicorn imports a factory)
        os.environ[SETTINGS] = json.dumps(settings)
        serve(uvicorn_config("service.cli:app_from_env", config, factory=True,
                             workers=args.workers, **options))
    return 0


SETTINGS = "BERTSCOPE_SERVICE_SETTINGS"


def check_access_files(keys: Path | None, audit: Path | None) -> None:
    """A keys file or audit log that cannot be used: one error line naming the flag."""
    if keys is not None:
        try:
            read_keys(keys)
        except KeysFileError as exc:
            raise SystemExit(f"error: --keys {exc}") from None
    if audit is not None:
        try:
            AuditLog(audit).close()
        except AuditLogError as exc:
            raise SystemExit(f"error: --audit-log {exc}; give another path, or --audit-log "
                             "off") from None


def config_from(settings: dict) -> ServiceConfig:
    key_file = settings["api_key_file"]
    keys, audit = settings.get("keys"), settings.get("audit_log")
    check_access_files(Path(keys) if keys else None, Path(audit) if audit else None)
    return ServiceConfig(index_root=Path(settings["index_root"]),
                         keys_file=Path(keys) if keys else None,
                         audit_log=Path(audit) if audit else None,
                         audit_max_bytes=settings.get("audit_max_bytes", 100 * 1024 * 1024),
                         rate_limit=settings.get("rate_limit"),
                         api_key=read_key(Path(key_file)) if key_file else None,
                         batching=settings["batching"],
                         max_batch_texts=settings["max_batch_texts"],
                         max_wait_ms=settings["max_wait_ms"],
                         faiss_threads=settings["faiss_threads"],
                         max_concurrent_requests=settings["max_concurrent_requests"],
                         idle_timeout_s=settings["idle_timeout_s"],
                         request_timeout_s=settings["request_timeout_s"])


def process_setup(settings: dict) -> None:
    """What one server process sets for itself: logging (FAISS's threads are set per request:
    OpenMP keeps the count per thread, and requests run on the server's worker threads)."""
    logging.basicConfig(level=settings["log_level"].upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def app_from_env():
    """A worker's app (`--workers N`), from the settings the parent put in the environment."""
    from .app import create_app

    settings = json.loads(os.environ[SETTINGS])
    process_setup(settings)
    return create_app(config_from(settings))
