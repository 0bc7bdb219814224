"""The console's settings (issue 30): who may sign in to `/console/` on `atlas serve`, and how.

Off unless a way in is configured: `ATLAS_CONSOLE_TOKEN` (a login form, or `Authorization: Bearer`)
and/or Sign in with Slack (`ATLAS_CONSOLE_SLACK_CLIENT_ID` and `ATLAS_CONSOLE_SLACK_CLIENT_SECRET`, the
Slack app's OAuth credentials; `ATLAS_CONSOLE_URL` is the console's public address, whose
`.../console/signin/slack/callback` is the redirect URL registered with the app). Slack sign-in admits
the approvers (ATLAS_APPROVERS, ATLAS_APPROVER_GROUP, else the workspace's admins and owners) and the
members of `ATLAS_CONSOLE_GROUP`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from atlas.errors import ConfigError

MIN_TOKEN = 16


@dataclass(frozen=True)
class ConsoleSettings:
    """Ways into the console; none set: `/console/` is not served."""

    token: str | None = field(default=None, repr=False)  # ATLAS_CONSOLE_TOKEN
    group: str | None = None  # ATLAS_CONSOLE_GROUP: a Slack user group whose members may sign in
    slack_client_id: str | None = None  # ATLAS_CONSOLE_SLACK_CLIENT_ID
    slack_client_secret: str | None = field(default=None, repr=False)  # ATLAS_CONSOLE_SLACK_CLIENT_SECRET
    public_url: str | None = None  # ATLAS_CONSOLE_URL: e.g. https://atlas.example.org/console/
    session_hours: float = 12.0  # ATLAS_CONSOLE_SESSION_HOURS
    recheck_minutes: float = 5.0  # ATLAS_CONSOLE_RECHECK_MINUTES: a Slack session's right is asked again this often

    @property
    def slack_signin(self) -> bool:
        return bool(self.slack_client_id and self.slack_client_secret)

    @property
    def enabled(self) -> bool:
        return bool(self.token) or self.slack_signin

    @property
    def secure_cookie(self) -> bool:
        """The session cookie is `Secure` when the console is served over https (as it must be on the internet)."""
        return (self.public_url or "").startswith("https://")


def console_from_env(get: Callable[[str], str | None], number: Callable[[str, float], float]) -> ConsoleSettings:
    """Read and check the console's variables (a clear error naming the variable)."""
    token = get("ATLAS_CONSOLE_TOKEN")
    if token is not None and (len(token) < MIN_TOKEN or not token.isascii() or any(c.isspace() for c in token)):
        raise ConfigError(
            f"ATLAS_CONSOLE_TOKEN must be at least {MIN_TOKEN} ASCII characters without spaces, "
            f"got {len(token)} characters"
        )
    client_id, secret = get("ATLAS_CONSOLE_SLACK_CLIENT_ID"), get("ATLAS_CONSOLE_SLACK_CLIENT_SECRET")
    if bool(client_id) != bool(secret):
        raise ConfigError(
            "Sign in with Slack needs both ATLAS_CONSOLE_SLACK_CLIENT_ID and ATLAS_CONSOLE_SLACK_CLIENT_SECRET "
            "(the Slack app's Client ID and Client Secret, under Basic Information)"
        )
    url = get("ATLAS_CONSOLE_URL")
    if url is not None and not url.startswith(("http://", "https://")):
        raise ConfigError(f"ATLAS_CONSOLE_URL must be the console's address, http(s)://host/console/, got {url!r}")
    if client_id and url is None:
        raise ConfigError(
            "Sign in with Slack needs ATLAS_CONSOLE_URL (the console's public address, "
            "e.g. https://atlas.example.org/console/): Slack redirects back to it"
        )
    hours = number("ATLAS_CONSOLE_SESSION_HOURS", 12.0)
    if hours <= 0:
        raise ConfigError(f"ATLAS_CONSOLE_SESSION_HOURS must be above 0, got {hours}")
    recheck = number("ATLAS_CONSOLE_RECHECK_MINUTES", 5.0)
    if recheck <= 0:
        raise ConfigError(f"ATLAS_CONSOLE_RECHECK_MINUTES must be above 0, got {recheck}")
    return ConsoleSettings(
        token=token,
        recheck_minutes=recheck,
        group=get("ATLAS_CONSOLE_GROUP"),
        slack_client_id=client_id,
        slack_client_secret=secret,
        public_url=url and (url if url.endswith("/") else url + "/"),
        session_hours=hours,
    )
