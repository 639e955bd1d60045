//! The Lua scripts that make each task transition one atomic step on the Redis server: two
//! replicas that move one task at once are served one after the other, and the second sees
//! the task as the first left it.
//!
//! A task is one hash, `<prefix>task:<id>`:
//! - `s` status, `c` created, `u` updated, `t` ttl, `p` poll interval (ms);
//! - the outcome: `ok` (`r` a result, `e` an error); a result's `oc` content, `os`
//!   structured content, `oe` `1` when it is an error result; an error's `ec` code, `em`
//!   message, `ed` data;
//! - while it waits for input: `i:<key>` each request still unanswered (`<order>\n<method>\n
//!   <params>`), `r:<key>` each answer (`<order>\n<response>`), `n` how many are unanswered,
//!   `pf` the call's frame and `ps` the handler's state.
//!
//! The hash expires by itself: `ttl` after creation once terminal, later while the task runs
//! (a task whose process died is dropped then). `<prefix>tasks` orders the ids by creation
//! for `tasks/list`; an id whose hash is gone is dropped from it by `expire` and, when the
//! store is full, by `create`.
//!
//! NB. The scripts name keys they build from ids (the order set's members), which a Redis
//! Cluster refuses; Janus's store is for one Redis server (or a primary and its replicas).

/// `KEYS[1]` the order set, `KEYS[2]` the task; `ARGV`: id, now, ttl, poll, the most tasks,
/// the time the hash expires at while the task runs, the task key prefix. `1` when made, `0`
/// when the store is full.
pub(crate) const CREATE: &str = r"
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then
  for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, 999)) do
    if redis.call('EXISTS', ARGV[7] .. id) == 0 then redis.call('ZREM', KEYS[1], id) end
  end
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[5]) then return 0 end
end
redis.call('HSET', KEYS[2], 's', 'working', 'c', ARGV[2], 'u', ARGV[2], 't', ARGV[3], 'p', ARGV[4])
redis.call('PEXPIREAT', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
";

/// Drops the request and answer fields of a waiting task.
const CLEAR_INPUT: &str = r"
local function clear_input(key)
  for _, f in ipairs(redis.call('HKEYS', key)) do
    local p = string.sub(f, 1, 2)
    if p == 'i:' or p == 'r:' then redis.call('HDEL', key, f) end
  end
  redis.call('HDEL', key, 'ps', 'pf', 'n')
end
";

/// `KEYS[1]` the task; `ARGV`: status, its rank, now, the channel of task ends, the id, then
/// the outcome's fields and values. `false` for an unknown task, else `{changed, fields}`;
/// a task that ends is published on the channel, in the same step.
pub(crate) fn advance() -> String {
    format!(
        "{CLEAR_INPUT}{}",
        r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return false end
local ranks = {working = 0, input_required = 1}
local cur = ranks[s] or 2
local rank = tonumber(ARGV[2])
local changed = 0
if cur < 2 and rank >= cur and ARGV[1] ~= s then
  changed = 1
  redis.call('HSET', KEYS[1], 's', ARGV[1], 'u', ARGV[3])
  if #ARGV > 5 then
    redis.call('HDEL', KEYS[1], 'ok', 'oc', 'os', 'oe', 'ec', 'em', 'ed')
    for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  end
  if rank == 2 then clear_input(KEYS[1]) end
end
local all = redis.call('HGETALL', KEYS[1])
if changed == 1 and rank == 2 then
  local c = tonumber(redis.call('HGET', KEYS[1], 'c'))
  local t = tonumber(redis.call('HGET', KEYS[1], 't'))
  redis.call('PEXPIREAT', KEYS[1], string.format('%d', c + t))
  redis.call('PUBLISH', ARGV[4], ARGV[5])
end
return {changed, all}
"
    )
}

/// `KEYS[1]` the task; `ARGV`: now, the call's frame, `1` and the state or `0` and nothing,
/// then the field and value of each answer of earlier rounds and each request. `false` for an unknown task, else its fields (a
/// terminal task is left as it is).
pub(crate) fn park() -> String {
    format!(
        "{CLEAR_INPUT}{}",
        r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return false end
if s ~= 'working' and s ~= 'input_required' then return redis.call('HGETALL', KEYS[1]) end
clear_input(KEYS[1])
redis.call('HSET', KEYS[1], 's', 'input_required', 'u', ARGV[1], 'pf', ARGV[2])
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'ps', ARGV[4]) end
local n = 0
for i = 5, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  if string.sub(ARGV[i], 1, 2) == 'i:' then n = n + 1 end
end
redis.call('HSET', KEYS[1], 'n', string.format('%d', n))
return redis.call('HGETALL', KEYS[1])
"
    )
}

/// `KEYS[1]` the task; `ARGV`: now, then each answer's key and response. `false` for an
/// unknown task; `{0}` while requests are left unanswered (or the task waits for none);
/// `{1, frame, state, key, answer, ...}` when the last one is answered, the task `working`
/// again.
pub(crate) const ANSWER: &str = r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return false end
if s ~= 'input_required' or redis.call('HEXISTS', KEYS[1], 'pf') == 0 then return {0} end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
for i = 2, #ARGV, 2 do
  local v = redis.call('HGET', KEYS[1], 'i:' .. ARGV[i])
  if v then
    redis.call('HDEL', KEYS[1], 'i:' .. ARGV[i])
    n = n - 1
    local order = string.match(v, '^(%d+)')
    redis.call('HSET', KEYS[1], 'r:' .. ARGV[i], order .. '\n' .. ARGV[i + 1])
  end
end
redis.call('HSET', KEYS[1], 'n', string.format('%d', n))
if n > 0 then return {0} end
local out = {1, redis.call('HGET', KEYS[1], 'pf'), redis.call('HGET', KEYS[1], 'ps') or ''}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(f, 1, 2) == 'r:' then
    table.insert(out, string.sub(f, 3))
    table.insert(out, redis.call('HGET', KEYS[1], f))
    redis.call('HDEL', KEYS[1], f)
  end
end
if redis.call('HEXISTS', KEYS[1], 'ps') == 0 then out[3] = '-' else out[3] = '+' .. out[3] end
redis.call('HDEL', KEYS[1], 'pf', 'ps', 'n')
redis.call('HSET', KEYS[1], 's', 'working', 'u', ARGV[1])
return out
";

/// `KEYS[1]` the order set; `ARGV`: first and last index, the task key prefix. `{count,
/// id, fields, id, fields, ...}`: the fields are empty for a task that expired.
pub(crate) const LIST: &str = r"
local out = {redis.call('ZCARD', KEYS[1])}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2])) do
  table.insert(out, id)
  table.insert(out, redis.call('HGETALL', ARGV[3] .. id))
end
return out
";

/// `KEYS[1]` the order set; `ARGV`: the task key prefix. Drops the ids of the oldest
/// thousand whose hash expired; how many went.
pub(crate) const EXPIRE: &str = r"
local gone = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, 999)) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then
    redis.call('ZREM', KEYS[1], id)
    gone = gone + 1
  end
end
return gone
";
