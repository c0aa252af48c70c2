-- Pipelined GETs: DEPTH requests written at once on each connection, then DEPTH answers read.
-- Usage: wrk ... -s bench/lua/pipeline.lua URL -- DEPTH PATH
local batch

function init(args)
  local depth = tonumber(args[1] or "16")
  local requests = {}
  for i = 1, depth do requests[i] = wrk.format("GET", args[2]) end
  batch = table.concat(requests)
end

function request()
  return batch
end
