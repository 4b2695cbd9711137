import { BlockList, isIP } from "node:net"
import { Config, ConfigError, Either } from "effect"

/**
 * A list of network addresses: exact addresses or ranges in CIDR notation, IPv4 or IPv6, comma-separated.
 * Used for the addresses the PIX receiver takes notices from (PIX_WEBHOOK_ALLOWED_IPS, docs/providers.md
 * "The receiver": PSPs publish the ranges they notify from) and for the proxies whose forwarding header is
 * believed (TRUSTED_PROXIES, docs/configuration.md "Client addresses"). An IPv4 caller on a dual-stack
 * socket (`::ffff:1.2.3.4`) is its IPv4 address. Anything that is not an address or a range is refused at
 * start, naming the entry: a list that silently dropped an entry would refuse a PSP's notices, and one that
 * read a typo as "any" would take anyone's.
 */
export interface AddressList {
  readonly includes: (address: string | undefined) => boolean
}

/**
 * FORWARDED_HEADER: the one header the trusted proxies write (docs/configuration.md "Client addresses"),
 * X-Forwarded-For or RFC 7239 `Forwarded`; only that one is read (src/http/shared/forwarded.ts).
 */
export type ForwardedHeader = "x-forwarded-for" | "forwarded"

/** `::ffff:1.2.3.4`, an IPv4 caller on a dual-stack socket, is 1.2.3.4; anything else as it is. */
export const plainAddress = (raw: string | undefined) =>
  (raw ?? "").trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "")

const family = (address: string) => (isIP(address) === 6 ? "ipv6" : "ipv4")

export const parseAddressList = (text: string): Either.Either<AddressList, string> => {
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
    includes: (raw) => {
      const address = plainAddress(raw)
      return isIP(address) !== 0 && list.check(address, family(address))
    }
  })
}

/** The variable `name` as an address list: empty when unset; a bad entry stops the start, naming both. */
export const addressListConfig = (name: string) =>
  Config.string(name).pipe(
    Config.withDefault(""),
    Config.mapOrFail((text) =>
      Either.mapLeft(parseAddressList(text), (problem) => ConfigError.InvalidData([], `${name}: ${problem}`))
    )
  )
