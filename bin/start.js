#!/usr/bin/env node
// `npm start`: serve the default database; on first start, create it with demo data and
// a demo user, and print how to call the API.
import { existsSync } from 'node:fs'
import { openWritable } from '../dist/src/app/store.js'
import { resolveDb } from '../dist/src/store/open.js'
import { prepareDemo, startHints } from '../dist/src/cli/start.js'
import { run } from '../dist/src/cli/main.js'

const db = resolveDb(undefined)
if (!existsSync(db)) await prepareDemo(db)
// A store made by an earlier version gains what this one serves from (e.g. trigram tables):
// the server opens it read-only and cannot migrate it itself.
else await (await openWritable(db)).close()
const port = process.env.PORT ?? '8080'
for (const line of startHints(port)) console.log(line)
await run(['serve', '--db', db, '--port', port], 'PORT=N npm start')
