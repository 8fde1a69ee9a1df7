// Stopping an HTTP/1.1 server under keep-alive load without resetting a client.
//
// Node's close() destroys every connection with no request in progress. Under load that
// includes connections whose client has already sent its next request, or is about to: a
// client reads a keep-alive answer and reuses the connection when it is ready, and finds it
// reset. So instead the listener alone is closed (new connections are refused), every
// answer carries `Connection: close` (server.ts, while draining), and each open connection
// ends on its own: after its next answer, or at the keep-alive (5 s) or header (10 s)
// timeout if its client never sends again. serve.ts cuts what is left after its grace period.
import net from 'node:net'
import type { Server } from 'node:http'

export class ConnectionDrainer {
  readonly #server: Server
  readonly #connections = new Set<net.Socket>()
  #drained: (() => void) | undefined

  constructor(server: Server) {
    this.#server = server
    server.on('connection', (socket: net.Socket) => {
      this.#connections.add(socket)
      socket.once('close', () => {
        this.#connections.delete(socket)
        if (this.#connections.size === 0) this.#drained?.()
      })
    })
  }

  get size(): number {
    return this.#connections.size
  }

  /** Stops accepting connections; resolves when every open one has ended. */
  drain(): Promise<void> {
    // net's close stops the listener without http's destroying of idle connections.
    if (this.#server.listening) net.Server.prototype.close.call(this.#server)
    return new Promise((resolve) => {
      if (this.#connections.size === 0) return resolve()
      this.#drained = resolve
    })
  }
}
