import { Either } from "effect"
import fc from "fast-check"
import { isIP } from "node:net"
import { describe, expect, it } from "vitest"
import { type ForwardedHeader, parseAddressList } from "../../config/addressList.ts"
import { clientAddress } from "./clientAddress.ts"
import { hopsOf } from "./forwarded.ts"

const proxies = Either.getOrThrow(parseAddressList("10.0.0.0/8, 2001:db8::1"))

describe("RFC 7239 Forwarded (FORWARDED_HEADER=forwarded)", () => {
  it("names each element's `for` node, nearest proxy last, ports and brackets dropped", () => {
    // RFC 7239 §4 and §7.4's examples.
    expect(hopsOf("forwarded", 'for="_gazonk"')).toEqual(["_gazonk"])
    expect(hopsOf("forwarded", 'For="[2001:db8:cafe::17]:4711"')).toEqual(["2001:db8:cafe::17"])
    expect(hopsOf("forwarded", "for=192.0.2.60;proto=http;by=203.0.113.43")).toEqual(["192.0.2.60"])
    expect(hopsOf("forwarded", "for=192.0.2.43, for=198.51.100.17")).toEqual(["192.0.2.43", "198.51.100.17"])
    expect(hopsOf("forwarded", 'for="192.0.2.43:47011"')).toEqual(["192.0.2.43"])
    expect(hopsOf("forwarded", 'for="[2001:db8::17]"')).toEqual(["2001:db8::17"])
    // Case-insensitive names, spaces around the pairs, a quoted value holding the separators.
    expect(hopsOf("forwarded", ' proto=https ; FOR = 192.0.2.1 ;by="a,b;c"')).toEqual(["192.0.2.1"])
  })

  it("a hop it cannot name (no `for`, unknown, obfuscated) stays a hop that is not an address", () => {
    expect(hopsOf("forwarded", "proto=https, for=192.0.2.1")).toEqual(["unknown", "192.0.2.1"])
    expect(hopsOf("forwarded", "for=unknown")).toEqual(["unknown"])
    expect(hopsOf("forwarded", "garbage")).toEqual(["unknown"])
    expect(hopsOf("forwarded", undefined)).toEqual([])
    expect(hopsOf("forwarded", " , ")).toEqual([])
  })

  it("walks from the nearest proxy back, past trusted ones, as X-Forwarded-For is walked", () => {
    const read = (socket: string, header: string | undefined) => clientAddress(socket, header, proxies, "forwarded")
    expect(read("10.0.0.5", "for=198.51.100.7")).toBe("198.51.100.7")
    expect(read("10.0.0.5", 'for=198.51.100.7, for="10.2.3.4:80"')).toBe("198.51.100.7")
    expect(read("2001:db8::1", 'for="[2001:db8:1::7]:443"')).toBe("2001:db8:1::7")
    // What the client wrote before the element our proxy appended is never believed.
    expect(read("10.0.0.5", "for=1.2.3.4, for=198.51.100.7")).toBe("198.51.100.7")
    // A hop that cannot be named ends the walk at the last one known.
    expect(read("10.0.0.5", 'for=198.51.100.7, for="_hidden"')).toBe("10.0.0.5")
    expect(read("10.0.0.5", "for=198.51.100.7, proto=https")).toBe("10.0.0.5")
    // The socket's peer when it is no trusted proxy, whatever the header says.
    expect(read("203.0.113.9", "for=198.51.100.7")).toBe("203.0.113.9")
  })

  it("X-Forwarded-For mode reads that header's list as before", () => {
    expect(hopsOf("x-forwarded-for", " 198.51.100.7 , ,10.2.3.4")).toEqual(["198.51.100.7", "10.2.3.4"])
    expect(hopsOf("x-forwarded-for", undefined)).toEqual([])
  })

  it("any header a client can send: never a throw, and the answer is the socket's peer or an address it names", () => {
    const piece = fc.constantFrom("for=", "For=", '"', "\\", ",", ";", "[", "]", ":", "=", " ", "_x", "unknown", "::1")
    const header = fc.oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc
        .array(fc.oneof(piece, fc.ipV4(), fc.ipV6(), fc.nat({ max: 65_535 }).map(String)), { maxLength: 12 })
        .map((parts) => parts.join(""))
    )
    fc.assert(
      fc.property(
        header,
        fc.constantFrom("x-forwarded-for", "forwarded") as fc.Arbitrary<ForwardedHeader>,
        (h, kind) => {
          const hops = hopsOf(kind, h)
          const found = clientAddress("10.0.0.5", h, proxies, kind)
          return hops.every((hop) => typeof hop === "string") && found !== undefined && isIP(found) !== 0
        }
      ),
      { numRuns: 2_000 }
    )
  })
})
