-- GCRA (the generic cell rate algorithm) for one caller, atomically: Redis runs a script
-- to completion before any other command, so replicas sharing this key share one budget.
--
-- KEYS[1]  the caller's key; its value is the theoretical arrival time (TAT), in
--          microseconds of the Redis server's clock (one clock for every replica)
-- ARGV[1]  the emission interval T: microseconds between two requests at the rate
-- ARGV[2]  the burst B: requests admitted at once by a caller that was idle
--
-- Returns {1, 0} when admitted (and stores the new TAT, expiring when it is reached, so
-- an idle caller's key disappears), else {0, microseconds until one request is admitted}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or '') or now
if tat < now then
  tat = now
end
local new_tat = tat + interval
local allow_at = new_tat - interval * burst
if now < allow_at then
  return {0, allow_at - now}
end
-- '%.0f': microseconds since the epoch need 16 digits; Lua's default number format
-- would write 14 significant ones.
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX',
  string.format('%.0f', math.ceil((new_tat - now) / 1000)))
return {1, 0}
