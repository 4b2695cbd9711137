import { Config, type Redacted } from "effect"

/** What an operator configures to go live with e.Rede (docs/providers.md "Going live with e.Rede"). */
export interface RedeConfig {
  /** The merchant's affiliation number (PV), the Basic auth user. */
  readonly pv: string
  /** The integration key (token), the Basic auth password. */
  readonly token: Redacted.Redacted
  /** Up to, not including, `/v1/transactions`. */
  readonly apiUrl: string
  readonly timeoutMs: number
}

export const RedeConfigFromEnv: Config.Config<RedeConfig> = Config.all({
  pv: Config.string("REDE_PV"),
  token: Config.redacted("REDE_TOKEN"),
  apiUrl: Config.string("REDE_API_URL").pipe(
    Config.withDefault("https://api.userede.com.br/erede"),
    Config.validate({
      message: "REDE_API_URL must be an http(s) URL",
      validation: (v) => /^https?:\/\/[^\s]+$/.test(v)
    }),
    Config.map((v) => v.replace(/\/+$/, ""))
  ),
  timeoutMs: Config.integer("REDE_TIMEOUT_MS").pipe(
    Config.withDefault(10_000),
    Config.validate({ message: "REDE_TIMEOUT_MS must be a positive integer", validation: (n) => n > 0 })
  )
})
