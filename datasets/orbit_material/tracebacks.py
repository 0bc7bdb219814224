"""Python tracebacks reporters paste, per failure scenario.

A scenario is a list of chained segments; each segment is frames plus the exception line. Frame
paths: `orbit/...` and other package paths live under the reporter's site-packages, `@/x.py` is the
standard library, absolute paths are the reporter's own code. Line numbers are derived from the
file, function, source line and Orbit minor version, so one version always shows the same line for a frame.
"""

from __future__ import annotations

import hashlib

Frame = tuple[str, str, str]
Segment = tuple[tuple[Frame, ...], str]

CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"

_RUNNER = ("orbit/worker/runner.py", "_run_one", "result = self._invoke(job, handler)")
_INVOKE = ("orbit/worker/runner.py", "_invoke", "return handler(*job.args, **job.kwargs)")
_ENQUEUE = ("orbit/job.py", "enqueue", "payload = self.app.codec.encode(self.name, args, kwargs)")

SCENARIOS: dict[str, tuple[Segment, ...]] = {
    "lease_expired": (
        (
            (
                ("orbit/worker/runner.py", "_run_one", "self._ack(job, result)"),
                ("orbit/worker/runner.py", "_ack", "self.leases.release(job.id, token=job.lease_token)"),
                (
                    "orbit/worker/lease.py",
                    "release",
                    "raise LeaseExpired(job.id, held_for=held, lease_seconds=self.lease_seconds)",
                ),
            ),
            "orbit.errors.LeaseExpired: ORB-1101 lease on job {job} expired after "
            "{secs}s without a heartbeat; job was re-queued",
        ),
    ),
    "lease_stolen": (
        (
            (
                ("orbit/worker/runner.py", "_run_one", "self._ack(job, result)"),
                ("orbit/worker/runner.py", "_ack", "self.leases.release(job.id, token=job.lease_token)"),
                ("orbit/worker/lease.py", "release", "raise LeaseStolen(job.id, owner=current_owner)"),
            ),
            "orbit.errors.LeaseStolen: ORB-1102 job {job} is now leased by {host}; discarding this result",
        ),
    ),
    "heartbeat_failed": (
        (
            (
                (
                    "orbit/worker/heartbeat.py",
                    "_beat",
                    "self.broker.touch_lease(job_id, token, ttl=self.lease_seconds)",
                ),
                ("orbit/broker/redis.py", "touch_lease", "return self._client.pexpire(key, ttl_ms, xx=True)"),
                ("redis/client.py", "execute_command", "return conn.retry.call_with_retry("),
                ("redis/connection.py", "read_response", 'raise TimeoutError(f"Timeout reading from {host_error}")'),
            ),
            "redis.exceptions.TimeoutError: Timeout reading from orbit-redis.internal:6379",
        ),
        (
            (
                ("orbit/worker/heartbeat.py", "run", "self._beat(job_id, token)"),
                ("orbit/worker/heartbeat.py", "_beat", "raise HeartbeatFailed(job_id) from exc"),
            ),
            "orbit.errors.HeartbeatFailed: ORB-1103 heartbeat for job {job} could not be written to the broker",
        ),
    ),
    "broker_lost": (
        (
            (
                ("orbit/broker/redis.py", "fetch", "reply = self._client.blmove(src, dst, timeout=self.poll_seconds)"),
                ("redis/commands/core.py", "blmove", 'return self.execute_command("BLMOVE", *params)'),
                ("redis/client.py", "execute_command", "return conn.retry.call_with_retry("),
                (
                    "redis/connection.py",
                    "read_response",
                    "response = self._parser.read_response(disable_decoding=disable_decoding)",
                ),
                ("redis/_parsers/resp2.py", "read_response", "raise ConnectionError(SERVER_CLOSED_CONNECTION_ERROR)"),
            ),
            "redis.exceptions.ConnectionError: Connection closed by server.",
        ),
        (
            (
                ("orbit/worker/loop.py", "run", "job = self.broker.fetch(self.queues)"),
                ("orbit/broker/redis.py", "fetch", "raise BrokerConnectionLost(self.safe_url) from exc"),
            ),
            "orbit.errors.BrokerConnectionLost: ORB-1402 lost connection to "
            "redis://orbit-redis.internal:6379/0; reconnecting",
        ),
    ),
    "broker_unavailable": (
        (
            (("@/socket.py", "create_connection", "sock.connect(sa)"),),
            "ConnectionRefusedError: [Errno 111] Connection refused",
        ),
        (
            (
                ("orbit/cli/worker.py", "main", "app.broker.connect()"),
                ("orbit/broker/redis.py", "connect", "raise BrokerUnavailable(self.safe_url) from exc"),
            ),
            "orbit.errors.BrokerUnavailable: ORB-1401 cannot connect to redis://localhost:6379/0",
        ),
    ),
    "payload_too_large": (
        (
            (
                (
                    "/srv/app/billing/views.py",
                    "send_statement",
                    "render_statement.enqueue(account_id=acct.id, pdf=pdf_bytes)",
                ),
                _ENQUEUE,
                ("orbit/payload/codec.py", "encode", "limits.check_size(name, data, self.max_payload_kb)"),
                (
                    "orbit/payload/limits.py",
                    "check_size",
                    "raise PayloadTooLarge(name, size_kb=size_kb, limit_kb=limit_kb)",
                ),
            ),
            "orbit.errors.PayloadTooLarge: ORB-1501 serialized payload is {kb} KB, "
            "max_payload_kb is 256 (job=billing.jobs.render_statement, serializer=json)",
        ),
    ),
    "serialize_datetime": (
        (
            (
                (
                    "/srv/app/reports/jobs.py",
                    "schedule_digest",
                    "build_digest.enqueue(user_id=user.pk, since=last_sent)",
                ),
                _ENQUEUE,
                ("orbit/payload/codec.py", "encode", "return self._serializer.dumps(envelope)"),
                ("orbit/payload/serializers.py", "dumps", 'return json.dumps(obj, separators=(",", ":")).encode()'),
                ("@/json/encoder.py", "default", "raise TypeError(f'Object of type {o.__class__.__name__} '"),
            ),
            "TypeError: Object of type datetime is not JSON serializable",
        ),
        (
            (("orbit/payload/codec.py", "encode", "raise SerializationError(name, self.serializer_name) from exc"),),
            "orbit.errors.SerializationError: ORB-1502 arguments of 'build_digest' cannot be serialized with 'json'",
        ),
    ),
    "serialize_decimal": (
        (
            (
                ("/opt/shop/orders/tasks.py", "finalize", "charge_card.enqueue(order_id=order.id, amount=order.total)"),
                _ENQUEUE,
                ("orbit/payload/codec.py", "encode", "return self._serializer.dumps(envelope)"),
                ("orbit/payload/serializers.py", "dumps", "return msgpack.packb(obj, use_bin_type=True)"),
                ("msgpack/__init__.py", "packb", "return Packer(**kwargs).pack(o)"),
                (
                    "msgpack/_packer.pyx",
                    "msgpack._cmsgpack.Packer._pack",
                    'raise TypeError(f"can not serialize {type(o).__name__!r} object")',
                ),
            ),
            "TypeError: can not serialize 'Decimal' object",
        ),
        (
            (("orbit/payload/codec.py", "encode", "raise SerializationError(name, self.serializer_name) from exc"),),
            "orbit.errors.SerializationError: ORB-1502 arguments of 'charge_card' cannot be serialized with 'msgpack'",
        ),
    ),
    "unknown_job": (
        (
            (
                ("orbit/worker/loop.py", "run", "self._dispatch(job)"),
                ("orbit/worker/loop.py", "_dispatch", "handler = self.app.registry.resolve(job.name)"),
                ("orbit/registry.py", "resolve", "raise UnknownJob(name, known=sorted(self._jobs))"),
            ),
            "orbit.errors.UnknownJob: ORB-1503 no job named 'notifications.send_push' is registered in app 'mobile'",
        ),
    ),
    "oidc_state": (
        (
            (
                ("waitress/channel.py", "service", "task.service()"),
                ("orbit/dashboard/app.py", "__call__", "return self._route(environ, start_response)"),
                ("orbit/dashboard/oidc.py", "callback", "self._check_state(request)"),
                ("orbit/dashboard/oidc.py", "_check_state", 'raise OIDCLoginFailed("state mismatch", detail=detail)'),
            ),
            "orbit.errors.OIDCLoginFailed: ORB-1601 OIDC login failed: state "
            "mismatch (no orbit_oidc_state cookie on callback)",
        ),
    ),
    "oidc_redirect": (
        (
            (
                ("orbit/dashboard/oidc.py", "callback", 'tokens = self._exchange_code(request.args["code"])'),
                (
                    "orbit/dashboard/oidc.py",
                    "_exchange_code",
                    'raise OIDCLoginFailed("token endpoint rejected the code", detail=body)',
                ),
            ),
            "orbit.errors.OIDCLoginFailed: ORB-1601 OIDC login failed: token endpoint rejected the code "
            '({{"error":"invalid_grant","error_description":"redirect_uri mismatch"}})',
        ),
    ),
    "oidc_iat": (
        (
            (
                ("orbit/dashboard/oidc.py", "callback", 'claims = self._validate_id_token(tokens["id_token"])'),
                ("orbit/dashboard/oidc.py", "_validate_id_token", "self._check_times(claims, now=time.time())"),
                (
                    "orbit/dashboard/oidc.py",
                    "_check_times",
                    'raise OIDCLoginFailed("token issued in the future", detail=f"iat={iat} now={now:.0f}")',
                ),
            ),
            "orbit.errors.OIDCLoginFailed: ORB-1601 OIDC login failed: token "
            "issued in the future (iat is {secs}s ahead)",
        ),
    ),
    "oidc_discovery_tls": (
        (
            (
                ("orbit/dashboard/oidc.py", "discover", "resp = self._http.get(url, timeout=10)"),
                ("urllib3/connectionpool.py", "urlopen", "response = self._make_request("),
                ("urllib3/connection.py", "connect", "self.sock = sock = ssl_wrap_socket("),
                ("@/ssl.py", "do_handshake", "self._sslobj.do_handshake()"),
            ),
            "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
            "unable to get local issuer certificate (_ssl.c:1006)",
        ),
        (
            (
                ("orbit/dashboard/app.py", "__call__", "return self._route(environ, start_response)"),
                ("orbit/dashboard/oidc.py", "login", "meta = self.discover()"),
                ("orbit/dashboard/oidc.py", "discover", "raise OIDCDiscoveryFailed(url) from exc"),
            ),
            "orbit.errors.OIDCDiscoveryFailed: ORB-1602 cannot fetch https://sso.corp.internal/realms/ops/.well-known/openid-configuration",
        ),
    ),
    "zoneinfo": (
        (
            (
                (
                    "@/zoneinfo/_common.py",
                    "load_tzdata",
                    'raise ZoneInfoNotFoundError(f"No time zone found with key {key}")',
                ),
            ),
            "zoneinfo._common.ZoneInfoNotFoundError: 'No time zone found with key Europe/Berlin'",
        ),
        (
            (
                ("orbit/cli/worker.py", "main", "scheduler = Scheduler.from_settings(app, settings.scheduler)"),
                ("orbit/scheduler/cron.py", "from_settings", "tz = tzinfo_for(settings.timezone)"),
                ("orbit/scheduler/tz.py", "tzinfo_for", 'raise ConfigInvalid("scheduler.timezone", name) from exc'),
            ),
            "orbit.errors.ConfigInvalid: ORB-1801 scheduler.timezone: unknown "
            "time zone 'Europe/Berlin' (is tzdata installed?)",
        ),
    ),
    "config_unknown_key": (
        (
            (
                ("orbit/cli/main.py", "main", "settings = load_settings(args.config)"),
                ("orbit/config/loader.py", "load_settings", "_reject_unknown(section, table)"),
                ("orbit/config/loader.py", "_reject_unknown", 'raise UnknownConfigKey(f"{section}.{key}", hint=hint)'),
            ),
            "orbit.errors.UnknownConfigKey: ORB-1802 unknown key "
            "'broker.broker_url' in orbit.toml (renamed to broker.url in 3.0)",
        ),
    ),
    "config_invalid_backoff": (
        (
            (
                ("orbit/cli/main.py", "main", "settings = load_settings(args.config)"),
                ("orbit/config/loader.py", "load_settings", "return Settings.model_validate(raw)"),
                ("orbit/config/loader.py", "_coerce_enum", "raise ConfigInvalid(path, value, allowed=allowed)"),
            ),
            "orbit.errors.ConfigInvalid: ORB-1801 retries.backoff = 'exp' is "
            "not one of 'fixed', 'linear', 'exponential'",
        ),
    ),
    "pg_lock": (
        (
            (
                ("orbit/broker/postgres.py", "fetch", "cur.execute(CLAIM_SQL, (queue, self.batch))"),
                ("psycopg/cursor.py", "execute", "raise ex.with_traceback(None)"),
            ),
            "psycopg.errors.LockNotAvailable: canceling statement due to lock timeout",
        ),
        (
            (
                ("orbit/worker/loop.py", "run", "job = self.broker.fetch(self.queues)"),
                (
                    "orbit/broker/postgres.py",
                    "fetch",
                    "raise PostgresLockTimeout(queue, waited=self.lock_timeout) from exc",
                ),
            ),
            "orbit.errors.PostgresLockTimeout: ORB-1403 could not lock a row "
            "in orbit_jobs for queue 'default' within 5.0s",
        ),
    ),
    "windows_fork": (
        (
            (
                ("orbit/cli/worker.py", "main", "pool = ChildPool(app, settings.worker)"),
                ("orbit/worker/pool.py", "__init__", 'self._ctx = multiprocessing.get_context("fork")'),
                ("@/multiprocessing/context.py", "get_context", "return super().get_context(method)"),
                (
                    "@/multiprocessing/context.py",
                    "get_context",
                    "raise ValueError('cannot find context for %r' % method) from None",
                ),
            ),
            "ValueError: cannot find context for 'fork'",
        ),
    ),
    "retries_exhausted": (
        (
            (
                _RUNNER,
                _INVOKE,
                ("/app/integrations/crm_sync.py", "push_contact", "resp.raise_for_status()"),
                ("requests/models.py", "raise_for_status", "raise HTTPError(http_error_msg, response=self)"),
            ),
            "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url: https://api.crm.example/v2/contacts",
        ),
    ),
}


def _line(path: str, func: str, code: str, version: str) -> int:
    digest = hashlib.sha256(f"{path}:{func}:{code}:{version[:3]}".encode()).digest()
    return 24 + int.from_bytes(digest[:2], "big") % 560


def render(name: str, site: str, pyver: str, version: str, fill: dict[str, str]) -> str:
    """The scenario `name` as Python prints it, for a reporter with this site-packages and versions."""
    short = ".".join(pyver.split(".")[:2])
    windows = site.startswith("C:")
    stdlib = f"C:/Program Files/Python{short.replace('.', '')}/Lib" if windows else f"/usr/local/lib/python{short}"
    parts = []
    for frames, exc in SCENARIOS[name]:
        lines = ["Traceback (most recent call last):"]
        for path, func, code in frames:
            if path.startswith("@/"):
                full = stdlib + path[1:]
            elif path.startswith("/"):
                full = path
            else:
                full = f"{site}/{path}"
            if windows:
                full = full.replace("/", "\\")
            lines.append(f'  File "{full}", line {_line(path, func, code, version)}, in {func}')
            lines.append(f"    {code}")
        lines.append(exc.replace("{{", "{").replace("}}", "}"))
        parts.append("\n".join(lines))
    text = CAUSE.join(parts)
    for key, value in fill.items():
        text = text.replace("{" + key + "}", value)
    return text
