"""Help channels on Slack, end to end: signed `message.channels` events -> `atlas serve` (Bolt) -> Redis/RQ ->
real `atlas worker` processes -> the Slack stand-in, the offline model over the Orbit data."""

from __future__ import annotations

import json
from pathlib import Path

import redis

from tests.standins.slack_api import SlackAPI
from tests.standins.slack_events import SECRET, SlackSender, channel_message, mention
from tests.standins.slack_fixtures import slack_api  # noqa: F401
from tests.support.processes import atlas_serve, burst_worker
from tests.support.tools_dataset import make_dataset
from workers.runs.store import RunStore

HELP, GENERAL = "C0HELP", "C0GENERAL"
ASKER, OTHER_ASKER, MAINTAINER = "U0ASKER", "U0BOB", "U0MAINT"


def _runs(conn: redis.Redis) -> list:
    store = RunStore(conn)
    return [store.load(k.decode().rsplit(":", 1)[1]) for k in conn.scan_iter("atlas:run:*") if k.count(b":") == 2]


def test_help_channel_posts_are_answered_once_step_back_for_a_maintainer_hand_off_and_keep_to_the_rate(
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
        "ATLAS_MODEL_RETRIES": "0",
        "ATLAS_HELP_CHANNELS": HELP,
        "ATLAS_HELP_MAINTAINERS": MAINTAINER,
        "ATLAS_HANDOFF": "S0MAINTAINERS",
        "ATLAS_HELP_RATE": "4",
    }
    answered, nomad = "1700100000.000100", "1700100001.000100"
    with atlas_serve(env, tmp_path / "serve.log") as port:
        slack = SlackSender(f"http://127.0.0.1:{port}/slack/events")
        post = channel_message("What does ORB-1202 mean?", channel=HELP, user=ASKER, ts=answered)
        assert slack.event(post).status == 200
        assert slack.event(post, retry_num=1).status == 200  # Slack's retry of the same event
        assert (
            slack.event(channel_message("How do I deploy on Nomad?", channel=HELP, user=OTHER_ASKER, ts=nomad)).status
            == 200
        )
        slack.event(
            channel_message("What does ORB-1202 mean?", channel=GENERAL, ts="1700100002.000100")
        )  # not a help channel
        slack.event(
            channel_message("What does ORB-1202 mean?", channel=HELP, ts="1700100003.000100", bot_id="B0OTHERATLAS")
        )
        slack.event(channel_message("edited", channel=HELP, ts="1700100004.000100", subtype="message_changed"))
        slack.event(channel_message("joined", channel=HELP, ts="1700100005.000100", subtype="channel_join"))
        assert len(_runs(redis_conn)) == 2
        burst_worker(env)

        [answer] = slack_api.thread(HELP, answered)  # the answer only: no progress message in a help channel
        assert "ORB-1202" in json.dumps(answer["blocks"])
        [handoff] = slack_api.thread(HELP, nomad)
        assert handoff["text"].startswith("<!subteam^S0MAINTAINERS>") and "Nomad" in handoff["text"]
        assert "nothing there answers it" in handoff["text"]
        assert not slack_api.thread(GENERAL, "1700100002.000100") and not slack_api.thread(HELP, "1700100003.000100")

        # The asker's reply continues the conversation; after a maintainer's reply, the next one gets nothing.
        slack.event(
            channel_message(
                "How do I raise it myself?", channel=HELP, user=ASKER, ts="1700100010.000100", thread_ts=answered
            )
        )
        [follow_up] = [r for r in _runs(redis_conn) if r.origin.message_ts == "1700100010.000100"]
        assert follow_up.origin.unprompted and follow_up.origin.thread_ts == answered
        assert [t.question for t in follow_up.history] == [
            "What does ORB-1202 mean?"
        ]  # the thread's turns are its context
        slack.event(
            channel_message(
                "Raise PermanentError, see the docs.",
                channel=HELP,
                user=MAINTAINER,
                ts="1700100011.000100",
                thread_ts=answered,
            )
        )
        slack.event(
            channel_message(
                "Thanks! And for ORB-1102?", channel=HELP, user=ASKER, ts="1700100012.000100", thread_ts=answered
            )
        )
        assert len(_runs(redis_conn)) == 3
        # A mention still works there, as everywhere.
        assert (
            slack.event(
                mention(
                    "What does ORB-1102 mean?", channel=HELP, user=ASKER, ts="1700100013.000100", thread_ts=answered
                )
            ).status
            == 200
        )
        assert len(_runs(redis_conn)) == 4

        # The fourth unprompted run this hour was the last: a fifth post gets a log line, no run.
        assert (
            slack.event(
                channel_message("Is ORB-1301 retried?", channel=HELP, user=OTHER_ASKER, ts="1700100020.000100")
            ).status
            == 200
        )
        assert (
            slack.event(channel_message("And ORB-1302?", channel=HELP, user=OTHER_ASKER, ts="1700100021.000100")).status
            == 200
        )
        assert len(_runs(redis_conn)) == 5
    assert "over ATLAS_HELP_RATE" in (tmp_path / "serve.log").read_text()
