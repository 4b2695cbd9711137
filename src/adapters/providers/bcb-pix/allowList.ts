import { BlockList, isIP } from "node:net"
import { Either } from "effect"

/**
 * The addresses the URL-secret receiver takes notices from (PIX_WEBHOOK_ALLOWED_IPS, docs/providers.md "The
 * receiver"): exact addresses or ranges in CIDR notation, IPv4 or IPv6, comma-separated. PSPs publish the
 * ranges they notify from, which a list of exact addresses could only follow by hand. An IPv4 caller on a
 * dual-stack socket (`::ffff:1.2.3.4`) is its IPv4 address. Anything that is not an address or a range is
 * refused at start, naming the entry: an allow-list that silently dropped an entry would refuse a PSP's
 * notices, and one that read a typo as "any" would take anyone's.
 */
export interface AllowList {
  readonly allows: (address: string | undefined) => boolean
}

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4")

export const parseAllowList = (text: string): Either.Either<AllowList, string> => {
  const list = new BlockList()
  for (const entry of text
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "")) {
    const [address = "", prefix, ...rest] = entry.split("/")
    const version = isIP(address)
    const bits = version === 6 ? 128 : 32
    if (version === 0 || rest.length > 0) return Either.left(`"${entry}" is not an IP address or a CIDR range`)
    if (prefix === undefined) list.addAddress(address, family(address))
    else if (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits)
      list.addSubnet(address, Number(prefix), family(address))
    else return Either.left(`"${entry}": the prefix must be 0 to ${bits}`)
  }
  return Either.right({
    allows: (raw) => {
      const address = (raw ?? "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "")
      return isIP(address) !== 0 && list.check(address, family(address))
    }
  })
}
