/** A command used wrongly: exits 2 (cli.md), where other failures exit 1. */
export class UsageError extends Error {}
