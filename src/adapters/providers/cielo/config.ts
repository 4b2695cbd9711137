import { Config, type Redacted } from "effect"

/** What an operator configures to go live with Cielo (docs/providers.md "Going live with Cielo"). */
export interface CieloConfig {
  readonly merchantId: string
  readonly merchantKey: Redacted.Redacted
  /** Transactional host: sales, voids, zero auth. */
  readonly apiUrl: string
  /** Query host: reads of sales. */
  readonly queryUrl: string
  /** Per HTTP call; a charge that times out is followed by a status query of the same length. */
  readonly timeoutMs: number
}

const url = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be an http(s) URL`, validation: (v) => /^https?:\/\/[^\s]+$/.test(v) }),
    Config.map((v) => v.replace(/\/+$/, ""))
  )

export const CieloConfigFromEnv: Config.Config<CieloConfig> = Config.all({
  merchantId: Config.string("CIELO_MERCHANT_ID"),
  merchantKey: Config.redacted("CIELO_MERCHANT_KEY"),
  apiUrl: url("CIELO_API_URL", "https://api.cieloecommerce.cielo.com.br"),
  queryUrl: url("CIELO_QUERY_URL", "https://apiquery.cieloecommerce.cielo.com.br"),
  timeoutMs: Config.integer("CIELO_TIMEOUT_MS").pipe(
    Config.withDefault(10_000),
    Config.validate({ message: "CIELO_TIMEOUT_MS must be a positive integer", validation: (n) => n > 0 })
  )
})
