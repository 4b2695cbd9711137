import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAddressList } from "../../config/addressList.ts"
import { clientAddress } from "./clientAddress.ts"

const list = (text: string) => Either.getOrThrow(parseAddressList(text))

describe("the client's address", () => {
  const proxies = list("10.0.0.0/8, 2001:db8::1")

  it("is the socket's peer when no proxy is trusted, whatever X-Forwarded-For claims", () => {
    expect(clientAddress("203.0.113.9", "198.51.100.1", list(""))).toBe("203.0.113.9")
    expect(clientAddress("::ffff:203.0.113.9", undefined, list(""))).toBe("203.0.113.9")
    expect(clientAddress("10.1.1.1", "198.51.100.1", list(""))).toBe("10.1.1.1")
  })

  it("behind trusted proxies, is the first address from the end that is not one of them", () => {
    expect(clientAddress("10.0.0.5", "198.51.100.7", proxies)).toBe("198.51.100.7")
    // Two proxies of ours: the load balancer, then an ingress.
    expect(clientAddress("10.0.0.5", "198.51.100.7, 10.2.3.4", proxies)).toBe("198.51.100.7")
    expect(clientAddress("2001:db8::1", "2001:db8:1::7", proxies)).toBe("2001:db8:1::7")
    expect(clientAddress("::ffff:10.0.0.5", "::ffff:198.51.100.7", proxies)).toBe("198.51.100.7")
  })

  it("never believes what the client wrote before the address our proxy saw", () => {
    // The client sent "X-Forwarded-For: 1.2.3.4"; our proxy appended the address it saw.
    expect(clientAddress("10.0.0.5", "1.2.3.4, 198.51.100.7", proxies)).toBe("198.51.100.7")
    // A client claiming to be one of our proxies is still the address our proxy saw.
    expect(clientAddress("10.0.0.5", "10.9.9.9, 198.51.100.7", proxies)).toBe("198.51.100.7")
  })

  it("is a trusted proxy's own address when the header is missing, empty or not an address", () => {
    expect(clientAddress("10.0.0.5", undefined, proxies)).toBe("10.0.0.5")
    expect(clientAddress("10.0.0.5", " , ", proxies)).toBe("10.0.0.5")
    expect(clientAddress("10.0.0.5", "unknown", proxies)).toBe("10.0.0.5")
    expect(clientAddress("10.0.0.5", "198.51.100.7, garbage", proxies)).toBe("10.0.0.5")
    // Every hop a trusted proxy: the farthest one known.
    expect(clientAddress("10.0.0.5", "10.0.0.9, 10.0.0.8", proxies)).toBe("10.0.0.9")
  })

  it("is unknown without a socket address", () => {
    expect(clientAddress(undefined, "198.51.100.7", proxies)).toBeUndefined()
  })
})
