// `docgate mcp`: the agent tools over stdio, for an MCP client that starts docgate itself
// (a desktop agent on the machine that holds the database). Without --user every endpoint
// is a tool: whoever can open the database can read all of it anyway. With --user NAME that
// user's grants apply, as they would over HTTP (decision "MCP tools"). stdout carries the
// protocol only; nothing else may be printed there.
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { DEFAULT_TIME_LIMIT_MS, createExecutor } from '../app/create.js'
import { ENDPOINTS } from '../endpoints/index.js'
import type { Executor } from '../serving/executor.js'
import { errorText } from '../http/server.js'
import { changesFor } from '../endpoints/changes.js'
import { Generations } from '../serving/generations.js'
import { buildMcpServer } from '../mcp/server.js'
import { openReadOnly, resolveDb } from '../store/open.js'
import { normalizeName, listUsers } from '../users/store.js'

export async function mcp(flags: { db?: string; user?: string }): Promise<number> {
  const sql = await openReadOnly(resolveDb(flags.db), (err) => console.error(`docgate mcp: database connection lost: ${err.message}`))
  let executor: Executor | undefined
  try {
    let endpoints = ENDPOINTS
    if (flags.user !== undefined) {
      const name = normalizeName(flags.user)
      const user = (await listUsers(sql)).find((u) => u.name === name)
      if (!user) throw new Error(`no user named ${flags.user}`)
      endpoints = ENDPOINTS.filter((e) => user.methods.includes('*') || user.methods.includes(e.service))
    }
    executor = await createExecutor({ sql, timeLimitMs: DEFAULT_TIME_LIMIT_MS })
    const generations = new Generations(sql)
    const server = buildMcpServer(endpoints, {
      executor,
      now: () => new Date(),
      errorText,
      changes: changesFor(sql, () => generations.position()),
      // The log keeps what the tool's answer leaves out (a store's host and port, the driver's text).
      onError: (err, service) => console.error(`docgate mcp: ${service}: ${err instanceof Error ? err.message : String(err)}`),
    })
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve
      // The client ends the session by closing our stdin (or by a signal).
      process.stdin.once('end', resolve)
      process.once('SIGTERM', resolve)
      process.once('SIGINT', resolve)
    })
    await server.connect(new StdioServerTransport())
    await closed
    await server.close()
    return 0
  } finally {
    await executor?.close()
    await sql.close().catch(() => {})
  }
}
