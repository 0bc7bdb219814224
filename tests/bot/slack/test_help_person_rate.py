"""Help channel limits on Slack, end to end (issue 35 item 6): signed `message.channels` events -> `atlas serve`
(Bolt) -> Redis -> the Slack stand-in. With ATLAS_HELP_PERSON_RATE=2 and ATLAS_HELP_RATE=3, one person's third post
is held back with one note in its thread and their fourth gets none; another person's post still runs, and once the
channel is full their next post gets one note saying so. Nothing is held back silently."""

from __future__ import annotations

from pathlib import Path

import redis

from tests.bot.slack.test_help_channels import _runs
from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, channel_message
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import atlas_serve, wait_for
from tests.support.tools_dataset import make_dataset
from workers import wording

HELP = "C0HELP"
ASKER, OTHER = "U0ASKER", "U0BOB"


def test_one_person_keeps_to_their_share_and_a_held_back_post_hears_it_once(
    atlas_env: dict[str, str],
    slack_api: SlackAPI,
    redis_conn: redis.Redis,
    tmp_path: Path,  # noqa: F811
) -> None:
    env = {
        **atlas_env,
        **slack_api.env(),
        "SLACK_SIGNING_SECRET": SECRET,
        "ATLAS_DATA": str(make_dataset(tmp_path / "data")),
        "ATLAS_SEMANTIC": "false",
        "ATLAS_HELP_CHANNELS": HELP,
        "ATLAS_HELP_RATE": "3",
        "ATLAS_HELP_PERSON_RATE": "2",
    }
    mine = [f"17001000{n:02d}.000100" for n in range(4)]
    theirs = [f"17001001{n:02d}.000100" for n in range(3)]
    with atlas_serve(env, tmp_path / "serve.log") as port:
        slack = SlackSender(f"http://127.0.0.1:{port}/slack/events")
        for n, ts in enumerate(mine):
            assert (
                slack.event(channel_message(f"Question {n} about ORB-120{n}?", channel=HELP, user=ASKER, ts=ts)).status
                == 200
            )
        assert (
            slack.event(
                channel_message("What does ORB-1202 mean?", channel=HELP, user=ASKER, ts=mine[2]), retry_num=1
            ).status
            == 200
        )
        for n, ts in enumerate(theirs):
            assert slack.event(channel_message(f"Deploy question {n}?", channel=HELP, user=OTHER, ts=ts)).status == 200
        person = wording.HELP_HELD["held_person"].format(person=2, channel=3)
        channel = wording.HELP_HELD["held_channel"].format(person=2, channel=3)
        wait_for(lambda: slack_api.thread(HELP, mine[2]) and slack_api.thread(HELP, theirs[1]), what="the two notes")
        assert len(_runs(redis_conn)) == 3  # two of mine, one of theirs
        [note] = slack_api.thread(HELP, mine[2])  # once, though Slack delivered that post twice
        assert note["text"] == person
        [note] = slack_api.thread(HELP, theirs[1])
        assert note["text"] == channel
        assert not slack_api.thread(HELP, mine[3]) and not slack_api.thread(HELP, theirs[2])  # no second note this hour
    log = (tmp_path / "serve.log").read_text()
    assert "over ATLAS_HELP_PERSON_RATE" in log and "over ATLAS_HELP_RATE" in log
