import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAddressList } from "./addressList.ts"

const allows = (text: string) => {
  const parsed = parseAddressList(text)
  if (Either.isLeft(parsed)) throw new Error(parsed.left)
  return parsed.right.includes
}

describe("an address list (addresses and CIDR ranges)", () => {
  it("takes exact addresses and CIDR ranges, IPv4 and IPv6, and nothing else", () => {
    const ok = allows(" 10.0.0.1, 192.168.4.0/22, 2001:db8::/32, ::1 ")
    expect(ok("10.0.0.1")).toBe(true)
    expect(ok("10.0.0.2")).toBe(false)
    // 192.168.4.0/22 is 192.168.4.0 to 192.168.7.255.
    expect(ok("192.168.4.0")).toBe(true)
    expect(ok("192.168.7.255")).toBe(true)
    expect(ok("192.168.3.255")).toBe(false)
    expect(ok("192.168.8.0")).toBe(false)
    expect(ok("2001:db8:ffff::1")).toBe(true)
    expect(ok("2001:db9::1")).toBe(false)
    expect(ok("::1")).toBe(true)
    expect(ok(undefined)).toBe(false)
    expect(ok("")).toBe(false)
    expect(ok("not an address")).toBe(false)
  })

  it("reads an IPv4 caller on a dual-stack socket as its IPv4 address", () => {
    const ok = allows("10.0.0.0/8")
    expect(ok("::ffff:10.20.30.40")).toBe(true)
    expect(ok("::FFFF:10.20.30.40")).toBe(true)
    expect(ok("::ffff:11.0.0.1")).toBe(false)
  })

  it("an empty list allows no one", () => {
    expect(allows("")("127.0.0.1")).toBe(false)
    expect(allows(" , ")("127.0.0.1")).toBe(false)
  })

  it("refuses at start what is neither an address nor a range, naming it", () => {
    for (const [text, named] of [
      ["10.0.0.1, 10.0.0", '"10.0.0"'],
      ["10.0.0.0/33", '"10.0.0.0/33"'],
      ["2001:db8::/129", '"2001:db8::/129"'],
      ["10.0.0.0/", '"10.0.0.0/"'],
      ["10.0.0.0/8/8", '"10.0.0.0/8/8"'],
      ["*", '"*"'],
      ["10.0.0.0/-1", '"10.0.0.0/-1"']
    ] as const) {
      const parsed = parseAddressList(text)
      expect(Either.isLeft(parsed) && parsed.left, text).toContain(named)
    }
  })
})
