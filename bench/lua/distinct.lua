-- POSTs of one document with a distinct variable per request: every request is a new cache key.
-- Usage: wrk -tT ... -s bench/lua/distinct.lua URL -- TEMPLATE_FILE LIMIT T
-- TEMPLATE_FILE holds the JSON body with @ID@ where the distinct id goes. Thread t of T sends
-- ids t, t+T, t+2T, ... below LIMIT; past LIMIT it stops (LIMIT 0: never stops, for churn).
-- wrk keeps running until its -d is over, so the caller stops it once the cache is full.
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local prefix, suffix, limit, step, id

function init(args)
  local file = assert(io.open(args[1], "rb"), "cannot open template " .. tostring(args[1]))
  local template = file:read("*a")
  file:close()
  local at = assert(template:find("@ID@", 1, true), "no @ID@ in the template")
  prefix, suffix = template:sub(1, at - 1), template:sub(at + 4)
  limit = tonumber(args[2] or "0")
  step = tonumber(args[3] or "1")
  id = tid
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local this = id
  id = id + step
  if limit > 0 and this >= limit then
    wrk.thread:stop()
    this = this % limit
  end
  return wrk.format(nil, nil, nil, prefix .. this .. suffix)
end
