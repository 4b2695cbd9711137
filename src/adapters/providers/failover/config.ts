import { Config, ConfigError, Either } from "effect"
import type { CardBrand } from "../../../domain/card.ts"
import type { FailoverOptions } from "./FailoverAcquirer.ts"

const BRANDS: ReadonlyArray<CardBrand> = ["Visa", "Mastercard", "Elo"]

const list = (raw: string) =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0)

/**
 * LIVE_ACQUIRERS=cielo,rede (the order), LIVE_ACQUIRERS_BY_BRAND=Elo:rede;Visa:cielo,rede (optional),
 * ACQUIRER_BREAKER_FAILURES, ACQUIRER_BREAKER_COOLDOWN_SECONDS (docs/configuration.md). Every name must
 * be one of `known`; start-up stops naming the variable otherwise.
 */
export const failoverConfig = (known: ReadonlyArray<string>): Config.Config<FailoverOptions> => {
  const names = (variable: string) => (value: ReadonlyArray<string>) =>
    value.every((n) => known.includes(n)) && new Set(value).size === value.length
      ? true
      : `${variable} must list distinct names among ${known.join(", ")}`
  return Config.all({
    order: Config.string("LIVE_ACQUIRERS").pipe(
      Config.map(list),
      Config.validate({
        message: `LIVE_ACQUIRERS must list one or more distinct names among ${known.join(", ")}`,
        validation: (value) => value.length > 0 && names("LIVE_ACQUIRERS")(value) === true
      })
    ),
    byBrand: Config.string("LIVE_ACQUIRERS_BY_BRAND").pipe(
      Config.withDefault(""),
      Config.mapOrFail((raw) => {
        const routes: Partial<Record<CardBrand, ReadonlyArray<string>>> = {}
        for (const part of raw.split(";").filter((p) => p.trim().length > 0)) {
          const [brand, members] = part.split(":").map((s) => s.trim())
          const order = list(members ?? "")
          if (!BRANDS.includes(brand as CardBrand) || order.length === 0 || names("")(order) !== true) {
            return Either.left(
              ConfigError.InvalidData(
                ["LIVE_ACQUIRERS_BY_BRAND"],
                `must read Brand:name,name;… with Brand among ${BRANDS.join(", ")} and names among ${known.join(", ")}`
              )
            )
          }
          routes[brand as CardBrand] = order
        }
        return Either.right(routes)
      })
    ),
    breaker: Config.all({
      failures: Config.integer("ACQUIRER_BREAKER_FAILURES").pipe(
        Config.withDefault(5),
        Config.validate({ message: "ACQUIRER_BREAKER_FAILURES must be a positive integer", validation: (n) => n > 0 })
      ),
      cooldownMs: Config.integer("ACQUIRER_BREAKER_COOLDOWN_SECONDS").pipe(
        Config.withDefault(30),
        Config.validate({
          message: "ACQUIRER_BREAKER_COOLDOWN_SECONDS must be a positive integer",
          validation: (n) => n > 0
        }),
        Config.map((s) => s * 1000)
      )
    })
  })
}
