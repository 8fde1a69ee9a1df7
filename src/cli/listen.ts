// A listener that cannot bind ends its command at once with one line: where, why, and the
// flag that chooses another (a port in use is the usual first-hour failure).

const REASONS: Record<string, string> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'permission denied',
  EADDRNOTAVAIL: 'the address is not on this machine',
  ENOTFOUND: 'the host name does not resolve',
}

export class ListenError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly reason: string,
    /** The flag that chooses another, as the user gave the first: `--port`, `--admin-port`. */
    readonly flag: string,
  ) {
    super(`cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${reason} (choose another with ${flag})`)
  }

  /** The same failure, advising another way to choose (npm start takes PORT, not --port). */
  advise(flag: string): ListenError {
    return new ListenError(this.host, this.port, this.reason, flag)
  }
}

/** `err` from listen(host, port) as a ListenError; an address problem is the host flag's. */
export function listenError(err: unknown, host: string, port: number, flags: { port: string; host: string }): ListenError {
  const code = (err as NodeJS.ErrnoException).code ?? ''
  const reason = REASONS[code] ?? (err instanceof Error ? err.message : String(err))
  return new ListenError(host, port, reason, code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' ? flags.host : flags.port)
}
