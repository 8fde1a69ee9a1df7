declare module 'autocannon' {
  interface Options {
    url: string
    connections?: number
    duration?: number
    /** Stop after this many requests (instead of a duration). */
    amount?: number
    pipelining?: number
    headers?: Record<string, string>
  }
  interface Histogram {
    average: number
    p50: number
    p99: number
    max: number
  }
  interface Result {
    requests: Histogram & { total: number }
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    non2xx: number
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}
