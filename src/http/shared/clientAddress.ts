import { isIP } from "node:net"
import { type AddressList, type ForwardedHeader, plainAddress } from "../../config/addressList.ts"
import { hopsOf } from "./forwarded.ts"

/**
 * The client's address as the service can know it (docs/configuration.md "Client addresses"): the socket's
 * peer, unless that peer is one of TRUSTED_PROXIES. Then the header they write (FORWARDED_HEADER: X-Forwarded-For
 * by default, or RFC 7239 `Forwarded`) is read from its end (what the nearest proxy saw) towards its start, past
 * every trusted proxy, and the first address that is not one is the client's. What comes before it is what the
 * client itself wrote, never believed: a client cannot choose its address by sending the header. An entry that
 * is not an address ends the walk at the last hop known (a proxy's, shared by whoever is behind it). Undefined
 * when the socket has no address.
 */
export const clientAddress = (
  socket: string | undefined,
  forwarded: string | undefined,
  trusted: AddressList,
  header: ForwardedHeader = "x-forwarded-for"
): string | undefined => {
  let current = plainAddress(socket)
  if (isIP(current) === 0) return undefined
  const hops = hopsOf(header, forwarded).map(plainAddress)
  while (trusted.includes(current) && hops.length > 0) {
    const next = hops.pop()!
    if (isIP(next) === 0) break
    current = next
  }
  return current
}
