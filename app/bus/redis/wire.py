"""The Redis backplane's wire: key and channel names, the frames message, the Lua scripts.

Every key and channel of a room carries the room code as a hash tag (`{CODE}`), so
a room's keys share one Redis Cluster slot and each script touches one slot. The room's
`answers` stream (`bankit:{CODE}:answers`) is one of them: see app/bus/redis/answers.py.

How long a room is kept after its last event is its `keep` key (milliseconds) when it
was created with a time of its own (a group, a member card), else the bus's room TTL
(the scripts' `ttl` argument): every script that sets a TTL on the room's keys reads it
(`_room_ttl`), so whichever process runs the room next keeps it as long.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from app.bus.base import Frame


def key(code: str, part: str) -> str:
    return f"bankit:{{{code}}}:{part}"


def node_channel(node: str) -> str:
    return f"bankit:node:{{{node}}}"


def encode_frames(cursor: str, frames: Sequence[Frame]) -> bytes:
    """`F<cursor> <commit µs> <n>\\n` then per frame `<kind> <seq> <bytes>\\n<text>`."""
    parts = [f"F{cursor} {time.time_ns() // 1000} {len(frames)}\n".encode()]
    for frame in frames:
        text = frame.text.encode()
        parts.append(f"{frame.kind} {frame.seq} {len(text)}\n".encode())
        parts.append(text)
    return b"".join(parts)


def stamp_of(data: bytes) -> int:
    """A frames message's commit time (µs since the epoch), from its first line alone."""
    return int(data[1 : data.index(b"\n")].split(b" ")[1])


def decode_frames(data: bytes) -> tuple[str, int, list[Frame]]:
    """The cursor, the commit time (µs since the epoch) and the frames of a message."""
    end = data.index(b"\n")
    cursor, stamp, count = data[1:end].decode().split(" ")
    frames, at = [], end + 1
    for _ in range(int(count)):
        end = data.index(b"\n", at)
        kind, seq, size = data[at:end].decode().split(" ")
        at = end + 1 + int(size)
        frames.append(Frame(kind, int(seq), data[end + 1 : at].decode()))
    return cursor, int(stamp), frames


def _room_ttl(keep: int) -> str:
    """Lua: `ttl`, the room's own time (its `keep` key, KEYS[keep]) or the bus's (ARGV[3]);
    the keep key itself lives as long as the room's other keys."""
    return (
        f"local ttl = redis.call('GET', KEYS[{keep}]) or ARGV[3]\n"
        f"redis.call('PEXPIRE', KEYS[{keep}], ttl)\n"
    )


# KEYS: snap log cursor cmds tail lease answers keep
# ARGV: snapshot, first entry, ttl ms, '1' when the ttl is the room's own (kept in `keep`)
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
redis.call('DEL', KEYS[2], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8])
if ARGV[4] == '1' then redis.call('SET', KEYS[8], ARGV[3], 'PX', ARGV[3]) end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], '0', 'PX', ARGV[3])
return 1
"""

# KEYS: snap lease epoch keep
CLAIM = (
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
"""
    + _room_ttl(4)
    + """local epoch = redis.call('INCR', KEYS[3])
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('SET', KEYS[2], epoch .. ' ' .. ARGV[1], 'PX', ARGV[2])
return epoch
"""
)

RENEW = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# The poke goes to the lease holder's node channel; the caller pokes itself locally.
# Returns {owner or '', the command's stream id} (the id dates it, for answers).
# KEYS: snap cmds lease keep
SUBMIT = (
    """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
"""
    + _room_ttl(4)
    + """local id = redis.call('XADD', KEYS[2], '*', 'e', ARGV[1])
redis.call('PEXPIRE', KEYS[2], ttl)
local lease = redis.call('GET', KEYS[3])
if not lease then return {'', id} end
local owner = string.match(lease, ' (.*)$')
if owner ~= ARGV[2] then
  redis.call('PUBLISH', 'bankit:node:{' .. owner .. '}', 'P' .. ARGV[4])
end
return {owner, id}
"""
)

COMMIT_KEYS = ("lease", "snap", "log", "cursor", "cmds", "tail", "epoch", "answers", "keep")
# KEYS: lease snap log cursor cmds tail epoch answers keep
# ARGV: lease value, lease ms, ttl ms, snapshot, cursor, message, channel, answers maxlen,
#       the log's length this commit extends ('' for any), n entries, entries..., then
#       (node, key, payload) per answer.
# Each answer is kept in the room's answer stream (same slot) and published to its node's
# channel here, so it exists, and goes out, iff the commit happened. The log's length
# chains the commits an owner sends without waiting (one hop): one that follows a commit
# that did not happen stores nothing either.
# Returns 0 when fenced, else the first answer's id in that stream (1 without answers).
COMMIT = (
    """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[9] ~= '' and redis.call('LLEN', KEYS[3]) ~= tonumber(ARGV[9]) then return 0 end
"""
    + _room_ttl(9)
    + """redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl)
local n = tonumber(ARGV[10])
if n > 0 then redis.call('RPUSH', KEYS[3], unpack(ARGV, 11, 10 + n)) end
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('SET', KEYS[4], ARGV[5], 'PX', ttl)
redis.call('XTRIM', KEYS[5], 'MINID', ARGV[5])
redis.call('PEXPIRE', KEYS[5], ttl)
redis.call('PEXPIRE', KEYS[7], ttl)
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[6], ARGV[6], 'PX', ttl)
  redis.call('PUBLISH', ARGV[7], ARGV[6])
end
local at, first = 11 + n, 1
if at <= #ARGV then
  while at <= #ARGV do
    local node, k, payload = ARGV[at], ARGV[at + 1], ARGV[at + 2]
    local id = redis.call('XADD', KEYS[8], 'MAXLEN', '~', ARGV[8], '*', 'n', node, 'k', k,
      'p', payload)
    if first == 1 then first = id end
    redis.call('PUBLISH', 'bankit:node:{' .. node .. '}', 'R' .. k .. '\\n' .. payload)
    at = at + 3
  end
  redis.call('PEXPIRE', KEYS[8], ttl)
end
return first
"""
)


def _sharded(script: str, replace: dict[str, str]) -> str:
    """A script's Redis Cluster variant; fails at import if a replaced line went missing."""
    for old, new in replace.items():
        if script.count(old) != 1:
            raise ValueError(f"not once in the script: {old!r}")
        script = script.replace(old, new)
    return script


# On Redis Cluster a script may publish only to a shard channel of its own slot: the
# room's frames (SPUBLISH, same slot) stay in COMMIT; pokes and answers go to node
# channels of other slots, so the bus SPUBLISHes them itself right after the script
# (app/bus/redis/bus.py). Answers are still XADDed in the script: durable either way.
SUBMIT_SHARDED = _sharded(
    SUBMIT,
    {
        "if owner ~= ARGV[2] then\n"
        "  redis.call('PUBLISH', 'bankit:node:{' .. owner .. '}', 'P' .. ARGV[4])\n"
        "end\n": ""
    },
)
COMMIT_SHARDED = _sharded(
    COMMIT,
    {
        "redis.call('PUBLISH', ARGV[7], ARGV[6])": "redis.call('SPUBLISH', ARGV[7], ARGV[6])",
        "    redis.call('PUBLISH', 'bankit:node:{' .. node .. '}',"
        " 'R' .. k .. '\\n' .. payload)\n": "",
    },
)


# With replicas (`min_replicas` > 0, app/bus/redis/replicas.py) a commit is written in
# two steps: this script stores the record, fenced as COMMIT is, but publishes and
# answers nothing; once `WAIT` says enough replicas have it, the bus publishes the frames
# and the answers itself. A commit the replicas did not confirm in time is taken back
# with REVERT (its batch's commands with it), so that what was answered `unavailable`
# is not applied later by whoever owns the room next.
# The record must also still be the one this owner last wrote (its cursor): after a
# promotion the new primary may lack the owner's last commits (never answered), and an
# owner whose lease survived must not append to a log that no longer ends where its own
# copy does: it steps down, and the room is restored from what the primary has.
# Returns the room's TTL (ms, for what the bus then publishes), 0 when fenced.
# KEYS: lease snap log cursor cmds epoch keep
# ARGV: lease value, lease ms, ttl ms, snapshot, cursor, cursor before, n entries, entries...
COMMIT_HELD = (
    """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if (redis.call('GET', KEYS[4]) or '0') ~= ARGV[6] then return 0 end
"""
    + _room_ttl(7)
    + """redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[4], 'PX', ttl)
local n = tonumber(ARGV[7])
if n > 0 then redis.call('RPUSH', KEYS[3], unpack(ARGV, 8, 7 + n)) end
redis.call('PEXPIRE', KEYS[3], ttl)
redis.call('SET', KEYS[4], ARGV[5], 'PX', ttl)
redis.call('XTRIM', KEYS[5], 'MINID', ARGV[5])
redis.call('PEXPIRE', KEYS[5], ttl)
redis.call('PEXPIRE', KEYS[6], ttl)
return tonumber(ttl)
"""
)

# KEYS: lease snap log cursor cmds
# ARGV: lease value, the snapshot before, n entries, the cursor before, the cursor after,
#       the room's TTL (COMMIT_HELD's answer)
REVERT = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('GET', KEYS[4]) ~= ARGV[5] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[6])
local n = tonumber(ARGV[3])
if n > 0 then redis.call('LTRIM', KEYS[3], 0, -(n + 1)) end
redis.call('SET', KEYS[4], ARGV[4], 'PX', ARGV[6])
redis.call('XDEL', KEYS[5], ARGV[5])
return 1
"""
