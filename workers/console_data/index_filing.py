"""The console's index written later and in batches (issue 40): a run that pauses or ends leaves its filing
(workers/console_data/run_index.py `filing`) on a pending list in the same round trip as its record, and `flush` files
everything pending in one script, one command per key touched rather than per run and key (26 per run before).

Filed within DELAY_SECONDS by the process that found the list empty (`pending` answers the list's length: the first
saver arms a timer), at once when a BATCH is waiting, by every worker's maintenance (RQ's, every 30 s: a list
whose timer died with its process), and before any console page is drawn or a vote is filed (bot/console/pages.py,
run_index.vote_changed), so what a page shows is never behind the runs saved before it. Filing is idempotent:
a run's latest filing in a batch is the one kept, it is counted in the day's figures once (when it first enters a
final status set), and one filed again leaves the status and gap sets it no longer belongs to.
"""

from __future__ import annotations

import json
import logging
import threading
import time

import redis
from redis.client import Pipeline

from atlas.lua import run_script
from atlas.stop_signals import held
from workers.console_data.run_index import PREFIX, Filing, filing
from workers.runs.state import RunState

log = logging.getLogger("atlas.runs")

BATCH = 200  # filings per script (each adds two ZADD arguments per key: well inside Lua's stack)
DELAY_SECONDS = 5.0  # how long a filing waits for others to share its script (pages and votes file first)


def pending_key() -> str:
    return f"{PREFIX}:pending"


def pending(pipe: Pipeline, filed: Filing, first: bool) -> None:
    """Add a run's filing to the pending list in the caller's pipeline (its reply: the list's length, for `after`).
    `first`: the run was never filed before, so it leaves no status or gap set."""
    args = [*filed.head, time.time(), int(first), *filed.tail]
    pipe.rpush(pending_key(), json.dumps([list(filed.keys), [str(a) for a in args]]))


# KEYS: the pending list. ARGV: how many filings to take. Each filing is [keys, args] in the layout `filing` makes:
# keys: the day, the gaps set, the status sets (args[10] of them, the final ones, args[9], first), then every other
# set it is filed under; args: id, score, now, first (1/0), keep seconds, day keep seconds, final (1/0), gap (1/0),
# the number of final status sets, of status sets, which status set is the run's (from 1), the number of
# (menu key, value) pairs, those pairs, then the day's (field, count) pairs, `runs` first.
_FLUSH = """
local raw = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
if #raw == 0 then return 0 end
redis.call('LTRIM', KEYS[1], #raw, -1)
local latest, first, order = {}, {}, {}
for _, text in ipairs(raw) do
  local e = cjson.decode(text)
  local id = e[2][1]
  if latest[id] == nil then first[id] = e[2][4] == '1'; order[#order + 1] = id end
  latest[id] = e
end
local function group(groups, keys, key)
  local t = groups[key]
  if not t then t = {}; groups[key] = t; keys[#keys + 1] = key end
  return t
end
local adds, add_keys, rems, rem_keys, menus, menu_keys = {}, {}, {}, {}, {}, {}
local now, keep, day_keep, final_keys, checked = 0, 0, 0, nil, {}
for _, id in ipairs(order) do
  local k, a = latest[id][1], latest[id][2]
  now, keep, day_keep = math.max(now, tonumber(a[3])), tonumber(a[5]), tonumber(a[6])
  local finals, statuses, current = tonumber(a[9]), tonumber(a[10]), tonumber(a[11])
  if not final_keys then final_keys = {}; for i = 1, finals do final_keys[i] = k[2 + i] end end
  local function add(key) local t = group(adds, add_keys, key); t[#t + 1] = a[2]; t[#t + 1] = id end
  add(k[2 + current])
  for i = 3 + statuses, #k do add(k[i]) end
  if a[8] == '1' then add(k[2]) end
  if not first[id] then
    checked[#checked + 1] = id
    for i = 1, statuses do if i ~= current then table.insert(group(rems, rem_keys, k[2 + i]), id) end end
    if a[8] ~= '1' then table.insert(group(rems, rem_keys, k[2]), id) end
  end
  for i = 13, 12 + 2 * tonumber(a[12]), 2 do group(menus, menu_keys, a[i])[a[i + 1]] = true end
end
local was_final = {}
if #checked > 0 then
  for _, key in ipairs(final_keys) do
    local scores = redis.call('ZMSCORE', key, unpack(checked))
    for i, id in ipairs(checked) do if scores[i] then was_final[id] = true end end
  end
end
local days, day_keys = {}, {}
for _, id in ipairs(order) do
  local k, a = latest[id][1], latest[id][2]
  if a[7] == '1' and not was_final[id] then
    local fields = group(days, day_keys, k[1])
    for i = 13 + 2 * tonumber(a[12]), #a, 2 do fields[a[i]] = (fields[a[i]] or 0) + tonumber(a[i + 1]) end
  end
end
for _, key in ipairs(rem_keys) do redis.call('ZREM', key, unpack(rems[key])) end
for _, key in ipairs(add_keys) do
  redis.call('ZADD', key, unpack(adds[key]))
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - keep)
  redis.call('EXPIRE', key, keep)
end
for _, key in ipairs(menu_keys) do
  local args = {}
  for value in pairs(menus[key]) do args[#args + 1] = now; args[#args + 1] = value end
  redis.call('ZADD', key, unpack(args))
  redis.call('EXPIRE', key, keep)
end
for _, key in ipairs(day_keys) do
  local fields = days[key]
  if fields['runs'] and redis.call('HINCRBY', key, 'runs', fields['runs']) == fields['runs'] then
    redis.call('EXPIRE', key, day_keep)
  end
  for field, n in pairs(fields) do
    if field ~= 'runs' then redis.call('HINCRBY', key, field, n) end
  end
end
return #raw
"""


def add(conn: redis.Redis, run: RunState | Filing, *, first: bool = False) -> None:
    """File a run that paused or ended now, with whatever else is pending (idempotent: filing it again counts it
    once). `first`: the run was never filed (`RunState.unfiled`), so it leaves no other status."""
    pipe = conn.pipeline(transaction=False)
    pending(pipe, run if isinstance(run, Filing) else filing(run), first)
    pipe.execute()
    flush(conn)


def flush(conn: redis.Redis) -> int:
    """File every pending filing now (batches of BATCH); how many were taken off the list."""
    taken = 0
    while True:
        n = int(run_script(conn, _FLUSH, [pending_key()], [BATCH]))
        taken += n
        if n < BATCH:
            return taken


_lock = threading.Lock()
_armed: set[int] = set()  # connections (by id) with a flush timer running in this process


def after(conn: redis.Redis, length: int) -> None:
    """What a saver does once its filing is pending and the list is `length` long: the first arms a flush in
    DELAY_SECONDS, a full batch is filed now, anything else waits for the armed one."""
    if length >= BATCH:
        flush(conn)
    elif length == 1:
        with _lock:
            if id(conn) in _armed:
                return
            _armed.add(id(conn))
        timer = threading.Timer(DELAY_SECONDS, _timed, args=(conn,))
        timer.daemon = True
        with held():  # SIGTERM stays the main thread's (atlas/stop_signals.py)
            timer.start()


def _timed(conn: redis.Redis) -> None:
    with _lock:
        _armed.discard(id(conn))
    try:
        flush(conn)
    except Exception:  # the next saver, a worker's maintenance or a console page files them
        log.warning("the console's pending filings were not filed now; they will be later", exc_info=True)
