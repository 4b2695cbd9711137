import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { Effect } from "effect"

/**
 * SSRF guard for merchant-supplied webhook URLs. The gateway runs inside a private
 * network (database, metadata service, admin ports), so a URL is only acceptable if
 * EVERY address its host resolves to is publicly routable. The resolved addresses are
 * returned so the sender connects to exactly them (no second DNS lookup that a
 * rebinding attacker could answer differently).
 */

import { WebhookUrlRefused } from "../../ports/WebhookSender.ts"
export { WebhookUrlRefused }

export interface ResolvedAddress {
  readonly address: string
  readonly family: 4 | 6
}

export interface ResolvedTarget {
  readonly url: URL
  /** Host without IPv6 brackets: what TLS verifies and what the DNS lookup used. */
  readonly hostname: string
  /** Every address the host resolved to, all of which passed the check (never empty). */
  readonly addresses: ReadonlyArray<ResolvedAddress>
}

/** Resolves a host to all its addresses. Injectable so tests can simulate DNS. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))

export interface UrlGuardOptions {
  /** Local development and tests only: allows http and any address. */
  readonly allowPrivate: boolean
  readonly resolver?: Resolver
}

const refuse = (reason: string) => Effect.fail(new WebhookUrlRefused({ reason }))

export const checkWebhookUrl = (
  raw: string,
  options: UrlGuardOptions
): Effect.Effect<ResolvedTarget, WebhookUrlRefused> =>
  Effect.gen(function* () {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return yield* refuse("url is not a valid absolute URL")
    }
    if (url.protocol !== "https:" && !(options.allowPrivate && url.protocol === "http:")) {
      return yield* refuse("url must use https")
    }
    if (url.username !== "" || url.password !== "") return yield* refuse("url must not contain credentials")
    const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
    const resolve = options.resolver ?? systemResolver
    const addresses = yield* Effect.tryPromise({
      try: () => resolve(hostname),
      catch: (e) => new WebhookUrlRefused({ reason: `url host could not be resolved (${errorCode(e)})` })
    })
    if (addresses.length === 0) return yield* refuse("url host did not resolve to any address")
    if (!options.allowPrivate) {
      const bad = addresses.find((a) => !isPublicAddress(a.address))
      if (bad) return yield* refuse(`url resolves to a private or reserved address (${bad.address})`)
    }
    return { url, hostname, addresses }
  })

export const errorCode = (e: unknown): string =>
  typeof e === "object" && e !== null && "code" in e && typeof e.code === "string"
    ? e.code
    : e instanceof Error
      ? e.message
      : String(e)

// ---- address classification (IANA special-purpose registries) ----

type Bytes = ReadonlyArray<number>

const v4Bytes = (s: string): Bytes => s.split(".").map(Number)

const v6Bytes = (s: string): Bytes => {
  let text = s
  const lastColon = text.lastIndexOf(":")
  if (text.includes(".", lastColon)) {
    // Dotted IPv4 tail (e.g. ::ffff:127.0.0.1) becomes two hex groups.
    const [a = 0, b = 0, c = 0, d = 0] = v4Bytes(text.slice(lastColon + 1))
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const headGroups = head === "" ? [] : head.split(":")
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":")
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill("0"), ...tailGroups]
  return groups.flatMap((g) => {
    const n = parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
}

interface Cidr {
  readonly bytes: Bytes
  readonly bits: number
}

const cidr = (text: string): Cidr => {
  const [addr = "", bits = ""] = text.split("/")
  return { bytes: isIP(addr) === 4 ? v4Bytes(addr) : v6Bytes(addr), bits: Number(bits) }
}

const inCidr = (bytes: Bytes, { bytes: net, bits }: Cidr): boolean => {
  for (let i = 0; i < bits; i += 8) {
    const mask = (0xff << (8 - Math.min(8, bits - i))) & 0xff
    if (((bytes[i / 8] ?? 0) & mask) !== ((net[i / 8] ?? 0) & mask)) return false
  }
  return true
}

const NON_PUBLIC_V4 = [
  "0.0.0.0/8", // "this network", includes the unspecified 0.0.0.0
  "10.0.0.0/8",
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8",
  "169.254.0.0/16", // link-local, includes cloud metadata 169.254.169.254
  "172.16.0.0/12",
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // TEST-NET-1
  "192.88.99.0/24", // deprecated 6to4 relay anycast
  "192.168.0.0/16",
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // TEST-NET-2
  "203.0.113.0/24", // TEST-NET-3
  "224.0.0.0/4", // multicast
  "240.0.0.0/4" // reserved, includes broadcast 255.255.255.255
].map(cidr)

// IPv6 forms that carry an IPv4 address which is what actually gets reached.
const EMBEDS_V4 = ["::ffff:0:0/96", "64:ff9b::/96"].map(cidr) // IPv4-mapped, NAT64 well-known prefix

// Allow-list for IPv6: only global unicast 2000::/3 (rules out ::, ::1, fc00::/7, fe80::/10,
// ff00::/8, deprecated IPv4-compatible and site-local), minus its special-purpose blocks.
const GLOBAL_UNICAST_V6 = cidr("2000::/3")
const NON_PUBLIC_V6 = [
  "2001::/23", // IETF protocol assignments: Teredo, benchmarking 2001:2::/48, ORCHID
  "2001:db8::/32", // documentation
  "2002::/16", // 6to4: tunnels to an embedded IPv4
  "3fff::/20" // documentation (RFC 9637)
].map(cidr)

/** True only for unicast addresses routable on the public internet. Non-IP input is not public. */
export const isPublicAddress = (address: string): boolean => {
  const bare = address.split("%")[0] ?? "" // drop an IPv6 zone id (fe80::1%eth0)
  switch (isIP(bare)) {
    case 4:
      return !NON_PUBLIC_V4.some((r) => inCidr(v4Bytes(bare), r))
    case 6: {
      const bytes = v6Bytes(bare)
      if (EMBEDS_V4.some((r) => inCidr(bytes, r))) return !NON_PUBLIC_V4.some((r) => inCidr(bytes.slice(12), r))
      return inCidr(bytes, GLOBAL_UNICAST_V6) && !NON_PUBLIC_V6.some((r) => inCidr(bytes, r))
    }
    default:
      return false
  }
}
