import { AccountId, CustomerId } from "../../domain/ids.ts"
import { randomBytes, randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, HashMap, Layer, Logger, Option, Redacted } from "effect"
import { migratedDatabase } from "../../../test/support/databaseLayer.ts"
import { AppConfig, AppConfigFrom } from "../../config/AppConfig.ts"
import { CardVault, type StoredCard, type VaultCard } from "../../ports/CardVault.ts"
import { CardVaultLive } from "./CardVaultLive.ts"

// A fresh, migrated database for this file, and the vault over it.
const Database = migratedDatabase()

const PAN = "4242424242424242"
const card: VaultCard = { pan: PAN, expMonth: 12, expYear: 2030, holderName: "MARIA DA SILVA" }

/** An account and one of its customers, inserted directly. */
const seed = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const accountId = AccountId.make(randomUUID())
  const customerId = CustomerId.make(randomUUID())
  yield* sql`insert into accounts (id, name, email, password_hash)
    values (${accountId}, 'Loja', ${`${accountId}@example.com`}, 'x')`
  yield* sql`insert into customers (id, account_id, name, email, document, phone)
    values (${customerId}, ${accountId}, 'Maria', 'maria@example.com', '52998224725', '11999999999')`
  return { accountId, customerId }
})

const store = Effect.gen(function* () {
  const { accountId, customerId } = yield* seed
  // A live customer's card: stored (Some).
  const stored = yield* yield* (yield* CardVault).store(accountId, customerId, "Visa", card)
  return { accountId, customerId, stored }
})

/** A logger that keeps every line it is given, to read what the vault told the operator. */
const capturedLogs = () => {
  const lines: Array<{ level: string; text: string }> = []
  const logger = Logger.make(({ annotations, logLevel, message }) => {
    lines.push({ level: logLevel.label, text: JSON.stringify([message, [...HashMap.toEntries(annotations)]]) })
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

/** The card as the vault keeps it in clear, what an Unreadable answer still gives. */
const unreadable = (stored: StoredCard) => Option.some({ _tag: "Unreadable", ...stored })

layer(Database, { timeout: 60_000 })("CardVaultLive", (it) => {
  it.effect("stores a card and reveals it to its account", () =>
    Effect.gen(function* () {
      const { accountId, customerId, stored } = yield* store
      expect(stored).toEqual({
        token: expect.stringMatching(/^card_[A-Za-z0-9_-]{43}$/),
        customerId,
        brand: "Visa",
        last4: "4242",
        expMonth: 12,
        expYear: 2030,
        holderName: "MARIA DA SILVA"
      })
      const revealed = yield* (yield* CardVault).reveal(accountId, stored.token)
      expect(revealed).toEqual(Option.some({ _tag: "Revealed", ...stored, pan: PAN }))
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("reveals nothing to another account, nor for an unknown or malformed token", () =>
    Effect.gen(function* () {
      const vault = yield* CardVault
      const { stored } = yield* store
      const other = yield* seed
      expect(yield* vault.reveal(other.accountId, stored.token)).toEqual(Option.none())
      const { accountId } = yield* store
      expect(yield* vault.reveal(accountId, `card_${randomBytes(32).toString("base64url")}`)).toEqual(Option.none())
      expect(yield* vault.reveal(accountId, "card_' or 1=1 --")).toEqual(Option.none())
      expect(yield* vault.reveal(accountId, "")).toEqual(Option.none())
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("keeps neither the PAN nor its hidden digits in any column", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { stored } = yield* store
      const rows = yield* sql<Record<string, unknown>>`select * from cards where token = ${stored.token}`
      expect(rows).toHaveLength(1)
      for (const encoding of ["hex", "utf8", "base64"] as const) {
        const text = JSON.stringify(
          rows.map((row) =>
            Object.fromEntries(
              Object.entries(row).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString(encoding) : v])
            )
          )
        )
        expect(text).toContain("4242") // the last four are kept on purpose
        expect(text).not.toContain(PAN)
        expect(text).not.toContain(PAN.slice(0, 12))
      }
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("answers Unreadable on a tampered ciphertext, and logs it once as an error naming no card data", () => {
    const logs = capturedLogs()
    return Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { accountId, stored } = yield* store
      yield* sql`update cards set pan_ciphertext = set_byte(pan_ciphertext, 0, get_byte(pan_ciphertext, 0) # 1)
        where token = ${stored.token}`
      expect(yield* (yield* CardVault).reveal(accountId, stored.token)).toEqual(unreadable(stored))
      const errors = logs.lines.filter((l) => l.text.includes("failed to decrypt"))
      expect(errors).toHaveLength(1)
      expect(errors[0]!.level).toBe("ERROR")
      for (const { text } of logs.lines) {
        expect(text).not.toContain(PAN)
        expect(text).not.toContain(stored.token)
      }
    }).pipe(Effect.provide(CardVaultLive), Effect.provide(logs.layer))
  })

  it.effect("stores nothing for a deleted customer, nor for another account's customer", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const vault = yield* CardVault
      const { accountId, customerId } = yield* seed
      const other = yield* seed
      expect(yield* vault.store(other.accountId, customerId, "Visa", card)).toEqual(Option.none())
      yield* sql`update customers set deleted_at = now() where id = ${customerId}`
      expect(yield* vault.store(accountId, customerId, "Visa", card)).toEqual(Option.none())
      const left = yield* sql<{ n: number }>`select count(*)::int as n from cards where customer_id = ${customerId}`
      expect(left[0]?.n).toBe(0)
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("answers Unreadable on a ciphertext copied under another token", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const vault = yield* CardVault
      const { accountId, customerId, stored } = yield* store
      const second = yield* yield* vault.store(accountId, customerId, "Mastercard", {
        ...card,
        pan: "5555555555554444"
      })
      yield* sql`update cards set (pan_ciphertext, pan_iv, pan_tag) =
          (select pan_ciphertext, pan_iv, pan_tag from cards where token = ${stored.token})
        where token = ${second.token}`
      expect(yield* vault.reveal(accountId, second.token)).toEqual(unreadable(second))
      // The original row still opens.
      expect(yield* vault.reveal(accountId, stored.token)).toEqual(
        Option.some({ _tag: "Revealed", ...stored, pan: PAN })
      )
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("discards a held card of its account, and no customer's card nor another account's", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const vault = yield* CardVault
      const { accountId, stored: saved } = yield* store
      const held = yield* vault.store(accountId, null, "Visa", card)
      const other = yield* seed
      const othersHeld = yield* vault.store(other.accountId, null, "Visa", card)
      expect(yield* vault.discard(other.accountId, held.token)).toBe(false)
      expect(yield* vault.discard(accountId, saved.token)).toBe(false)
      expect(yield* vault.discard(accountId, "card_' or 1=1 --")).toBe(false)
      expect(yield* vault.discard(accountId, held.token)).toBe(true)
      expect(yield* vault.reveal(accountId, held.token)).toEqual(Option.none())
      expect(yield* vault.discard(accountId, held.token)).toBe(false)
      const left = yield* sql<{ token: string }>`select token from cards
        where token in (${saved.token}, ${held.token}, ${othersHeld.token})`
      expect(left.map((r) => r.token).sort()).toEqual([saved.token, othersHeld.token].sort())
    }).pipe(Effect.provide(CardVaultLive))
  )

  it.effect("answers Unreadable when the vault key is not the one the card was stored under", () =>
    Effect.gen(function* () {
      const config = yield* AppConfig
      const { accountId, stored } = yield* store
      const otherKey = AppConfigFrom({ ...config, cardVaultKey: Redacted.make(randomBytes(32).toString("base64")) })
      const revealed = yield* Effect.flatMap(CardVault, (v) => v.reveal(accountId, stored.token)).pipe(
        Effect.provide(CardVaultLive.pipe(Layer.provide(otherKey)))
      )
      expect(revealed).toEqual(unreadable(stored))
    }).pipe(Effect.provide(CardVaultLive))
  )
})
