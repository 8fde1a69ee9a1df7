/**
 * The client address as the throttle sees it.
 *
 * One IPv6 host usually owns a whole /64, so keying the per-address lock by the full IPv6
 * address would give an attacker 2^64 fresh counters for free; the /64 prefix is the unit
 * of ownership. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, what a dual-stack socket
 * reports) is the IPv4 client it stands for.
 */
import { isIPv4, isIPv6 } from 'node:net'

const MAPPED_IPV4 = '::ffff:'

export function throttleAddress(ip: string): string {
  const address = ip.toLowerCase().split('%')[0] ?? '' // drop an IPv6 zone id
  if (address.startsWith(MAPPED_IPV4) && isIPv4(address.slice(MAPPED_IPV4.length))) {
    return address.slice(MAPPED_IPV4.length)
  }
  if (!isIPv6(address)) return ip
  return `${expandIPv6(address).slice(0, 4).join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address, as lower-case hex without leading zeros. */
function expandIPv6(address: string): string[] {
  const groups = (part: string): string[] =>
    part === '' ? [] : part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group]))
  const gap = address.indexOf('::')
  const head = groups(gap < 0 ? address : address.slice(0, gap))
  const tail = gap < 0 ? [] : groups(address.slice(gap + 2))
  const zeros = new Array<string>(8 - head.length - tail.length).fill('0')
  return [...head, ...zeros, ...tail].map((group) => parseInt(group, 16).toString(16))
}
