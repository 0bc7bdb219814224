"""Dashboard OIDC issues: reverse proxies, clock skew, Keycloak/Okta/Azure AD, private issuers."""

from __future__ import annotations

from .model import issue

S = "oidc"
C = "dashboard-oidc"

SPECS = [
    issue(
        "oidc-proxy-https",
        "bug",
        "Dashboard login fails behind nginx: ORB-1601 redirect_uri mismatch (http vs https)",
        """
        Dashboard runs behind nginx which terminates TLS at `https://orbit.ops.example.com`. Login goes to
        Keycloak fine, but coming back we get a 400 and the dashboard logs:

        ```
        WARNING orbit.dashboard ORB-1601 OIDCLoginFailed reason=token_exchange redirect_url=http://orbit.ops.example.com/auth/callback
        ```

        ```
        {{tb:oidc_redirect}}
        ```

        Keycloak has `https://orbit.ops.example.com/auth/callback` as the valid redirect URI. Where does the
        `http://` come from? nginx sets `X-Forwarded-Proto`.
        """,
        comp=C,
        version="3.0.1",
        story=S,
        state="closed",
        when=("2025-05-05", "2025-06-10"),
        comments=[
            (
                "m",
                """
             When `oidc_redirect_url` is empty the dashboard builds the callback from the request it sees,
             which is plain http from nginx. It deliberately doesn't trust `X-Forwarded-*` headers. Set the
             external URL explicitly:

             ```toml
             [dashboard]
             oidc_redirect_url = "https://orbit.ops.example.com/auth/callback"
             ```""",
            ),
            ("r", "That fixed it. Might be worth making the key required when the issuer is set?"),
            (
                "m",
                "Agreed; from 3.1 the dashboard will log a warning at startup when "
                "`oidc_issuer` is set and `oidc_redirect_url` is empty.",
            ),
        ],
    ),
    issue(
        "oidc-skew",
        "bug",
        "ORB-1601 'token issued in the future' on one dashboard host only",
        """
        Two dashboard replicas behind a load balancer. Logins through replica B fail roughly half the time:

        ```
        {{tb:oidc_iat}}
        ```

        Replica A is fine. Both run the same image and config (Okta).
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-06-20", "2025-08-10"),
        comments=[
            (
                "m",
                """
             "issued in the future" means the host's clock is behind the IdP's by more than
             `allowed_clock_skew_seconds` (default 30). Check NTP on replica B (`chronyc tracking` or
             `timedatectl`). `orbit doctor` also shows clock skew against the broker, which is a quick proxy.""",
            ),
            ("r", "chrony was disabled on B after a base-image change, it was 47s behind. Thanks!"),
            (
                "u",
                "Raising `allowed_clock_skew_seconds` to 60 is a reasonable "
                "stopgap too, for anyone finding this later.",
            ),
        ],
    ),
    issue(
        "oidc-keycloak-loop",
        "bug",
        "Keycloak login loops back to the dashboard login page (state mismatch)",
        """
        After authenticating in Keycloak we're redirected to `/auth/callback` and then straight back to
        Keycloak, forever. Dashboard log:

        ```
        {{tb:oidc_state}}
        ```

        The dashboard is served under a sub-path `/orbit/` by Traefik (StripPrefix middleware), and
        `oidc_redirect_url = "https://tools.example.com/auth/callback"`. Keycloak 25.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-08-28", "2025-10-05"),
        comments=[
            (
                "m",
                """
             The redirect URL is missing the prefix: the provider sends the browser to
             `https://tools.example.com/auth/callback`, which Traefik routes to whatever owns `/`, and the
             state cookie set under `/orbit/` is never seen by the dashboard. Register and configure
             `https://tools.example.com/orbit/auth/callback` and keep the StripPrefix middleware.""",
            ),
            ("r", "That was it, the redirect URL needed the prefix. Works now."),
            ("u", "Worth a sentence on the dashboard page; we hit the same thing with an Istio VirtualService."),
            ("m", "The proxy section now mentions prefixes explicitly."),
        ],
    ),
    issue(
        "oidc-okta-aud",
        "bug",
        "Okta custom authorization server: ORB-1601 invalid audience",
        """
        Using an Okta custom authorization server (`https://acme.okta.com/oauth2/aus1a2b3c4d5`), login fails:

        ```
        WARNING orbit.dashboard ORB-1601 OIDCLoginFailed reason=invalid_audience expected=0oa9z8y7x6w5 got=api://default
        ```

        With the org authorization server it works. Is the dashboard checking `aud` against the client id?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        state="closed",
        when=("2025-07-01", "2025-09-01"),
        comments=[
            (
                "m",
                """
             Yes: the ID token's `aud` must contain the client id, per the OIDC spec. The value `api://default`
             suggests Orbit is being handed an access token, which happens when the custom server's
             "default" audience policy is used for ID tokens. In Okta, check the authorization server's
             access policy and that the app is an OIDC *Web* app; the ID token's aud is then the client id.""",
            ),
            ("r", "We had the app registered as an API service. Recreated as Web app, works."),
        ],
    ),
    issue(
        "oidc-azure-issuer",
        "bug",
        "Azure AD (Entra ID) login fails: issuer mismatch with tenant GUID",
        """
        `oidc_issuer = "https://login.microsoftonline.com/common/v2.0"` gives:

        ```
        WARNING orbit.dashboard ORB-1601 OIDCLoginFailed reason=issuer_mismatch expected=https://login.microsoftonline.com/common/v2.0 got=https://login.microsoftonline.com/5f1c2e0a-3b7d-4c55-9a8e-2d1f0b6c7e43/v2.0
        ```
        """,  # noqa: E501 (quoted whole: a log line, or the issue's own line breaks)
        comp=C,
        version="3.0.0",
        story=S,
        state="open",
        when=("2025-03-24", "2025-05-20"),
        comments=[
            (
                "m",
                """
             The `common` endpoint's discovery document uses a `{tenantid}` placeholder in `issuer`, which
             strict validators (ours included) can't match. Use your tenant-specific issuer:
             `https://login.microsoftonline.com/<tenant-id>/v2.0`.""",
            ),
            ("r", "Works with the tenant URL. Thanks."),
            ("u", "A note about this on the dashboard page would help, everyone copies `common` from some blog."),
        ],
    ),
    issue(
        "oidc-private-ca",
        "bug",
        "ORB-1602 discovery fails for internal Keycloak with a private CA",
        """
        ```
        {{tb:oidc_discovery_tls}}
        ```

        The CA is installed in the OS trust store of the container (`update-ca-certificates` ran), and curl
        from the same container works.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-15", "2025-11-05"),
        comments=[
            (
                "m",
                """
             The dashboard uses Python's default trust store, and the Python in your image (built from
             source in the official `python:` images) doesn't necessarily read the bundle that
             `update-ca-certificates` writes, even though curl does. Point `SSL_CERT_FILE` at it
             (`/etc/ssl/certs/ca-certificates.crt` on Debian) and `orbit doctor` will confirm under
             "OIDC discovery". No restart needed; discovery is retried on the next login.""",
            ),
            ("r", "SSL_CERT_FILE did it."),
        ],
    ),
    issue(
        "oidc-trailing",
        "bug",
        "ORB-1602 when oidc_issuer ends with a slash (Dex)",
        """
        With Dex, `oidc_issuer = "https://dex.example.net/"` fails discovery with a 404; Orbit fetches
        `https://dex.example.net//.well-known/openid-configuration`. Without the trailing slash it works, but
        Dex's own `issuer` field is configured with the slash, so token validation then complains about
        issuer mismatch (ORB-1601). Catch-22.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        state="closed",
        when=("2025-09-01", "2025-10-12"),
        labels=("confirmed",),
        comments=[
            (
                "m",
                "Confirmed: discovery should join the path without doubling the slash, while "
                "the issuer comparison must stay exact. Fix in 3.1.0.",
            ),
            ("m", "Released in 3.1.0.", "2025-10-14"),
        ],
    ),
    issue(
        "oidc-session-ttl",
        "question",
        "Dashboard logs me out every 8 hours, can sessions last longer?",
        """
        Our NOC keeps the dashboard open on a wall screen and it goes back to the login page every
        morning. Is there a setting?
        """,
        comp=C,
        story=S,
        state="open",
        when=("2024-05-01", "2025-09-30"),
        comments=[
            (
                "m",
                "`[dashboard] session_ttl_minutes` (default 480). Set it to e.g. 1440 for a "
                "day. Login is still subject to your IdP's own session.",
            ),
            ("r", "Perfect, thanks."),
        ],
    ),
    issue(
        "oidc-secret-env",
        "question",
        "Can the OIDC client secret come from an environment variable?",
        """
        Our orbit.toml is mounted from a ConfigMap that everyone in the namespace can read, and policy
        says secrets only come from Secret objects. We don't want `oidc_client_secret` in that file. Is
        there a way to pass it separately?
        """,
        comp=C,
        story=S,
        state="open",
        when=("2025-03-20", "2025-10-30"),
        comments=[
            (
                "m",
                """
             Every key has an env override: `ORBIT_DASHBOARD_OIDC_CLIENT_SECRET`. Mount it from a Kubernetes
             Secret as an env var and leave the key out of orbit.toml. `orbit doctor --show-config` masks
             it.""",
            ),
        ],
    ),
    issue(
        "oidc-groups",
        "feature",
        "Restrict dashboard access by OIDC group or claim",
        """
        Right now anyone who can log in to our IdP can open the dashboard and purge queues. We'd like
        something like `oidc_required_claim = "groups:orbit-admins"`, or at least a read-only mode for
        users without a given group.
        """,
        comp=C,
        story=S,
        when=("2024-09-01", "2025-11-20"),
        comments=[
            (
                "m",
                """
             Agreed this is the most requested dashboard feature. Until then, most IdPs let you restrict
             which users can get tokens for a client (Keycloak client roles, Okta app assignment, Entra
             "assignment required"), which achieves the all-or-nothing version.""",
            ),
            ("u", "+1 for read-only for everyone, admin for a group."),
            ("u2", "Entra 'assignment required' works well for us as a stopgap."),
        ],
    ),
    issue(
        "oidc-vague",
        "bug",
        "cant login to dashboard",
        """
        after login it just says error. orbit 3.1.0. what do i check
        """,
        comp=C,
        version="3.1.0",
        story=S,
        state="closed",
        when=("2025-10-16", "2025-11-18"),
        labels=("needs-repro",),
        comments=[
            (
                "m",
                "Please paste the dashboard log line with ORB-1601 or ORB-1602; the "
                "`reason=` field tells us which of the usual causes it is.",
            ),
            ("m", "Closing for lack of information, feel free to reopen with the log line."),
        ],
    ),
    issue(
        "oidc-bind",
        "question",
        "Dashboard not reachable through the k8s Service",
        """
        Deployed `orbit dashboard` in a pod with a Service on 8700. Port-forward works, the Service doesn't.
        OIDC isn't configured yet, I wanted to see it first.
        """,
        comp=C,
        version="3.0.3",
        state="closed",
        when=("2025-08-26", "2025-10-10"),
        comments=[
            (
                "m",
                """
             Without OIDC the dashboard refuses to bind anything but loopback, so it listens on
             127.0.0.1:8700 inside the pod; port-forward reaches that, a Service can't. That's deliberate:
             no login, no network exposure. Configure OIDC and set `bind = "0.0.0.0:8700"`.""",
            ),
            ("r", "Makes sense, a bit surprising though. Maybe log the reason at startup?"),
            ("m", "It does log it at INFO; we'll bump it to WARNING."),
        ],
    ),
    issue(
        "oidc-docs-azure",
        "docs",
        "Dashboard OIDC page: add an Entra ID example with the tenant issuer",
        """
        After #[oidc-azure-issuer] it would help to have a tested Entra ID snippet on the page, including
        the redirect URI registration (Web platform, not SPA) and the tenant-specific issuer.
        """,
        comp=C,
        state="closed",
        when=("2025-05-21", "2025-07-30"),
        labels=("good first issue",),
        comments=[
            ("u", "I can write this, we run it on Entra."),
            ("m", "Thanks! Merged."),
        ],
    ),
]

DUPLICATES = [
    issue(
        "oidcd-proxy",
        "bug",
        "Behind Traefik TLS termination the OIDC callback goes to http:// (ORB-1601)",
        """
        Traefik terminates TLS, dashboard behind it on plain http. After logging in with Authentik the IdP
        rejects the callback because Orbit sends `redirect_uri=http://...`. How do I make it use https?
        """,
        comp=C,
        version="3.0.2",
        story=S,
        dup="oidc-proxy-https",
        dup_note="Set `oidc_redirect_url` to the external https URL; the dashboard does not trust forwarded headers.",
    ),
    issue(
        "oidcd-skew",
        "bug",
        "ORB-1601 iat in the future after the VM resumed from suspend — NTP drift",
        """
        Our dashboard VM was suspended over the weekend; after resuming, every login fails with
        `reason=iat_in_future`. Time sync seems off by ~3 minutes.
        """,
        comp=C,
        version="3.0.3",
        story=S,
        dup="oidc-skew",
        dup_note="Clock skew beyond `allowed_clock_skew_seconds`; fix NTP on the host.",
    ),
    issue(
        "oidcd-ca",
        "bug",
        "Self-signed certificate on internal Keycloak: discovery error ORB-1602",
        """
        Every dashboard login attempt shows an error page and logs OIDCDiscoveryFailed with
        CERTIFICATE_VERIFY_FAILED. Our Keycloak uses a certificate from the company CA. 3.1.0.
        """,
        comp=C,
        version="3.1.0",
        story=S,
        dup="oidc-private-ca",
        dup_note="Use `SSL_CERT_FILE` with a bundle containing the company CA.",
    ),
    issue(
        "oidcd-azure",
        "bug",
        "Entra ID sign-in: issuer validation rejects the tenant GUID",
        """
        We configured the issuer as `.../common/v2.0` like the Microsoft quickstart, and logins fail with an
        issuer mismatch that mentions our tenant GUID.
        """,
        comp=C,
        version="3.0.1",
        story=S,
        dup="oidc-azure-issuer",
        dup_note="Use the tenant-specific issuer URL instead of `common`.",
    ),
]
