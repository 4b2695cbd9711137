import { Cause } from "effect"
import { describe, expect, it } from "vitest"
import { describeStartupFailure } from "./startupFailure.ts"

/** What net.Server#listen (and pg) fail with when dns.lookup finds no address for a name. */
const notFound = (hostname: string) =>
  Cause.fail(
    Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
      code: "ENOTFOUND",
      syscall: "getaddrinfo",
      hostname
    })
  )

describe('a listener\'s host that names no address (docs/operations.md "Start-up errors")', () => {
  it("names HOST, not the database", () => {
    const line = describeStartupFailure(notFound("no-such-host.invalid"), {
      DATABASE_URL: "postgres://gw@db.example:5432/shop",
      HOST: "no-such-host.invalid"
    })
    expect(line).toMatch(/^cannot start: HOST=no-such-host\.invalid names no address/)
    expect(line).not.toContain("PostgreSQL")
  })

  it("names METRICS_HOST for the metrics listener", () => {
    const line = describeStartupFailure(notFound("metrics.invalid"), { METRICS_HOST: "metrics.invalid" })
    expect(line).toContain("METRICS_HOST=metrics.invalid")
  })

  it("is still the database's when the name is DATABASE_URL's host", () => {
    const line = describeStartupFailure(notFound("db.invalid"), {
      DATABASE_URL: "postgres://gw@db.invalid:5432/shop",
      HOST: "db.invalid"
    })
    expect(line).toContain("cannot connect to the PostgreSQL of DATABASE_URL")
    expect(line).toContain('host "db.invalid" not found')
  })
})

// docs/configuration.md "Empty values": the default metrics port, so its line names METRICS_PORT, not PORT.
const inUse = (port: number) =>
  Cause.fail(
    Object.assign(new Error(`listen EADDRINUSE: address already in use 127.0.0.1:${port}`), {
      code: "EADDRINUSE",
      syscall: "listen",
      address: "127.0.0.1",
      port
    })
  )

describe("METRICS_PORT='' (set empty is unset) and the metrics port in use", () => {
  it("names METRICS_PORT, as for METRICS_PORT unset", () => {
    const unset = describeStartupFailure(inUse(9464), {})
    expect(unset).toContain("set METRICS_PORT to a free port")
    const empty = describeStartupFailure(inUse(9464), { METRICS_PORT: "" })
    expect(empty).toContain("set METRICS_PORT to a free port")
  })
})
