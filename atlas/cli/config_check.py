"""`atlas config check`: atlas.toml and the environment read together (a bad file never gets here: reading the
settings refused it with its line), then what each channel will do and where each value came from."""

from __future__ import annotations

from atlas.channel_plan import ChannelPlan, install_repo, plan
from atlas.settings import Settings

RULE = (
    "The file wins for the channels it names; the environment is the default for every other channel and for "
    "every key a channel leaves out."
)


def _money(value: float | None) -> str:
    return "none" if value is None else f"${value:.2f} a day"


def _from(p: ChannelPlan, key: str) -> str:
    return f"({p.sources.get(key, 'environment')})"


def lines(settings: Settings) -> list[str]:
    """What `check` prints, line by line."""
    file = settings.channels
    out = [
        f"atlas.toml: {file.path} ({len(file.channels)} channels)"
        if file.path
        else "atlas.toml: none (ATLAS_CONFIG unset)",
        RULE,
    ]
    default = plan(settings, None)
    out.append(
        f"install: repository {install_repo(settings)}, model {default.model}, {_budget(default)}, "
        f"daily cap {_money(settings.daily_cost_limit)} (ATLAS_DAILY_COST_LIMIT)"
    )
    named = {c.channel for c in file.channels}
    for config in file.channels:
        p = plan(settings, config.channel)
        out.append(f"{config.platform} channel {config.channel}:")
        out.append(f"  repository    {p.repo or install_repo(settings)} {_from(p, 'repo')}")
        flipped = (
            " - the environment's help channel lists say otherwise; the file wins"
            if (config.channel in settings.help.overridden)
            else ""
        )
        out.append(f"  help channel  {'yes' if p.help else 'no'} {_from(p, 'help')}{flipped}")
        out.append(f"  hand-off      {', '.join(p.handoff) or 'none'} {_from(p, 'handoff')}")
        out.append(f"  model         {p.model} {_from(p, 'model')}{_price_warning(settings, p)}")
        out.append(
            f"  budgets       {p.budget.max_steps} steps {_from(p, 'max_steps')}, {p.budget.max_tokens} tokens "
            f"{_from(p, 'max_tokens')}, {p.budget.max_seconds:g} s {_from(p, 'max_seconds')}"
        )
        out.append(
            f"  daily cap     {_money(p.daily_cost_limit)} {_from(p, 'daily_cost_limit')}, "
            f"within the install's {_money(settings.daily_cost_limit)}"
        )
    others = sorted((settings.help.slack_channels | settings.help.discord_channels) - named)
    if others:
        out.append(f"help channels from the environment only: {', '.join(others)} (install defaults apply)")
    if settings.daily_cost_limit is not None and not settings.offline and not _priced(settings.price):
        out.append(f"warning: model {settings.model} has no known price (ATLAS_PRICE): its calls count as $0")
    return out


def _budget(p: ChannelPlan) -> str:
    return f"{p.budget.max_steps} steps / {p.budget.max_tokens} tokens / {p.budget.max_seconds:g} s"


def _priced(price: object) -> bool:
    return any(getattr(price, k) for k in ("input", "cached_input", "output"))


def _price_warning(settings: Settings, p: ChannelPlan) -> str:
    if settings.offline or _priced(p.price) or (p.daily_cost_limit is None and settings.daily_cost_limit is None):
        return ""
    return " - warning: no known price (set price = [input, cached, output]): its calls count as $0 against the caps"


def overrides(settings: Settings) -> list[str]:
    """One line per channel whose atlas.toml table overrides the environment's help channel lists: logged when
    `atlas serve` and `atlas worker` start, so the disagreement is never silent there either."""
    helping = settings.help.slack_channels | settings.help.discord_channels
    return [
        f"atlas.toml makes {c} {'a help channel' if c in helping else 'not a help channel'}, against the"
        " environment's help channel lists; the file wins"
        for c in sorted(settings.help.overridden)
    ]


def check(settings: Settings) -> int:
    for line in lines(settings):
        print(line)
    return 0
