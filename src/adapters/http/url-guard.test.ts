import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { checkWebhookUrl, isPublicAddress, type Resolver } from "./url-guard.ts"

const NON_PUBLIC = [
  // IPv4
  "127.0.0.1",
  "127.255.255.254",
  "0.0.0.0",
  "0.1.2.3",
  "10.0.0.1",
  "10.255.255.255",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "169.254.0.1",
  "100.64.0.1",
  "100.127.255.255",
  "224.0.0.1",
  "239.255.255.250",
  "240.0.0.1",
  "255.255.255.255",
  "192.0.0.8",
  "192.0.2.10",
  "198.51.100.7",
  "203.0.113.9",
  "198.18.0.1",
  "198.19.255.255",
  "192.88.99.1",
  // IPv6
  "::1",
  "::",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fe80::1%eth0",
  "febf::1",
  "fec0::1",
  "ff02::1",
  "::ffff:127.0.0.1",
  "::ffff:7f00:1",
  "::ffff:10.0.0.1",
  "::ffff:169.254.169.254",
  "::ffff:0.0.0.0",
  "::ffff:a9fe:a9fe",
  "0:0:0:0:0:ffff:c0a8:0101",
  "64:ff9b::10.0.0.1",
  "64:ff9b::7f00:1",
  "::127.0.0.1",
  "::ffff:0:127.0.0.1",
  "64:ff9b:1::1",
  "100::1",
  "2001:db8::1",
  "2001::1",
  "2001:2::1",
  "2002:7f00:1::1",
  "3fff::1",
  // not an address at all
  "localhost",
  "",
  "1.2.3",
  "example.com"
]

const PUBLIC = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "172.15.255.255",
  "172.32.0.1",
  "100.63.255.255",
  "100.128.0.1",
  "169.253.255.255",
  "192.167.1.1",
  "198.17.255.255",
  "198.20.0.1",
  "223.255.255.255",
  "11.0.0.1",
  "2606:4700:4700::1111",
  "2a00:1450:4001:82b::200e",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8",
  "::ffff:808:808",
  "64:ff9b::8.8.8.8"
]

describe("isPublicAddress", () => {
  it.each(NON_PUBLIC)("refuses %s", (address) => expect(isPublicAddress(address)).toBe(false))
  it.each(PUBLIC)("allows %s", (address) => expect(isPublicAddress(address)).toBe(true))
})

const fakeDns =
  (table: Record<string, ReadonlyArray<string>>): Resolver =>
  async (host) => {
    const addresses = table[host]
    if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" })
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }

const reasonFor = (url: string, allowPrivate: boolean, resolver?: Resolver) =>
  checkWebhookUrl(url, resolver ? { allowPrivate, resolver } : { allowPrivate }).pipe(
    Effect.either,
    Effect.map(Either.match({ onLeft: (e) => e.reason, onRight: () => "ok" }))
  )

describe("checkWebhookUrl", () => {
  const dns = fakeDns({
    "hooks.example.com": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
    "mixed.example.com": ["93.184.216.34", "10.0.0.5"],
    "rebind.example.com": ["::ffff:127.0.0.1"],
    "empty.example.com": []
  })

  it.effect("accepts a public https url and returns every resolved address", () =>
    Effect.gen(function* () {
      const target = yield* checkWebhookUrl("https://hooks.example.com:8443/h?x=1", {
        allowPrivate: false,
        resolver: dns
      })
      expect(target.hostname).toBe("hooks.example.com")
      expect(target.url.pathname + target.url.search).toBe("/h?x=1")
      expect(target.addresses).toEqual([
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 }
      ])
    })
  )

  it.effect.each([
    ["not a url", "url is not a valid absolute URL"],
    ["/relative", "url is not a valid absolute URL"],
    ["http://hooks.example.com/", "url must use https"],
    ["ftp://hooks.example.com/", "url must use https"],
    ["file:///etc/passwd", "url must use https"],
    ["javascript:alert(1)", "url must use https"],
    ["https://user:pw@hooks.example.com/", "url must not contain credentials"],
    ["https://user@hooks.example.com/", "url must not contain credentials"],
    ["https://mixed.example.com/", "url resolves to a private or reserved address (10.0.0.5)"],
    ["https://rebind.example.com/", "url resolves to a private or reserved address (::ffff:127.0.0.1)"],
    ["https://nowhere.example.com/", "url host could not be resolved (ENOTFOUND)"],
    ["https://empty.example.com/", "url host did not resolve to any address"]
  ] as const)("refuses %s", ([url, reason]) => Effect.map(reasonFor(url, false, dns), (r) => expect(r).toBe(reason)))

  // Literals go through the real resolver (no network needed) and the URL parser's normalisation.
  it.effect.each([
    ["https://127.0.0.1/", "127.0.0.1"],
    ["https://0x7f.1/", "127.0.0.1"],
    ["https://2130706433/", "127.0.0.1"],
    ["https://169.254.169.254/latest/meta-data", "169.254.169.254"],
    ["https://[::1]/", "::1"],
    ["https://[::ffff:127.0.0.1]/", "::ffff:7f00:1"],
    ["https://[fd00::1]/", "fd00::1"],
    ["https://0.0.0.0/", "0.0.0.0"],
    ["https://localhost/", undefined]
  ] as const)("refuses the literal %s", ([url, address]) =>
    Effect.map(reasonFor(url, false), (r) =>
      expect(r).toMatch(address ? `private or reserved address (${address})` : "private or reserved address")
    )
  )

  it.effect("allowPrivate permits http and private addresses (local development)", () =>
    Effect.gen(function* () {
      expect(yield* reasonFor("http://127.0.0.1:8080/", true)).toBe("ok")
      expect(yield* reasonFor("https://mixed.example.com/", true, dns)).toBe("ok")
      // ...but never other schemes or credentials.
      expect(yield* reasonFor("ftp://127.0.0.1/", true)).toBe("url must use https")
      expect(yield* reasonFor("http://a:b@127.0.0.1/", true)).toBe("url must not contain credentials")
    })
  )
})
