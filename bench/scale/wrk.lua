-- bench:scale's wrk script. Always: `done` prints one machine-readable line (WRK_JSON …),
-- so bench/scale/wrk.ts reads figures without parsing wrk's human units.
-- With SCALE_PERIOD_PATH set: every request asks for a random period of SCALE_PERIOD_WIDTH + 1
-- days whose first day is SCALE_PERIOD_FIRST (epoch seconds, UTC midnight) plus 0 ..
-- SCALE_PERIOD_DAYS - 1 days, appended to that path as from=DD.MM.YYYY&to=DD.MM.YYYY.

local prefix = os.getenv("SCALE_PERIOD_PATH")
if prefix then
  local first = tonumber(os.getenv("SCALE_PERIOD_FIRST"))
  local days = tonumber(os.getenv("SCALE_PERIOD_DAYS"))
  local width = tonumber(os.getenv("SCALE_PERIOD_WIDTH"))

  function init(args)
    math.randomseed(os.time())
  end

  function request()
    local from = first + math.random(0, days - 1) * 86400
    local to = from + width * 86400
    return wrk.format(nil, prefix .. "from=" .. os.date("!%d.%m.%Y", from) .. "&to=" .. os.date("!%d.%m.%Y", to))
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"status":%.0f,"timeout":%.0f,"p50Us":%.0f,"p99Us":%.0f,"maxUs":%.0f}\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
