-- The APQ register-then-hit flow.
-- Usage: wrk -tT -cC ... -s bench/lua/apq.lua URL -- DOCS_FILE T
-- DOCS_FILE has one line per connection: "<registration POST body>\t<hashed GET path>", each
-- line a distinct document (same query, a different alias). wrk has no per-connection hook,
-- so each thread owns C/T lines and sends, in order: one registration POST per line (the
-- first request of each of its connections), then hashed GETs cycling over its documents.
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
end

local registrations, gets = {}, {}
local sent = 0

function init(args)
  local threads = tonumber(args[2] or "1")
  local index = 0
  for line in io.lines(args[1]) do
    local body, path = line:match("^(.-)\t(.*)$")
    if body and index % threads == tid then
      registrations[#registrations + 1] =
        wrk.format("POST", nil, { ["Content-Type"] = "application/json" }, body)
      gets[#gets + 1] = wrk.format("GET", path)
    end
    index = index + 1
  end
  assert(#gets > 0, "no documents for thread " .. tostring(tid))
  -- wrk calls request() once on the first thread to check the request before connecting,
  -- and that request is never sent: lead with a spare copy of the first registration
  -- (registering a document twice is harmless) so that every document is registered.
  table.insert(registrations, 1, registrations[1])
end

function request()
  sent = sent + 1
  if sent <= #registrations then return registrations[sent] end
  return gets[(sent - 1) % #gets + 1]
end
