import type { ForwardedHeader } from "../../config/addressList.ts"

// The hops a proxy header names, nearest last, as `clientAddress` walks them (docs/configuration.md "Client
// addresses"). FORWARDED_HEADER says which header the trusted proxies write; only that one is read, since a
// client could write the other one unchallenged.

/** Splits `text` on `separator` outside quoted strings (RFC 7230 §3.2.6: `"…"` with `\` escapes). */
const splitOutsideQuotes = (text: string, separator: string): Array<string> => {
  const parts: Array<string> = []
  let current = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === "\\" && i + 1 < text.length) {
      current += c + text[++i]
      continue
    }
    if (c === '"') quoted = !quoted
    if (c === separator && !quoted) {
      parts.push(current)
      current = ""
    } else current += c
  }
  parts.push(current)
  return parts
}

const unquote = (value: string) =>
  value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, "$1") : value

/**
 * A `for` node of RFC 7239 §6 as an address: `192.0.2.43`, `"192.0.2.43:47011"`, `"[2001:db8::17]:4711"`
 * lose their port and brackets. `unknown`, an obfuscated `_name` or anything else stays as written: not an
 * address, it ends the walk at the last hop known.
 */
const nodeAddress = (node: string) => {
  const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(node)
  if (bracketed) return bracketed[1]!
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(node)
  return withPort ? withPort[1]! : node
}

/**
 * RFC 7239 `Forwarded`: one element per proxy, comma-separated (several header lines arrive joined by
 * commas), each `;`-separated `name=value` pairs with case-insensitive names. An element without a `for`,
 * or one that does not parse, is a hop that cannot be named: "unknown".
 */
const forwardedHops = (header: string): Array<string> =>
  splitOutsideQuotes(header, ",")
    .map((element) => element.trim())
    .filter((element) => element !== "")
    .map((element) => {
      for (const pair of splitOutsideQuotes(element, ";")) {
        const at = pair.indexOf("=")
        if (at > 0 && pair.slice(0, at).trim().toLowerCase() === "for") {
          return nodeAddress(unquote(pair.slice(at + 1).trim()))
        }
      }
      return "unknown"
    })

/** The hops of the header the proxies write, as written (not yet checked as addresses). */
export const hopsOf = (kind: ForwardedHeader, header: string | undefined): Array<string> =>
  header === undefined
    ? []
    : kind === "forwarded"
      ? forwardedHops(header)
      : header
          .split(",")
          .map((hop) => hop.trim())
          .filter((hop) => hop !== "")
